// Entry points of compiled images, and matching the kernel names a launch
// plan spells against them.
//
// A cubin is an ELF file for machine EM_CUDA (190); its kernels are FUNC
// symbols whose st_other has the CUDA entry bit (0x10). A PTX module declares
// them as `.entry NAME(` (usually `.visible .entry`). Names are mangled unless
// the kernel is extern "C".
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kb {

struct LaunchExpectations;

// Why `bytes` is not a cubin kbench can load, or "" if it is one.
std::string cubin_problem(const std::string& bytes);
// Every entry point of a cubin, in symbol-table order. Throws CompileError if
// the bytes are not a CUDA ELF image.
std::vector<std::string> cubin_entries(const std::string& bytes);
// The SM version a cubin was built for (90 for sm_90/sm_90a), 0 if unknown.
int cubin_sm(const std::string& bytes);
// The registers a thread of each function uses, by symbol name, as ptxas
// recorded them (the module's .nv.info); empty when the bytes are not a
// cubin or hold no such record.
std::map<std::string, int> cubin_registers(const std::string& bytes);

// Why `text` is not PTX, or "" if it looks like PTX (a .version and a .target).
std::string ptx_problem(const std::string& text);
std::vector<std::string> ptx_entries(const std::string& text);

// A kernel parameter as the image declares it: its size in bytes and, where
// the image says, whether it is a floating-point value ('f'), an integer or
// pointer ('i'), or only bits ('?': .b types, byte arrays, cubins).
struct EntryParam {
    size_t size = 0;
    char kind = '?';
};
// The parameters of `entry` in a PTX module, in order; false when the module
// has no such entry.
bool ptx_entry_params(const std::string& text, const std::string& entry, std::vector<EntryParam>& out);
// The parameters of `entry` in a cubin, from its .nv.info.<entry> section
// (EIATTR_KPARAM_INFO), in order; false when the cubin does not describe them.
bool cubin_entry_params(const std::string& bytes, const std::string& entry, std::vector<EntryParam>& out);

// abi::__cxa_demangle, or the symbol itself when it is not a mangled name.
std::string demangle(const std::string& symbol);

// A demangled kernel name taken apart: "void ns::k<float, 4>(float*, int)"
// gives qualified "ns::k", with_args "ns::k<float, 4>", signature
// "ns::k<float, 4>(float*, int)" (no return type).
struct KernelName {
    std::string qualified;
    std::string with_args;
    std::string signature;
};
KernelName split_demangled(const std::string& demangled);

// Spelling-insensitive form of a kernel name or signature: whitespace
// normalised, `const T` written `T const`, fixed-width integer typedefs and
// `long long` mapped to the LP64 builtin types, `half` to `__half`.
std::string canonical_signature(const std::string& s);

// Maps each launch-plan name to a symbol in `entries`:
//  - a name NVRTC lowered (a template instantiation registered as a name
//    expression) maps to its lowered name;
//  - an exact symbol (extern "C" kernels, or a mangled name) maps to itself;
//  - "k(float*, int)" matches the demangled signature;
//  - "k<float, 4>" matches the demangled name with template arguments;
//  - "k" or "ns::k" matches the demangled qualified name, then the last
//    component ("k" finds "ns::k" when that is the only one).
// When a name matches several kernels (overloads), `expect` (what the plan
// passes, compiler/kernel_params.h) picks the one whose parameters take it.
// Throws CompileError naming the kernels found when a name matches none, with
// one hint the right way round: for the task's own plan, the name to give the
// kernel; for the candidate's plan, the closest kernel the code defines.
// Lists the candidates when a name matches several.
std::map<std::string, std::string> resolve_kernel_names(const std::vector<std::string>& names,
                                                        const std::vector<std::string>& entries,
                                                        const std::map<std::string, std::string>& lowered,
                                                        const std::string& source_name,
                                                        const LaunchExpectations* expect = nullptr);

}  // namespace kb
