// kbench's own device kernels as one fatbin (see builtin_kernels.cu).
#pragma once

#include <cstddef>

namespace kb {

const void* builtin_fatbin();
size_t builtin_fatbin_size();

}  // namespace kb
