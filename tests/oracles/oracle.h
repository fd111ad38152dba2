// Float64 oracles: an independent CPU implementation of every task in
// tasks/, and the bound within which that task's own reference may differ
// from it. They check the references (tests/gpu/test_references.cpp on a
// GPU), so they share no code with them: plain C++17, no CUDA, no kbench
// headers. Inputs are the values kbench drew (converted to double, f16 and
// bf16 included); scalars come from the dims.
//
// Each family of tasks registers its oracles from its own file:
//
//   namespace { Tensors relu(const Dims& d, const Tensors& in) { ... } }
//   KB_REGISTER_ORACLE(relu_f32, {"relu_f32", relu, [](const std::string&, const Dims&) {
//       return Bound{0, 0}; }});
//
// Registration happens at static initialisation, so the files must be linked
// as objects (not through a static library, whose unreferenced members the
// linker drops).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kb::oracle {

// Buffers keyed by argument name, flattened row-major, values as double.
// An output of shape [] has one element.
using Tensors = std::map<std::string, std::vector<double>>;
using Dims = std::map<std::string, int64_t>;

// |reference - truth| <= atol + rtol * |truth|, element by element. A bound
// must be at most half the task's own tolerance, so that a candidate as
// accurate as the reference always passes against it.
struct Bound {
    double atol = 0.0;
    double rtol = 0.0;
};

struct Oracle {
    std::string task;  // the task's "name"
    // The task's outputs (every out/inout buffer, by name) in float64 from its
    // inputs (every in/inout buffer). Throws std::invalid_argument for a
    // missing dim or input, or an input whose size does not match the dims.
    std::function<Tensors(const Dims&, const Tensors&)> compute;
    // How far the task's reference may be from compute()'s result for one
    // output at these dims. Throws std::invalid_argument for an unknown output.
    std::function<Bound(const std::string& output, const Dims&)> bound;
};

// Registers an oracle; a second one for the same task is a programming
// error (std::logic_error at start-up). Returns true (for static init).
bool add(Oracle oracle);
// nullptr when no oracle is registered for `task`.
const Oracle* find(const std::string& task);
// Every registered task name, sorted.
std::vector<std::string> names();

// |value - truth| <= b.atol + b.rtol * |truth| (false if either is NaN;
// equal infinities match).
bool within(double value, double truth, const Bound& b);

// Helpers for oracle files: a dim by name, an input by name checked against
// its expected element count (both throw std::invalid_argument naming what
// is missing or wrong).
int64_t dim(const Dims& dims, const char* name);
const std::vector<double>& input(const Tensors& inputs, const char* name, int64_t expected);

}  // namespace kb::oracle

#define KB_ORACLE_CAT2(a, b) a##b
#define KB_ORACLE_CAT(a, b) KB_ORACLE_CAT2(a, b)
#define KB_REGISTER_ORACLE(ident, ...) \
    static const bool KB_ORACLE_CAT(kb_oracle_registered_, ident) = ::kb::oracle::add(::kb::oracle::Oracle __VA_ARGS__)
