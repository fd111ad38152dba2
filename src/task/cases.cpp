#include "task/task.h"
#include "util/error.h"

namespace kb {

uint64_t case_buffer_bytes(const Task& task, int case_index) {
    if (case_index < 0 || size_t(case_index) >= task.cases.size()) return 0;
    const Case& c = task.cases[size_t(case_index)];
    uint64_t total = 0;
    for (const Arg& a : task.args) {
        if (!a.is_buffer()) continue;
        try {
            total += uint64_t(element_count(a.shape, c.dims, a.name)) * dtype_size(a.dtype);
        } catch (...) {
            // The loader validated every shape at every case; nothing to add here.
        }
    }
    return total;
}

void check_case_index(const Task& task, int case_index) {
    int n = int(task.cases.size());
    if (case_index < 0 || case_index >= n)
        fail(KB_ERR_INVALID_ARGUMENT, "case index " + std::to_string(case_index) + " is out of range: task '" +
                                          task.name + "' has cases 0.." + std::to_string(n - 1));
}

}  // namespace kb
