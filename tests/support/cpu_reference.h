// Float64 CPU implementations of the tasks in tasks/, for the GPU tests that
// check each task's CUDA reference against (near) mathematical truth, and the
// bounds within which that reference may differ from it.
//
// Pure C++17, no CUDA and no kbench headers: tests feed it the inputs kbench
// drew (converted to double, f16 included) and compare what the GPU reference
// produced (also converted to double) under truth_bound().
//
//   auto truth = kb::test::cpu_reference("softmax_f32", dims, {{"x", x}});
//   auto b = kb::test::truth_bound("softmax_f32", "y", dims);
//   for (size_t i = 0; i < n; ++i) EXPECT_TRUE(kb::test::within(gpu_y[i], truth["y"][i], b));
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kb::test {

// Buffers keyed by argument name, flattened row-major, values as double.
// An output of shape [] has one element.
using Tensors = std::map<std::string, std::vector<double>>;
using Dims = std::map<std::string, int64_t>;

// True for the tasks this file implements: vector_add_f32, copy_f32,
// gelu_tanh_f16, softmax_f32, sum_f32, gemm_f32.
bool has_cpu_reference(const std::string& task_name);

// The task's outputs computed in float64 from `inputs` (every `in`/`inout`
// buffer by name; scalars are not passed, their values come from `dims`).
// Throws std::invalid_argument for an unknown task, a missing dim or input,
// or an input whose size does not match the dims.
Tensors cpu_reference(const std::string& task_name, const Dims& dims, const Tensors& inputs);

// How far the task's GPU reference (f32 or f16 arithmetic) may be from the
// float64 result above, element by element:
//   |gpu - truth| <= atol + rtol * |truth|.
// Each bound is derived per task in cpu_reference.cpp (rounding analysis, and
// where the rigorous worst case is uselessly loose, simulation with a stated
// margin). Every bound is at most half the task's own tolerance, so a
// candidate as accurate as the reference always passes against it. Throws
// std::invalid_argument for an unknown task or output name.
struct Bound {
    double atol = 0.0;
    double rtol = 0.0;
};
Bound truth_bound(const std::string& task_name, const std::string& output_name, const Dims& dims);

// |value - truth| <= b.atol + b.rtol * |truth| (false if either is NaN).
bool within(double value, double truth, const Bound& b);

}  // namespace kb::test
