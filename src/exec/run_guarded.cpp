#include "exec/run_guarded.h"

#include <cstdio>
#include <cstring>

#include "compiler/fault_containment.h"
#include "compiler/trap_containment.h"

#include "util/profile.h"

namespace kb {
namespace {

std::string seconds_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g s", s);
    return buf;
}

// The limit a checked build's loops see: their own where the host gave one
// below the run's.
double loop_limit_s(const KernelLimit& limit) {
    if (limit.loop_seconds > 0 && (limit.seconds <= 0 || limit.loop_seconds < limit.seconds)) return limit.loop_seconds;
    return limit.seconds;
}

}  // namespace

GuardedRun run_guarded(Device& dev, ModuleCache& modules, CaseBuffers& bufs, const Kernel& kernel, uint64_t seed,
                       const std::string& scratch_key, BuiltinLibraries* builtins, const KernelLimit& limit,
                       const std::vector<int>& read_back) {
    GuardedRun g;
    std::vector<uint64_t> before;
    {
        KB_PROFILE_SPAN("guarded.prepare");
        bufs.prepare(seed);
        bufs.reset_scratch(kernel.program, scratch_key);
        bufs.arm_guards();
        before = bufs.prepared_input_checksums(seed);
    }
    CaseBuffers::PendingAfterRun pending;
    try {
        KB_PROFILE_SPAN("guarded.launch_sync");
        auto mod = modules.get(dev, kernel);
        // A build of checked copies alone runs them even where the functions
        // themselves were asked for (a correctness-only score's recheck).
        const bool checked = mod->has_checked() && (limit.checked_build || mod->checked_only());
        BoundPlan plan = bind_plan(dev, *mod, kernel.program, bufs, scratch_key, builtins, checked);
        const CUdeviceptr trap_flag = mod->trap_flag();
        if (checked) {
            auto [lo, hi] = bufs.span(scratch_key);
            // No limit: a deadline far past any run (2^62 ns), that cannot overflow.
            const double loops_s = loop_limit_s(limit);
            const uint64_t limit_ns = loops_s > 0 ? uint64_t(loops_s * 1e9) : (uint64_t(1) << 62);
            CUresult ar = mod->enqueue_arm(lo, hi, limit_ns);
            if (ar != CUDA_SUCCESS) throw fault_from_cuda(ar, "arming the checked build at case '" + bufs.the_case().name + "'");
        } else if (trap_flag) {
            dev.fill_bytes(trap_flag, sizeof(TrapFlag), 0);
        }
        plan.enqueue(dev);
        // The checks and the read-back queue behind the run: a crash surfaces
        // here or at the synchronisation, either way as the run's fault.
        CUresult r = bufs.enqueue_after_run(read_back, &pending);
        if (r == CUDA_SUCCESS && trap_flag) r = dev.enqueue_word_readback(trap_flag, sizeof(TrapFlag));
        if (r == CUDA_SUCCESS) r = dev.sync_within(limit.seconds > 0 && checked ? limit.seconds + kCheckedGraceS : limit.seconds);
        // Built only for a timeout's message: this is every run's path.
        auto within = [&] {
            return "the kernel did not finish within " + seconds_text(limit.seconds) + " of its launch at case '" +
                   bufs.the_case().name + "' (limit: " + limit.why + "); ";
        };
        if (r == CUDA_ERROR_LAUNCH_TIMEOUT && limit.seconds > 0 && dev.lost())
            throw KernelFault(KB_VERDICT_TIMEOUT,
                              within() + "kbench ended its worker process to stop it and goes on with a fresh one. " +
                                  kHangAdvice,
                              r);
        if (r != CUDA_SUCCESS) throw fault_from_cuda(r, "the run at case '" + bufs.the_case().name + "'");
        if (trap_flag) {
            TrapFlag t;
            std::memcpy(&t, dev.word_readback(), sizeof t);
            if (t.kind == kFaultOverTime)
                throw KernelFault(KB_VERDICT_TIMEOUT,
                                  "the kernel's loops ran past " + seconds_text(loop_limit_s(limit)) +
                                      " from its launch at case '" + bufs.the_case().name + "' (limit: " +
                                      (loop_limit_s(limit) == limit.loop_seconds ? limit.loop_why : limit.why) +
                                      "); kbench's checked build ended them there, and the worker went on. " +
                                      kHangAdvice);
            if (t.kind != kTrapNone)
                throw KernelFault(KB_VERDICT_RUNTIME_ERROR, describe_contained_fault(t, bufs.the_case().name));
        }
    } catch (const KernelFault& f) {
        g.fault = f;
        g.context_lost = dev.lost();
        return g;
    }
    KB_PROFILE_SPAN("guarded.after_checks");
    CaseBuffers::AfterRun checks = bufs.collect_after_run(pending);
    const std::vector<uint64_t>& after = checks.input_checksums;
    const Task& task = bufs.task();
    for (size_t i = 0, k = 0; i < task.args.size(); ++i)
        if (task.args[i].role == Role::in) {
            if (before[k] != after[k]) g.inputs_modified.push_back(task.args[i].name);
            ++k;
        }
    g.breaches = std::move(checks.breaches);
    g.outputs = std::move(checks.outputs);
    return g;
}

}  // namespace kb
