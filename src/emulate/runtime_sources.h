// The emulator's runtime sources (src/emulate/runtime/), embedded in kbench
// at build time: the emulator writes them next to each reference it compiles
// for the host, so an installed kbench needs no source tree.
#pragma once

#include <string>

namespace kb::emulate {

// kbemu_abi.h, kbemu_cuda.h (force-included before a reference) and
// kbemu_cuda.cc (the scheduler), verbatim.
const std::string& abi_header();
const std::string& cuda_header();
const std::string& runtime_source();

}  // namespace kb::emulate
