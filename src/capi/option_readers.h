// kb_limits into the core's options (docs/limits.md): the document limits
// (kb::Limits) and the compilers' limits of a context.
#pragma once

#include <string>

#include "engine/options.h"
#include "kbench.h"

namespace kb::capi {

// The defaults of every kb_limits field, as values (not zeros).
kb_limits default_c_limits();

// Applies a caller's kb_limits (read as the current version, zeros meaning
// "the default") to out->limits and out's compile limits. Returns "" or why
// a value is invalid (KB_ERR_INVALID_ARGUMENT).
std::string apply_limits(const kb_limits& in, ContextOptions* out);

}  // namespace kb::capi
