#include "engine/empty_candidate.h"

#include "compiler/compile_types.h"

namespace kb {

void refuse_empty_candidate(const std::string& code, const std::string& label, const Task& task) {
    if (code.find_first_not_of(" \t\r\n\f\v") != std::string::npos) return;
    std::string want = !task.candidate_signature.empty()
                           ? "the task expects " + task.candidate_signature
                           : "the task expects the kernels of its launch plan";
    std::string what = label + " is empty: it holds no code to compile (" + want + ")";
    throw CompileError(what, label + ": error: the file holds no code\n");
}

}  // namespace kb
