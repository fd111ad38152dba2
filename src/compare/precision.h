// The precision audit of program candidates (docs/programs.md, "Precision
// audit"): whether a candidate's outputs agree with a reduced-precision
// recomputation of the reference (TF32, fp16 or bf16 matmuls and
// convolutions) much better than with the full-precision reference. A
// candidate that computes its matmul in TF32 passes a loose tolerance and
// looks several times faster than an fp32 reference (CUDA-Agent issue 16:
// about 7x from TF32 under a 1e-2 tolerance), so the result says so. The
// audit is reported and never changes a verdict.
//
// The reference worker recomputes the reference at the problem's own sizes
// in each mode and measures, per output, the largest absolute difference of
// the candidate's output from the full-precision reference and from the
// reduced one; judge_precision turns those into the verdict below.
#pragma once

#include <string>
#include <vector>

#include "task/dtype.h"

namespace kb {

// The reduced-precision modes, in the order they are tried: "tf32"
// (torch.backends.cuda.matmul.allow_tf32 and cudnn.allow_tf32, which change
// only CUDA matmuls and convolutions), "f16" and "bf16" (torch.autocast on
// the reference's device).
const std::vector<std::string>& precision_modes();

// One output of the candidate against the reference in one mode.
struct PrecisionOutputError {
    size_t index = 0;            // its position among the reference's outputs
    std::string output;          // its label
    DType dtype = DType::f32;    // the reference's output dtype
    double scale = 0;            // the full reference's largest finite magnitude
    double err_full = 0;         // max |candidate - full reference|
    double err_reduced = 0;      // max |candidate - reduced recomputation|
};

// One mode: the candidate's errors per output, or why the mode says nothing.
struct PrecisionProbe {
    std::string mode;
    // The reduced recomputation gives the full reference's bits: the
    // reference does no work this mode changes (no matmul or convolution).
    bool same_bits = false;
    // Not empty: the mode was not measured, and why (the reference raised
    // under autocast, or gave outputs of other shapes).
    std::string skipped;
    std::vector<PrecisionOutputError> outputs;
};

// The audit's result, as the score's JSON carries it (`precision`).
struct PrecisionAudit {
    std::string verdict = "full";  // "reduced" | "full" | "unknown" (the audit did not run; `why`)
    std::string mode;              // the mode matched ("reduced"), or the closest measured one
    // Of `mode`: the largest over the outputs of the error divided by the
    // output's scale (the full reference's largest magnitude).
    double err_full = 0, err_reduced = 0;
    double floor = 0;  // the relative error below which nothing is called reduced
    std::string case_name;
    std::string why;  // a "full" that measured no mode: why
    std::vector<PrecisionProbe> probes;
};

// The rule. A mode matches when, over the outputs, with errors relative to
// each output's scale:
//   err_full > floor                 (the candidate differs from the full
//                                     reference by more than fp32's own
//                                     rounding noise), and
//   err_reduced * kPrecisionRatio <= err_full
//                                    (it agrees with the reduced
//                                     recomputation at least 8x better).
// floor is the largest over the outputs of max(2^-17, 2 * the output dtype's
// machine epsilon): 2^-17 is 64 fp32 units in the last place at the output's
// largest magnitude, above the difference two fp32 summation orders make and
// below TF32's and fp16's input rounding (2^-11). A correct fp32 candidate in
// another summation order is far from the reduced recomputation (err_reduced
// is about the reduced recomputation's own error, far above its err_full), so
// the ratio never flags it. Of several matching modes the one with the
// smallest err_reduced wins. Non-finite errors never match.
constexpr double kPrecisionRatio = 8.0;
constexpr double kPrecisionFloorF32 = 1.0 / 131072.0;  // 2^-17

double precision_floor(DType output);
PrecisionAudit judge_precision(std::vector<PrecisionProbe> probes, const std::string& case_name);

}  // namespace kb
