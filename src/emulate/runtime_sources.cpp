// Embeds src/emulate/runtime/* with the assembler's .incbin (CMake passes the
// paths), as src/device/builtin_image.cpp embeds kbench's own fatbin. The
// symbols are hidden: only kb_* leaves the shared library.
#include "emulate/runtime_sources.h"

#if !defined(KB_EMU_ABI_PATH) || !defined(KB_EMU_CUDA_PATH) || !defined(KB_EMU_RUNTIME_PATH)
#error "KB_EMU_ABI_PATH, KB_EMU_CUDA_PATH and KB_EMU_RUNTIME_PATH must name the files of src/emulate/runtime"
#endif

#define KB_EMU_INCBIN(sym, path)         \
    ".section .rodata\n"                 \
    ".balign 16\n"                       \
    ".hidden " #sym "\n"                 \
    ".globl " #sym "\n" #sym ":\n"       \
    ".incbin \"" path "\"\n"             \
    ".hidden " #sym "_end\n"             \
    ".globl " #sym "_end\n" #sym "_end:\n" \
    ".byte 0\n"                          \
    ".previous\n"

__asm__(KB_EMU_INCBIN(kbench_emu_abi, KB_EMU_ABI_PATH) KB_EMU_INCBIN(kbench_emu_cuda, KB_EMU_CUDA_PATH)
            KB_EMU_INCBIN(kbench_emu_runtime, KB_EMU_RUNTIME_PATH));

extern "C" const char kbench_emu_abi[];
extern "C" const char kbench_emu_abi_end[];
extern "C" const char kbench_emu_cuda[];
extern "C" const char kbench_emu_cuda_end[];
extern "C" const char kbench_emu_runtime[];
extern "C" const char kbench_emu_runtime_end[];

namespace kb::emulate {

const std::string& abi_header() {
    static const std::string s(kbench_emu_abi, kbench_emu_abi_end);
    return s;
}
const std::string& cuda_header() {
    static const std::string s(kbench_emu_cuda, kbench_emu_cuda_end);
    return s;
}
const std::string& runtime_source() {
    static const std::string s(kbench_emu_runtime, kbench_emu_runtime_end);
    return s;
}

}  // namespace kb::emulate
