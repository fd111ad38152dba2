// Negative controls: answers that must fail at a case, compared against the
// reference's own outputs with the task's own rule (compare_host). A control
// that passes means the case cannot tell right from wrong: a candidate that
// writes zeros, a constant, or returns its input would be called correct
// there (KernelBench issue 165; ReLU on torch.rand inputs is the identity).
//
// The controls of one output at one case:
//   zeros, ones        every element 0 (1)
//   mean               every element the output's mean (outputs of more
//                      than one element: otherwise it is the output)
//   input:<name>       an input of the output's shape passed through unchanged
//   other_seed         the reference's output at another seed (inputs the
//                      candidate never saw)
//   negated            every element negated
//   last_wrong         the last row (the last element of a 1-D output) wrong
//
// The same controls, on torch tensors, run in the importer for Python
// references (python/kbench_programs/kbench_importer.py, run_controls).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "exec/host_tensor.h"
#include "task/task.h"

namespace kb {

struct ControlOutcome {
    std::string control;  // "zeros", "ones", "mean", "input:x", "other_seed", "negated", "last_wrong"
    bool passes = false;  // true: the control answer is within tolerance everywhere
};

// The output's scale, which the magnitude-aware tolerance is relative to.
struct OutputMagnitude {
    double max_abs = 0;  // over the finite elements
    double rms = 0;
    double mean = 0;
};

struct OutputControls {
    std::string output;
    uint64_t elements = 0;
    Tolerance tolerance;  // the rule the controls were judged by
    OutputMagnitude magnitude;
    std::vector<ControlOutcome> controls;

    std::vector<std::string> passing() const;
    bool discriminating() const { return passing().empty(); }
};

OutputMagnitude output_magnitude(const HostTensor& t);

// Runs every control of output `arg` (whose reference values at the case are
// `reference`) against the arg's own tolerance, or `tolerance` when given.
// `inputs` are the case's input buffers (those whose shape is the output's
// are passed through); `other_seed` is the reference's output at another
// seed (nullptr: that control is not run).
OutputControls run_controls(const HostTensor& reference, const Arg& arg, const std::vector<HostTensor>& inputs,
                            const HostTensor* other_seed, const std::optional<Tolerance>& tolerance = std::nullopt);

// The magnitude-aware tolerance of a float output: the rule's atol and rtol
// scaled by the output's scale (its RMS) where that is below 1, so that an
// output whose elements are all far below atol (softmax over 16384 columns:
// about 6e-5 against KernelBench's 1e-4) is judged relative to its own size.
// The floor is a few units in the last place of the dtype at that scale, so
// a correct candidate's rounding still passes. nullopt for integer outputs,
// for outputs of scale >= 1 (nothing to tighten), and for all-zero outputs.
std::optional<Tolerance> magnitude_tolerance(const HostTensor& reference, const Tolerance& rule);

// The machine epsilon of a float dtype (2^-23 for f32, 2^-10 for f16, ...).
double dtype_epsilon(DType t);

}  // namespace kb
