// The worker's heap: kept instead of handed back to the kernel after each
// request.
//
// Why: NVRTC, NVVM and nvJitLink allocate and free the same working memory
// for every compile. glibc's default hands the top of the heap back to the
// kernel once 128 KiB of it is free, so the next compile touches fresh pages
// again: on the development machine (Firecracker) about 1550 page faults for
// an empty kernel's NVRTC compile to a cubin, 20.7 against 16.3 ms with the
// heap kept. On the one-GPU H200 hosts (gVisor) a single kb_score took
// 9.6-23.5 ms less correctness-only and 1.9-15.8 ms less timed (medians, five
// alternated pairs; the difference is in its compile stage); a batch, 14
// compiles at once, did not change
// (`kbench_score_bench`, `kbench_batch_bench`). A worker is a process of kbench's own, so
// its heap policy is ours to choose; the host process (the application
// linking kbench) is never changed.
#pragma once

namespace kb {

// Keeps up to 128 MiB of freed heap for the next request, grows the heap
// 16 MiB at a time, and serves blocks under 32 MiB from the heap rather than
// from mappings of their own. Leaves glibc's defaults when
// $KBENCH_WORKER_HEAP is `release` (freed memory goes back at once, for a
// machine short of memory: each compile worker keeps up to about 150 MiB),
// and when $GLIBC_TUNABLES names a glibc.malloc tunable (the user's own
// choice wins). Returns whether it set the policy.
bool keep_worker_heap();

}  // namespace kb
