// A compile-only context (no device, in process, sm_90, no nvcc fallback):
// what the CPU tests that compile through the C API use.
#pragma once

#include <gtest/gtest.h>

#include "kbench.h"

namespace kb::test {

inline kb_context* compile_only_context() {
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.device = KB_DEVICE_NONE;
    o.isolation = KB_ISOLATION_IN_PROCESS;
    o.arch = "sm_90";
    o.flags = KB_CONTEXT_NO_NVCC_FALLBACK;
    kb_context* ctx = nullptr;
    EXPECT_EQ(kb_context_create(&o, &ctx), KB_OK) << kb_last_error();
    return ctx;
}

}  // namespace kb::test
