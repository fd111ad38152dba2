// libFuzzer target: extracting the code to score from a model's raw answer
// (src/batch/extract.cpp), in each answer language, and its JSON report.
#include <cstddef>
#include <cstdint>
#include <string>

#include "batch/extract.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    kb::batch::ExtractOptions o;
    o.language = kb::batch::AnswerLanguage(data[0] % 3);
    o.include_reasoning = (data[0] & 4) != 0;
    if (data[0] & 8) o.entries = {"vector_add", "add_kernel"};
    const std::string answer(reinterpret_cast<const char*>(data + 1), size - 1);
    kb::batch::Extraction x = kb::batch::extract_answer(answer, o);
    // The report must serialise whatever bytes the answer held.
    x.to_json(true, true).dump(-1, ' ', false, kb::Json::error_handler_t::strict);
    return 0;
}
