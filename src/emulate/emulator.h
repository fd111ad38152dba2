// Runs a program compiled for the CPU emulator at one case of its task, on
// the inputs kbench would draw on a GPU for that seed (the same Philox
// stream, src/hostdev/input_gen.h), and returns its outputs.
//
// The run happens in a child process (fork), so a reference that crashes,
// hangs or corrupts memory is reported, not fatal. Every buffer lies between
// two inaccessible pages (an access far past its end faults) with canary
// bytes in the gaps (a write just past its end is reported).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "emulate/emulated_module.h"
#include "task/task.h"

namespace kb::emulate {

// A buffer on the host: raw little-endian elements of `dtype`.
struct EmulatedTensor {
    std::string name;
    DType dtype = DType::f32;
    std::vector<int64_t> shape;
    std::vector<uint8_t> bytes;

    uint64_t count() const { return bytes.size() / dtype_size(dtype); }
    double at(uint64_t i) const { return load_as_double(bytes.data(), dtype, i); }
};

struct EmulatedRun {
    std::vector<EmulatedTensor> inputs;   // in/inout buffers as drawn, in task order
    std::vector<EmulatedTensor> outputs;  // out/inout buffers after the run, in task order
    // Per output: elements that still hold kbench's poison pattern (the
    // program never wrote them).
    std::vector<uint64_t> unwritten;
    // `in` buffers the program changed (by name).
    std::vector<std::string> inputs_modified;
    // Buffers (arguments or scratch) written just past either end (the
    // canary next to them changed); farther accesses crash the run instead.
    std::vector<std::string> written_out_of_bounds;
    double run_ms = 0;
};

struct EmulateOptions {
    double timeout_s = 120;  // per run; blocks spinning on other blocks never finish
};

// Elements of the buffers of a case (all arguments and the program's scratch
// buffers) and the threads its launch plan starts: how much work emulating
// it is.
struct CaseSize {
    uint64_t elements = 0;
    uint64_t threads = 0;
};
CaseSize case_size(const Task& task, const Program& program, int case_index);

// Throws kb::Error(KB_ERR_REFERENCE_FAILED) when the program crashes, times
// out, or a launch is refused (wrong parameter count or sizes, more than 1024
// threads per block), naming the case, the step, the kernel and the block and
// thread that ran last.
EmulatedRun emulate_case(const Task& task, const Program& program, const EmulatedModule& module, int case_index,
                         uint64_t seed, const EmulateOptions& options = {});

}  // namespace kb::emulate
