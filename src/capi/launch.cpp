// kb_launch and kb_launch_args: a compiled kernel on the caller's memory
// (include/kbench.h, "Launching on your own buffers").
#include <cstring>

#include "capi/boundary.h"
#include "exec/external_launch.h"
#include "exec/fault.h"
#include "task/dtype.h"

struct kb_launch_args {
    kb::DimValues dims;
    std::map<std::string, kb::ExternalBuffer> buffers;
};

using kb::capi::guard;
using kb::capi::set_error;

extern "C" {

kb_status kb_launch_args_create(kb_launch_args** out) {
    return guard([&] {
        KB_REQUIRE(out, "kb_launch_args_create: out is NULL");
        *out = new kb_launch_args();
        return KB_OK;
    });
}

void kb_launch_args_destroy(kb_launch_args* args) { delete args; }

kb_status kb_launch_args_set_dim(kb_launch_args* args, const char* name, int64_t value) {
    return guard([&] {
        KB_REQUIRE(args && name, "kb_launch_args_set_dim: args and name must not be NULL");
        KB_REQUIRE(*name, "kb_launch_args_set_dim: the dim's name is empty");
        args->dims[name] = value;
        return KB_OK;
    });
}

kb_status kb_launch_args_set_buffer(kb_launch_args* args, const char* name, uint64_t device_ptr, size_t bytes,
                                    const char* dtype) {
    return guard([&] {
        KB_REQUIRE(args && name, "kb_launch_args_set_buffer: args and name must not be NULL");
        KB_REQUIRE(*name, "kb_launch_args_set_buffer: the buffer's name is empty");
        if (dtype && *dtype && !kb::parse_dtype(dtype))
            return set_error(KB_ERR_INVALID_ARGUMENT, std::string("kb_launch_args_set_buffer: buffer '") + name +
                                                          "': unknown dtype '" + dtype + "' (known: " +
                                                          kb::dtype_names() + ")");
        args->buffers[name] = kb::ExternalBuffer{static_cast<CUdeviceptr>(device_ptr), bytes, dtype ? dtype : ""};
        return KB_OK;
    });
}

kb_status kb_launch(kb_context* ctx, const kb_task* task, const kb_kernel* kernel, const kb_launch_args* args,
                    uint64_t stream) {
    return guard([&] {
        KB_REQUIRE(ctx && task && kernel && args, "kb_launch: ctx, task, kernel and args must not be NULL");
        kb::ExternalLaunch x;
        x.dims = args->dims;
        x.buffers = args->buffers;
        x.stream = reinterpret_cast<CUstream>(static_cast<uintptr_t>(stream));
        try {
            ctx->ctx->launch(task->task, kernel->kernel, x);
        } catch (const kb::KernelFault& f) {
            // A launch the driver refused (too many threads, too much shared
            // memory, a bad image): the kernel's problem, said as the scorer
            // would say it, but here an error of the call.
            return set_error(f.verdict() == KB_VERDICT_LAUNCH_ERROR ? KB_ERR_CUDA : KB_ERR_CONTEXT_LOST,
                             std::string("kb_launch: ") + f.what());
        }
        return KB_OK;
    });
}

}  // extern "C"
