// libFuzzer target: the kbench-task/1 loader. Any input either loads or is
// refused with kb::Error; anything else (another exception, a crash, a hang,
// a sanitizer report) is a finding. A task that loads must load again from
// its own normalised document, to the same hash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "task/task.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    kb::TaskPtr task;
    try {
        // Relative source_file paths resolve against a folder with nothing
        // in it: the fuzzer explores the document, not the file system.
        task = kb::load_task_json(text, "/nonexistent-kbench-fuzz");
    } catch (const kb::Error&) {
        return 0;
    }
    kb::TaskPtr again = kb::load_task_json(task->normalized_json, "", kb::Limits::trusted());
    if (again->hash != task->hash) std::abort();  // normalising is not idempotent
    return 0;
}
