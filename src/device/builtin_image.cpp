// The fatbin of src/device/builtin_kernels.cu, embedded at build time with
// the assembler's .incbin (CMake passes its path), so kbench never needs a
// compiler or a file on disk to run its own kernels. The symbols are hidden:
// only kb_* leaves the shared library.
#include "device/builtin_image.h"

#ifndef KB_BUILTIN_FATBIN_PATH
#error "KB_BUILTIN_FATBIN_PATH must name the fatbin built from builtin_kernels.cu"
#endif

__asm__(".section .rodata\n"
        ".balign 16\n"
        ".hidden kbench_builtin_fatbin\n"
        ".globl kbench_builtin_fatbin\n"
        "kbench_builtin_fatbin:\n"
        ".incbin \"" KB_BUILTIN_FATBIN_PATH "\"\n"
        ".hidden kbench_builtin_fatbin_end\n"
        ".globl kbench_builtin_fatbin_end\n"
        "kbench_builtin_fatbin_end:\n"
        ".byte 0\n"
        ".previous\n");

extern "C" const unsigned char kbench_builtin_fatbin[];
extern "C" const unsigned char kbench_builtin_fatbin_end[];

namespace kb {

const void* builtin_fatbin() { return kbench_builtin_fatbin; }
size_t builtin_fatbin_size() { return size_t(kbench_builtin_fatbin_end - kbench_builtin_fatbin); }

}  // namespace kb
