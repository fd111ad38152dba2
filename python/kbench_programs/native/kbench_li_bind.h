// The bindings of a split load_inline build, kept apart from the answer's
// main.cpp (kbench_load_inline.py, "the bindings apart").
//
// torch's main.cpp is the answer's C++ after torch/extension.h, then a
// PYBIND11_MODULE whose m.def calls bind `functions`. Compiled whole, that
// unit costs seconds even when the answer's C++ is one declaration: GCC
// instantiates the templates torch's and pybind11's inline functions use at
// the end of every unit that includes them, a precompiled header or not.
//
// Apart, main.cpp includes this header only: the answer's C++ (when it
// compiles against no more than these declarations) and a call of
// kbench_li_def per function, whose template argument is the function's
// type. Each kbench_li_def<type> is defined once, in an object built from
// kbench_li_main.h and kept by type in the build's cache, and the module's
// entry point (pybind11's own PYBIND11_MODULE) in another; main.cpp's
// PyInit_<name> calls it. The same m.def runs on the same function as in
// torch's main.cpp.
//
// Everything here is hidden: each extension binds its own functions, however
// many extensions a process loads.
#ifndef KBENCH_LI_BIND_H
#define KBENCH_LI_BIND_H
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace at {
class Tensor;
}
namespace torch {
using at::Tensor;
}

#define KBENCH_LI_HIDDEN __attribute__((visibility("hidden")))

// m.def(name, torch::wrap_pybind_function(*f), doc) on the module `m`
// (a pybind11::module_*), as load_inline's bindings do.
template <class F>
KBENCH_LI_HIDDEN void kbench_li_def(void* m, const char* name, F* f, const char* doc);
// m.def(name, *f, doc): load_inline with with_pytorch_error_handling=False.
template <class F>
KBENCH_LI_HIDDEN void kbench_li_def_raw(void* m, const char* name, F* f, const char* doc);

// main.cpp's: binds the answer's functions to the module `m`.
extern "C" KBENCH_LI_HIDDEN void kbench_li_bind(void* m);
// The module object's: pybind11's PyInit for a module whose body calls
// kbench_li_bind.
extern "C" KBENCH_LI_HIDDEN void* kbench_li_pyinit(void);

#define KBENCH_LI_CAT_(a, b) a##b
#define KBENCH_LI_CAT(a, b) KBENCH_LI_CAT_(a, b)
// The extension's entry point, PyInit_<name>, as PYBIND11_MODULE exports it.
#define KBENCH_LI_MODULE(name)                                                            \
    extern "C" __attribute__((visibility("default"))) void* KBENCH_LI_CAT(PyInit_, name)(void) { \
        return kbench_li_pyinit();                                                        \
    }
#endif
