// libFuzzer target: extracting the code to score from a model's raw answer
// (src/evaluate/extract.cpp), in each answer language, and its JSON report.
#include <cstddef>
#include <cstdint>
#include <string>

#include "evaluate/extract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    kb::evaluate::ExtractOptions o;
    o.language = kb::evaluate::AnswerLanguage(data[0] % 3);
    o.include_reasoning = (data[0] & 4) != 0;
    if (data[0] & 8) o.entries = {"vector_add", "add_kernel"};
    const std::string answer(reinterpret_cast<const char*>(data + 1), size - 1);
    kb::evaluate::Extraction x = kb::evaluate::extract_answer(answer, o);
    // The report must serialise whatever bytes the answer held.
    x.to_json(true, true).dump(-1, ' ', false, kb::Json::error_handler_t::strict);
    return 0;
}
