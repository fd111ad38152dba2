// What one process's crash or hang costs the others on the same GPU, and how
// long the driver takes to report a fault: the facts behind a kernel's run
// limit (worker_host/deadlines.h) and the mixed-stream rate (issue 12).
// Stand-alone (CUDA runtime only), so it measures the GPU and the driver and
// nothing of kbench:
//
//   nvcc -O2 -o gpu_disturbance bench/gpu_disturbance.cu
//   ./gpu_disturbance [trials=20]
//
// 1. fault latency: a fresh process launches a kernel that faults (a write
//    2^40 floats past its buffer; a misaligned 8-byte store; a __trap() in
//    the last block of a 4096-block grid, as a failed device-side assert()
//    does) and polls cudaStreamQuery: milliseconds from the launch to the error.
// 2. a neighbour's fault / trap / hang: this process runs a tiny kernel and
//    waits for it, back to back, while another process faults once, traps
//    once, or spins on every SM until it is killed (SIGKILL, as kbench ends a
//    hung worker).
//    Reported: the tiny kernel's round trip before, during and after, and how
//    long after the kill it is back to normal.
// 3. a neighbour's whole crash cycle, as kbench lives it after a crashing
//    candidate: a fresh process starts its context (a standby coming up),
//    faults, and is killed once the fault is reported (its context torn
//    down). This process times a tiny kernel's round trip and a 1 MiB
//    cudaMalloc + cudaFree (the driver's resource manager) all along. The
//    neighbour runs on device N, this one on device V: the same GPU or
//    another, which says whether a crash holds back only its own GPU.
//      ./gpu_disturbance cycle V N [rounds=5]
// 4. several hangs at once: K neighbours each spin one thread, and are
//    killed together after hang_ms; reported as in 2.
//      ./gpu_disturbance 0 beside-hangs K [hang_ms=1000]
// 5. a fresh process's start (context, a tiny kernel) beside K one-thread
//    hangs and right after their kill, as a standby or a replacement worker
//    starts in kbench: a lane once waited 4-6 s for a worker after hangs
//    were killed. Each hang holds `footprint` MiB of device memory and a
//    quarter of it page-locked on the host, as a worker holding its
//    buffers and pinned references does.
//      ./gpu_disturbance 0 starts-beside-hangs K [hang_ms=1000] [footprint=0]
//    The same beside a __trap() in the last block of a full grid, its
//    process killed `kill_ms` after the launch: before the driver reports
//    the trap (about 0.33 s alone), as kbench's 1 s limit did to a trap that
//    was slow to report, or after it.
//      ./gpu_disturbance 0 starts-beside-trap [kill_ms=1000]
// 6. a monitor beside something else (`kbench run` on another GPU or on this
//    one): until SIGTERM or SECONDS, a tiny kernel's round trip back to back,
//    a 1 MiB cudaMalloc + cudaFree every 10 ms, and a fresh process's start
//    (context, a tiny kernel) every START_MS, all on device DEV. Every round
//    trip or allocation over 10 ms and every start is listed with its
//    steady-clock time in microseconds, the clock of KBENCH_TRACE's spans, so
//    the two lay side by side: whether what holds kbench's lanes back holds a
//    process on another GPU back too.
//      ./gpu_disturbance monitor DEV SECONDS [start_ms=500]
// 7. N fresh processes started at once (a lane's worker and its standby, or
//    four lanes' workers at a run's start), alternating between devices A
//    and B, after three alone on A: whether the driver starts contexts one
//    at a time, and across GPUs. Each start's steps are timed (starter).
//      ./gpu_disturbance starts N A [B=A]
// 8. traps and hangs at once, as a cluster of bad answers reaches kbench's
//    lanes together: T processes each launch a __trap() in the last block
//    of a full grid and H processes each spin one thread, at the same
//    moment. A trap's process is killed once its trap is reported, or at
//    KILL_MS if it is not (kbench's 1 s limit), a hang's at KILL_MS. Each
//    trap's launch-to-error time, and fresh starts (their steps) every
//    300 ms from 100 ms after the launch until every process is reaped:
//    whether a trap beside hangs or traps holds the driver back for seconds
//    (in `kbench run` two traps beside two hangs took 6.5 s to report, and a
//    process on the other GPU waited 6.9 s in cuInit).
//      ./gpu_disturbance mix T H [kill_ms=1000]
// Prints one JSON object (bench/run_device.sh's `disturbance` step).
#include <cuda_runtime.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using Clock = std::chrono::steady_clock;
static double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}
static double steady_us(Clock::time_point t) {
    return std::chrono::duration<double, std::micro>(t.time_since_epoch()).count();
}

__global__ void far_write(float* p) { p[threadIdx.x + (size_t(1) << 40)] = 1.0f; }
__global__ void misaligned_write(char* p) { *reinterpret_cast<double*>(p + 1 + threadIdx.x * 8) = 1.0; }
// A trap in the last block of a grid that fills the GPU (a failed device-side
// assert() traps too): bench/make_answers.py's crash_trap.
__global__ void trap_last_block(float* p) {
    if (threadIdx.x == 0 && blockIdx.x == gridDim.x - 1) __trap();
    p[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
}
constexpr int kTrapBlocks = 4096, kTrapThreads = 256;  // 4 MiB of floats
__device__ volatile int g_never = 0;
__global__ void spin() {
    while (g_never == 0) {
    }
}
__global__ void tiny(int* p) { p[threadIdx.x] += 1; }

static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        std::exit(2);
    }
}

// The probe: a tiny kernel's launch and wait, in milliseconds.
static double round_trip_ms(int* buf) {
    auto t = Clock::now();
    tiny<<<1, 32>>>(buf);
    check(cudaStreamSynchronize(0), "tiny kernel");
    return ms_between(t, Clock::now());
}

// In a child: fault once, write the ms from launch to error to `fd`.
static void child_fault(int kind, int fd) {
    float* buf = nullptr;
    check(cudaMalloc(&buf, size_t(kTrapBlocks) * kTrapThreads * sizeof(float)), "cudaMalloc");
    tiny<<<1, 32>>>(reinterpret_cast<int*>(buf));  // module loaded, context warm
    check(cudaDeviceSynchronize(), "warm-up");
    auto t0 = Clock::now();
    if (kind == 0) far_write<<<1, 32>>>(buf);
    else if (kind == 1) misaligned_write<<<1, 32>>>(reinterpret_cast<char*>(buf));
    else trap_last_block<<<kTrapBlocks, kTrapThreads>>>(buf);
    cudaError_t e;
    while ((e = cudaStreamQuery(0)) == cudaErrorNotReady) {
    }
    double ms = ms_between(t0, Clock::now());
    dprintf(fd, "%.3f %d\n", ms, int(e));
    std::_Exit(0);
}

static std::vector<double> fault_latency(int kind, int trials) {
    std::vector<double> ms;
    for (int i = 0; i < trials; ++i) {
        int p[2];
        if (pipe(p) != 0) std::exit(2);
        pid_t pid = fork();
        if (pid == 0) {
            close(p[0]);
            child_fault(kind, p[1]);
        }
        close(p[1]);
        char line[64] = {0};
        ssize_t n = read(p[0], line, sizeof line - 1);
        close(p[0]);
        waitpid(pid, nullptr, 0);
        if (n > 0) ms.push_back(std::atof(line));
    }
    return ms;
}

struct Summary {
    double median = 0, p90 = 0, max = 0, min = 0;
    size_t n = 0;
};
static Summary summarize(std::vector<double> v) {
    Summary s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.n = v.size();
    s.min = v.front();
    s.median = v[v.size() / 2];
    s.p90 = v[std::min(v.size() - 1, v.size() * 9 / 10)];
    s.max = v.back();
    return s;
}
static std::string json(const Summary& s) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "{\"n\":%zu,\"min_ms\":%.3f,\"median_ms\":%.3f,\"p90_ms\":%.3f,\"max_ms\":%.3f}", s.n,
                  s.min, s.median, s.p90, s.max);
    return buf;
}

// The neighbour: waits for a byte on `go`, then faults (kind 0: a far write;
// 1: a trap in the last block of a full grid) or spins on every SM (kind 2)
// until killed.
static size_t g_footprint_mib = 0;  // starts-beside-hangs: what each hang holds
static pid_t start_neighbour(int kind, int* go_fd) {
    int p[2];
    if (pipe(p) != 0) std::exit(2);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[1]);
        float* buf = nullptr;
        check(cudaMalloc(&buf, size_t(kTrapBlocks) * kTrapThreads * sizeof(float)), "cudaMalloc");
        if (g_footprint_mib) {
            const size_t bytes = g_footprint_mib << 20;
            void *dev = nullptr, *host = nullptr;
            check(cudaMalloc(&dev, bytes), "cudaMalloc footprint");
            check(cudaMemset(dev, 1, bytes), "cudaMemset footprint");
            check(cudaHostAlloc(&host, bytes / 4, cudaHostAllocDefault), "cudaHostAlloc footprint");
            std::memset(host, 1, bytes / 4);
        }
        tiny<<<1, 32>>>(reinterpret_cast<int*>(buf));
        check(cudaDeviceSynchronize(), "warm-up");
        char c;
        if (read(p[0], &c, 1) != 1) std::_Exit(1);
        if (kind == 0) far_write<<<1, 32>>>(buf);
        else if (kind == 1) trap_last_block<<<kTrapBlocks, kTrapThreads>>>(buf);
        else if (kind == 2) spin<<<132 * 8, 256>>>();
        else spin<<<1, 1>>>();  // kind 3: one thread spins (bench/make_answers.py's hang_spin)
        cudaDeviceSynchronize();
        pause();  // a spinning kernel never gets here; a faulted one waits to be killed
        std::_Exit(0);
    }
    close(p[0]);
    *go_fd = p[1];
    return pid;
}

// Round trips of a tiny kernel in this process while `count` neighbours
// fault or hang at once. For a hang the neighbours are killed together
// `hang_ms` after they start (three of kbench's lanes hung side by side once,
// and the GPU stood still for seconds after their kills).
static std::string beside(int kind, double hang_ms, int count = 1) {
    std::vector<int> go(size_t(count), -1);
    std::vector<pid_t> pids;
    for (int i = 0; i < count; ++i) pids.push_back(start_neighbour(kind, &go[size_t(i)]));
    usleep(500 * 1000 + 200 * 1000 * useconds_t(count - 1));  // the neighbours' contexts are up (each waits on `go`)
    int* buf = nullptr;
    check(cudaMalloc(&buf, 4096), "cudaMalloc");
    auto trip = [&] { return round_trip_ms(buf); };
    for (int i = 0; i < 200; ++i) trip();
    std::vector<double> before, during, after;
    for (int i = 0; i < 500; ++i) before.push_back(trip());
    auto start = Clock::now();
    for (int fd : go)
        if (write(fd, "g", 1) != 1) std::exit(2);
    double killed_at = -1, worst = 0, worst_at = 0, last_slow_at = 0;
    Clock::time_point kill_time;
    const bool hang = kind >= 2;
    const double run_for_ms = (!hang ? 3000.0 : hang_ms + 1500.0);
    const double normal = summarize(before).p90 * 3 + 0.05;
    for (;;) {
        double now = ms_between(start, Clock::now());
        if (now > run_for_ms) break;
        if (hang && killed_at < 0 && now >= hang_ms) {
            for (pid_t pid : pids) kill(pid, SIGKILL);
            kill_time = Clock::now();
            killed_at = now;
        }
        double t = trip();
        double at = ms_between(start, Clock::now());
        if (t > worst) {
            worst = t;
            worst_at = at;
        }
        if (t > normal) last_slow_at = at;
        if (hang && killed_at < 0) during.push_back(t);
        else if (hang && ms_between(kill_time, Clock::now()) > 500) after.push_back(t);
        else if (!hang) during.push_back(t);
    }
    if (killed_at < 0)
        for (pid_t pid : pids) kill(pid, SIGKILL);
    int status = 0;
    auto reap0 = Clock::now();
    for (pid_t pid : pids) waitpid(pid, &status, 0);
    double reap_ms = ms_between(reap0, Clock::now());
    for (int fd : go) close(fd);
    cudaFree(buf);
    char out[1024];
    double slow_sum = 0;
    for (double t : during) slow_sum += std::max(0.0, t - summarize(before).median);
    std::snprintf(out, sizeof out,
                  "{\"before\":%s,\"during\":%s,\"after\":%s,\"worst_ms\":%.3f,\"worst_at_ms\":%.1f,"
                  "\"last_slow_at_ms\":%.1f,\"killed_at_ms\":%.1f,\"back_to_normal_after_kill_ms\":%.1f,"
                  "\"extra_ms_during\":%.1f,\"reap_ms\":%.1f}",
                  json(summarize(before)).c_str(), json(summarize(during)).c_str(), json(summarize(after)).c_str(),
                  worst, worst_at, last_slow_at, killed_at, killed_at >= 0 ? last_slow_at - killed_at : -1.0,
                  slow_sum, reap_ms);
    return out;
}

// The cycle's neighbour (run as `gpu_disturbance neighbour N`): starts its
// context, says "R", faults when it reads 'f', says "E" once the fault is
// reported, then waits to be killed.
static int neighbour(int device) {
    check(cudaSetDevice(device), "cudaSetDevice");
    float* buf = nullptr;
    check(cudaMalloc(&buf, 1 << 20), "cudaMalloc");
    tiny<<<1, 32>>>(reinterpret_cast<int*>(buf));
    check(cudaDeviceSynchronize(), "warm-up");
    if (write(1, "R", 1) != 1) return 1;
    char c;
    if (read(0, &c, 1) != 1) return 1;
    far_write<<<1, 32>>>(buf);
    while (cudaStreamQuery(0) == cudaErrorNotReady) {
    }
    if (write(1, "E", 1) != 1) return 1;
    for (;;) pause();
}

extern char** environ;

static std::string cycle(const char* self, int victim, int other, int rounds) {
    check(cudaSetDevice(victim), "cudaSetDevice");
    int* buf = nullptr;
    check(cudaMalloc(&buf, 4096), "cudaMalloc");
    auto trip = [&] { return round_trip_ms(buf); };
    auto alloc = [&] {
        auto t = Clock::now();
        void* p = nullptr;
        check(cudaMalloc(&p, 1 << 20), "cudaMalloc probe");
        check(cudaFree(p), "cudaFree probe");
        return ms_between(t, Clock::now());
    };
    for (int i = 0; i < 200; ++i) trip(), alloc();
    std::vector<double> trip0, alloc0;
    for (int i = 0; i < 300; ++i) trip0.push_back(trip()), alloc0.push_back(alloc());
    const double trip_med = summarize(trip0).median, alloc_med = summarize(alloc0).median;
    // Per phase, over all rounds: its length, and the probes' extra time over
    // their medians before (the time this process lost to the neighbour).
    const char* names[] = {"create", "idle", "fault", "teardown", "after"};
    struct Phase {
        std::vector<double> length, trip_extra, alloc_extra, trip_worst, alloc_worst;
    } phases[5];
    std::string errors;
    for (int r = 0; r < rounds; ++r) {
        int to[2], from[2];
        if (pipe(to) != 0 || pipe(from) != 0) std::exit(2);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, to[0], 0);
        posix_spawn_file_actions_adddup2(&fa, from[1], 1);
        posix_spawn_file_actions_addclose(&fa, to[1]);
        posix_spawn_file_actions_addclose(&fa, from[0]);
        std::string dev = std::to_string(other);
        char* argv[] = {const_cast<char*>(self), const_cast<char*>("neighbour"), dev.data(), nullptr};
        pid_t pid = 0;
        auto start = Clock::now();
        // This process holds a CUDA context: the neighbour is a new program, never a fork.
        if (posix_spawn(&pid, "/proc/self/exe", &fa, nullptr, argv, environ) != 0) std::exit(2);
        posix_spawn_file_actions_destroy(&fa);
        close(to[0]);
        close(from[1]);
        int phase = 0;
        Clock::time_point phase_start = start;
        double te = 0, ae = 0, tw = 0, aw = 0;
        auto close_phase = [&](Clock::time_point now) {
            phases[phase].length.push_back(ms_between(phase_start, now));
            phases[phase].trip_extra.push_back(te);
            phases[phase].alloc_extra.push_back(ae);
            phases[phase].trip_worst.push_back(tw);
            phases[phase].alloc_worst.push_back(aw);
            te = ae = tw = aw = 0;
            phase_start = now;
            ++phase;
        };
        while (phase < 5) {
            double t = trip(), a = alloc();
            te += std::max(0.0, t - trip_med);
            ae += std::max(0.0, a - alloc_med);
            tw = std::max(tw, t);
            aw = std::max(aw, a);
            auto now = Clock::now();
            if (ms_between(start, now) > 20000) {
                errors += "round " + std::to_string(r) + " stuck in phase " + names[phase] + "; ";
                break;
            }
            pollfd pf{from[0], POLLIN, 0};
            bool said = (phase == 0 || phase == 2) && poll(&pf, 1, 0) > 0;
            char c = 0;
            if (said && read(from[0], &c, 1) != 1) {
                errors += "round " + std::to_string(r) + ": the neighbour died in phase " + names[phase] + "; ";
                break;
            }
            if (phase == 0 && c == 'R') close_phase(now);
            else if (phase == 1 && ms_between(phase_start, now) >= 100) {
                if (write(to[1], "f", 1) != 1) std::exit(2);
                close_phase(now);
            } else if (phase == 2 && c == 'E') {
                kill(pid, SIGKILL);  // as kbench retires a worker after a sticky error
                close_phase(now);
            } else if (phase == 3 && waitpid(pid, nullptr, WNOHANG) == pid) {
                pid = 0;
                close_phase(now);
            } else if (phase == 4 && ms_between(phase_start, now) >= 200) {
                close_phase(now);
            }
        }
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
        }
        close(to[1]);
        close(from[0]);
    }
    std::string out = "{\"victim_device\":" + std::to_string(victim) + ",\"neighbour_device\":" +
                      std::to_string(other) + ",\"rounds\":" + std::to_string(rounds) +
                      ",\"trip_median_ms\":" + std::to_string(trip_med) +
                      ",\"alloc_median_ms\":" + std::to_string(alloc_med);
    for (int k = 0; k < 5; ++k) {
        out += std::string(",\"") + names[k] + "\":{\"length\":" + json(summarize(phases[k].length)) +
               ",\"trip_extra\":" + json(summarize(phases[k].trip_extra)) +
               ",\"alloc_extra\":" + json(summarize(phases[k].alloc_extra)) +
               ",\"trip_worst\":" + json(summarize(phases[k].trip_worst)) +
               ",\"alloc_worst\":" + json(summarize(phases[k].alloc_worst)) + "}";
    }
    if (!errors.empty()) out += ",\"errors\":\"" + errors + "\"";
    return out + "}";
}

// A fresh process's start (run as `gpu_disturbance starter [dev]`): the
// driver's initialisation, its context, a small allocation, a tiny kernel;
// then "R" and the steady-clock microsecond at which each step ended on
// stdout, and exit.
static int starter(int dev) {
    auto us = [] { return int64_t(std::chrono::duration<double, std::micro>(Clock::now().time_since_epoch()).count()); };
    const int64_t t_main = us();
    int n = 0;
    check(cudaGetDeviceCount(&n), "cudaGetDeviceCount");  // cuInit
    const int64_t t_init = us();
    check(cudaSetDevice(dev), "cudaSetDevice");  // the primary context (CUDA 12 and later)
    check(cudaFree(nullptr), "cudaFree(0)");
    const int64_t t_ctx = us();
    int* buf = nullptr;
    check(cudaMalloc(&buf, 4096), "cudaMalloc");
    const int64_t t_alloc = us();
    tiny<<<1, 32>>>(buf);
    check(cudaDeviceSynchronize(), "starter");
    const int64_t t_kernel = us();
    char line[160];
    int len = std::snprintf(line, sizeof line, "R %lld %lld %lld %lld %lld\n", (long long)t_main, (long long)t_init,
                            (long long)t_ctx, (long long)t_alloc, (long long)t_kernel);
    if (write(1, line, size_t(len)) != len) return 1;
    return 0;
}

struct Start {
    pid_t pid = 0;
    int from = -1;
    Clock::time_point at;
    double ready_ms = -1;  // spawn to "R"
    // Milliseconds each step took, from the starter's line: the spawn until
    // main, cuInit, the context, a cudaMalloc, a tiny kernel.
    double exec_ms = -1, init_ms = -1, ctx_ms = -1, alloc_ms = -1, kernel_ms = -1;
    std::string phases_json() const {
        char b[160];
        std::snprintf(b, sizeof b, "[%.1f,%.1f,%.1f,%.1f,%.1f]", exec_ms, init_ms, ctx_ms, alloc_ms, kernel_ms);
        return b;
    }
};
static Start spawn_starter(const char* self, int dev = 0) {
    int from[2];
    if (pipe(from) != 0) std::exit(2);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, from[1], 1);
    posix_spawn_file_actions_addclose(&fa, from[0]);
    std::string dev_arg = std::to_string(dev);
    char* argv[] = {const_cast<char*>(self), const_cast<char*>("starter"), dev_arg.data(), nullptr};
    Start s;
    s.at = Clock::now();
    if (posix_spawn(&s.pid, "/proc/self/exe", &fa, nullptr, argv, environ) != 0) std::exit(2);
    posix_spawn_file_actions_destroy(&fa);
    close(from[1]);
    s.from = from[0];
    return s;
}
// Polls a start: true once it said "R" (or died, ready_ms stays -1) and was reaped.
static bool poll_start(Start& s) {
    if (s.pid == 0) return true;
    pollfd pf{s.from, POLLIN, 0};
    if (poll(&pf, 1, 0) > 0) {
        char line[160] = {0};
        ssize_t got = 0, r;
        // The starter writes its line at once and then exits: read to EOF.
        while (got < ssize_t(sizeof line) - 1 && (r = read(s.from, line + got, sizeof line - 1 - size_t(got))) > 0) got += r;
        if (got > 0 && line[0] == 'R') {
            s.ready_ms = ms_between(s.at, Clock::now());
            long long t[5];
            if (std::sscanf(line + 1, "%lld %lld %lld %lld %lld", &t[0], &t[1], &t[2], &t[3], &t[4]) == 5) {
                const double at_us = std::chrono::duration<double, std::micro>(s.at.time_since_epoch()).count();
                s.exec_ms = (double(t[0]) - at_us) / 1e3;
                s.init_ms = double(t[1] - t[0]) / 1e3;
                s.ctx_ms = double(t[2] - t[1]) / 1e3;
                s.alloc_ms = double(t[3] - t[2]) / 1e3;
                s.kernel_ms = double(t[4] - t[3]) / 1e3;
            }
        }
        close(s.from);
        waitpid(s.pid, nullptr, 0);
        s.pid = 0;
        return true;
    }
    return false;
}

// kind: 3 one-thread hangs, 1 a trap (start_neighbour).
static std::string starts_beside(const char* self, int kind, int count, double hang_ms, size_t footprint_mib) {
    // This process holds no CUDA context: the hangs are forked, the starts spawned.
    auto wait_all = [](std::vector<Start*> v) {
        auto t0 = Clock::now();
        for (;;) {
            bool done = true;
            for (Start* s : v) done = poll_start(*s) && done;
            if (done || ms_between(t0, Clock::now()) > 30000) return;
            usleep(200);
        }
    };
    std::vector<double> alone;
    for (int i = 0; i < 3; ++i) {
        Start s = spawn_starter(self);
        wait_all({&s});
        alone.push_back(s.ready_ms);
    }
    g_footprint_mib = footprint_mib;
    std::vector<int> go(size_t(count), -1);
    std::vector<pid_t> pids;
    for (int i = 0; i < count; ++i) pids.push_back(start_neighbour(kind, &go[size_t(i)]));
    usleep(500 * 1000 + 200 * 1000 * useconds_t(count - 1) + useconds_t(footprint_mib) * 300);
    auto start = Clock::now();
    for (int fd : go)
        if (write(fd, "g", 1) != 1) std::exit(2);
    usleep(useconds_t(std::min(200.0, hang_ms / 2) * 1000));
    Start during = spawn_starter(self);  // a standby coming up beside the hangs
    while (ms_between(start, Clock::now()) < hang_ms) {
        poll_start(during);
        usleep(200);
    }
    for (pid_t pid : pids) kill(pid, SIGKILL);
    auto kill_time = Clock::now();
    const double during_at = ms_between(during.at, kill_time);  // how long it had run at the kill
    Start at_kill = spawn_starter(self);  // a replacement started right after the kill
    double reap_ms = -1;
    size_t reaped = 0;
    auto t0 = Clock::now();
    while (ms_between(t0, Clock::now()) < 30000) {
        bool done = poll_start(during) & poll_start(at_kill);
        for (pid_t& pid : pids)
            if (pid > 0 && waitpid(pid, nullptr, WNOHANG) == pid) pid = 0, ++reaped;
        if (reaped == pids.size() && reap_ms < 0) reap_ms = ms_between(kill_time, Clock::now());
        if (done && reap_ms >= 0) break;
        usleep(200);
    }
    Start after = spawn_starter(self);  // the next one, once those are up
    wait_all({&after});
    for (int fd : go) close(fd);
    char out[1024];
    std::snprintf(out, sizeof out,
                  "{\"kind\":\"%s\",\"neighbours\":%d,\"kill_at_ms\":%.0f,\"footprint_mib\":%zu,\"alone_ms\":[%.1f,%.1f,%.1f],\"during_ready_ms\":%.1f,"
                  "\"during_started_before_kill_ms\":%.1f,\"at_kill_ready_ms\":%.1f,\"reap_ms\":%.1f,"
                  "\"after_ready_ms\":%.1f}",
                  kind == 1 ? "trap" : "hang", count, hang_ms, footprint_mib, alone[0], alone[1], alone[2], during.ready_ms, during_at, at_kill.ready_ms,
                  reap_ms, after.ready_ms);
    return out;
}

static std::string starts_at_once(const char* self, int n, int dev_a, int dev_b) {
    auto wait = [](Start& st) {
        while (!poll_start(st)) usleep(200);
    };
    std::string out = "{\"n\":" + std::to_string(n) + ",\"devices\":[" + std::to_string(dev_a) + "," +
                      std::to_string(dev_b) + "],\"alone\":[";
    for (int i = 0; i < 3; ++i) {
        Start st = spawn_starter(self, dev_a);
        wait(st);
        out += (i ? "," : "") + ("[" + std::to_string(st.ready_ms) + "," + st.phases_json() + "]");
    }
    std::vector<Start> all;
    for (int i = 0; i < n; ++i) all.push_back(spawn_starter(self, i % 2 ? dev_b : dev_a));
    for (bool done = false; !done; usleep(200)) {
        done = true;
        for (Start& st : all) done = poll_start(st) && done;
    }
    out += "],\"together\":[";
    for (int i = 0; i < n; ++i) {
        out += (i ? "," : "") + ("[" + std::to_string(i % 2 ? dev_b : dev_a) + "," +
                                 std::to_string(all[size_t(i)].ready_ms) + "," + all[size_t(i)].phases_json() + "]");
    }
    return out + "]}";
}

// A child of `mix`: its context up, it waits for "g", launches a trap
// (trap) or a one-thread spin, and writes the milliseconds from the launch
// to the error to `report`; then waits to be killed.
static void mix_child(bool trap, int go, int report) {
    float* buf = nullptr;
    check(cudaMalloc(&buf, size_t(kTrapBlocks) * kTrapThreads * sizeof(float)), "cudaMalloc");
    tiny<<<1, 32>>>(reinterpret_cast<int*>(buf));
    check(cudaDeviceSynchronize(), "warm-up");
    if (write(report, "R", 1) != 1) std::_Exit(1);
    char c;
    if (read(go, &c, 1) != 1) std::_Exit(1);
    auto t0 = Clock::now();
    if (trap) trap_last_block<<<kTrapBlocks, kTrapThreads>>>(buf);
    else spin<<<1, 1>>>();
    cudaError_t e;
    while ((e = cudaStreamQuery(0)) == cudaErrorNotReady) usleep(100);
    dprintf(report, "%.3f %d\n", ms_between(t0, Clock::now()), int(e));
    for (;;) pause();
}

static std::string mix(const char* self, int traps, int hangs, double kill_ms) {
    struct Child {
        bool trap;
        pid_t pid;
        int go, report;
        double reported_ms = -1, killed_ms = -1, reaped_ms = -1;
    };
    std::vector<Child> kids;
    for (int i = 0; i < traps + hangs; ++i) {
        int g[2], r[2];
        if (pipe(g) != 0 || pipe(r) != 0) std::exit(2);
        const bool trap = i < traps;
        pid_t pid = fork();
        if (pid == 0) {
            close(g[1]);
            close(r[0]);
            mix_child(trap, g[0], r[1]);
        }
        close(g[0]);
        close(r[1]);
        kids.push_back({trap, pid, g[1], r[0]});
    }
    for (Child& k : kids) {  // every context up
        char c;
        if (read(k.report, &c, 1) != 1) std::exit(2);
    }
    auto t0 = Clock::now();
    for (Child& k : kids)
        if (write(k.go, "g", 1) != 1) std::exit(2);
    std::vector<Start> starts;
    auto next_start = t0 + std::chrono::milliseconds(100);
    for (;;) {
        const double now = ms_between(t0, Clock::now());
        bool all_reaped = true;
        for (Child& k : kids) {
            if (k.trap && k.reported_ms < 0 && k.killed_ms < 0) {
                pollfd pf{k.report, POLLIN, 0};
                if (poll(&pf, 1, 0) > 0) {
                    char line[64] = {0};
                    if (read(k.report, line, sizeof line - 1) > 0) k.reported_ms = std::atof(line);
                }
            }
            if (k.killed_ms < 0 && ((k.trap && k.reported_ms >= 0) || now >= kill_ms)) {
                kill(k.pid, SIGKILL);
                k.killed_ms = now;
            }
            if (k.killed_ms >= 0 && k.reaped_ms < 0 && waitpid(k.pid, nullptr, WNOHANG) == k.pid) k.reaped_ms = now;
            all_reaped = all_reaped && k.reaped_ms >= 0;
        }
        bool starting = false;
        for (Start& st : starts) starting = !poll_start(st) || starting;
        if (all_reaped && !starting) break;
        if (!all_reaped && Clock::now() >= next_start) {
            starts.push_back(spawn_starter(self, 0));
            next_start += std::chrono::milliseconds(300);
        }
        if (now > 60000) break;
        usleep(200);
    }
    std::string out = "{\"traps\":" + std::to_string(traps) + ",\"hangs\":" + std::to_string(hangs) +
                      ",\"kill_ms\":" + std::to_string(kill_ms) +
                      ",\"launch_us\":" + std::to_string(int64_t(steady_us(t0))) + ",\"children\":[";
    for (size_t i = 0; i < kids.size(); ++i) {
        const Child& k = kids[i];
        char b[200];
        std::snprintf(b, sizeof b, "%s{\"kind\":\"%s\",\"reported_ms\":%.1f,\"killed_ms\":%.1f,\"reaped_ms\":%.1f}",
                      i ? "," : "", k.trap ? "trap" : "hang", k.reported_ms, k.killed_ms, k.reaped_ms);
        out += b;
        close(k.go);
        close(k.report);
    }
    out += "],\"starts\":[";  // [ms after the launch, ms to ready, [steps]]
    for (size_t i = 0; i < starts.size(); ++i)
        out += (i ? "," : "") + ("[" + std::to_string(ms_between(t0, starts[i].at)) + "," +
                                 std::to_string(starts[i].ready_ms) + "," + starts[i].phases_json() + "]");
    return out + "]}";
}

static volatile sig_atomic_t g_stop = 0;
static std::string monitor(const char* self, int dev, double seconds, double start_ms) {
    signal(SIGTERM, [](int) { g_stop = 1; });
    check(cudaSetDevice(dev), "cudaSetDevice");
    int* buf = nullptr;
    check(cudaMalloc(&buf, 4096), "cudaMalloc");
    round_trip_ms(buf);  // module loaded
    std::vector<double> trips;
    std::string slow, slow_alloc, starts;
    size_t n_slow = 0, n_slow_alloc = 0;
    auto t0 = Clock::now(), last_alloc = t0;
    Start s = spawn_starter(self, dev);
    while (!g_stop && ms_between(t0, Clock::now()) < seconds * 1000) {
        auto at = Clock::now();
        double ms = round_trip_ms(buf);
        trips.push_back(ms);
        usleep(100);  // about 10k samples a second
        if (ms > 10 && ++n_slow <= 5000)
            slow += (slow.empty() ? "" : ",") + ("[" + std::to_string(int64_t(steady_us(at))) + "," + std::to_string(ms) + "]");
        if (ms_between(last_alloc, Clock::now()) >= 10) {
            last_alloc = Clock::now();
            void* p = nullptr;
            check(cudaMalloc(&p, 1 << 20), "cudaMalloc 1 MiB");
            check(cudaFree(p), "cudaFree");
            double a = ms_between(last_alloc, Clock::now());
            if (a > 10 && ++n_slow_alloc <= 5000)
                slow_alloc += (slow_alloc.empty() ? "" : ",") +
                              ("[" + std::to_string(int64_t(steady_us(last_alloc))) + "," + std::to_string(a) + "]");
        }
        if (poll_start(s)) {
            if (s.from >= 0) {
                starts += (starts.empty() ? "" : ",") + ("[" + std::to_string(int64_t(steady_us(s.at))) + "," +
                                                          std::to_string(s.ready_ms) + "," + s.phases_json() + "]");
                s.from = -1;
            }
            if (ms_between(s.at, Clock::now()) >= start_ms) s = spawn_starter(self, dev);
        }
    }
    while (!poll_start(s)) usleep(1000);
    if (s.from >= 0)
        starts += (starts.empty() ? "" : ",") + ("[" + std::to_string(int64_t(steady_us(s.at))) + "," +
                                                  std::to_string(s.ready_ms) + "," + s.phases_json() + "]");
    Summary rt = summarize(trips);
    return "{\"device\":" + std::to_string(dev) + ",\"seconds\":" + std::to_string(ms_between(t0, Clock::now()) / 1000) +
           ",\"round_trips\":" + json(rt) + ",\"slow_round_trips\":" + std::to_string(n_slow) + ",\"slow\":[" + slow +
           "],\"slow_allocs\":" + std::to_string(n_slow_alloc) + ",\"slow_alloc\":[" + slow_alloc + "],\"starts\":[" +
           starts + "]}";
}

int main(int argc, char** argv) {
    if (argc > 1 && std::string(argv[1]) == "starter") return starter(argc > 2 ? std::atoi(argv[2]) : 0);
    if (argc > 3 && std::string(argv[1]) == "mix") {
        std::printf("%s\n", mix(argv[0], std::atoi(argv[2]), std::atoi(argv[3]), argc > 4 ? std::atof(argv[4]) : 1000.0).c_str());
        return 0;
    }
    if (argc > 3 && std::string(argv[1]) == "starts") {
        const int a = std::atoi(argv[3]);
        std::printf("%s\n", starts_at_once(argv[0], std::atoi(argv[2]), a, argc > 4 ? std::atoi(argv[4]) : a).c_str());
        return 0;
    }
    if (argc > 3 && std::string(argv[1]) == "monitor") {
        std::printf("%s\n", monitor(argv[0], std::atoi(argv[2]), std::atof(argv[3]), argc > 4 ? std::atof(argv[4]) : 500.0).c_str());
        return 0;
    }
    if (argc > 3 && std::string(argv[2]) == "starts-beside-hangs") {
        std::printf("%s\n", starts_beside(argv[0], 3, std::atoi(argv[3]), argc > 4 ? std::atof(argv[4]) : 1000.0,
                                           argc > 5 ? size_t(std::atol(argv[5])) : 0)
                                 .c_str());
        return 0;
    }
    if (argc > 2 && std::string(argv[2]) == "starts-beside-trap") {
        std::printf("%s\n", starts_beside(argv[0], 1, 1, argc > 3 ? std::atof(argv[3]) : 1000.0, 0).c_str());
        return 0;
    }
    if (argc > 2 && std::string(argv[1]) == "neighbour") return neighbour(std::atoi(argv[2]));
    if (argc > 3 && std::string(argv[1]) == "cycle") {
        std::printf("%s\n", cycle(argv[0], std::atoi(argv[2]), std::atoi(argv[3]),
                                  argc > 4 ? std::atoi(argv[4]) : 5).c_str());
        return 0;
    }
    // `gpu_disturbance 0 beside-fault|beside-trap|beside-hang [hang_ms]`: one neighbour
    // experiment (this binary runs itself so for each: a process that holds
    // a CUDA context must not fork a child that uses CUDA).
    // `gpu_disturbance 0 beside-hangs K [hang_ms]`: K neighbours each spin one
    // thread (as kbench's hang answers do) and are killed together.
    if (argc > 2) {
        std::string mode = argv[2];
        if (mode == "beside-fault") std::printf("%s\n", beside(0, 0).c_str());
        else if (mode == "beside-trap") std::printf("%s\n", beside(1, 0).c_str());
        else if (mode == "beside-hangs")
            std::printf("%s\n", beside(3, std::atof(argc > 4 ? argv[4] : "1000"), std::atoi(argc > 3 ? argv[3] : "3"))
                                    .c_str());
        else std::printf("%s\n", beside(2, std::atof(argc > 3 ? argv[3] : "1000")).c_str());
        return 0;
    }
    int trials = argc > 1 ? std::atoi(argv[1]) : 20;
    // Children only: this process never holds a CUDA context.
    Summary far = summarize(fault_latency(0, trials));
    Summary mis = summarize(fault_latency(1, trials));
    Summary trap = summarize(fault_latency(2, trials));
    std::printf("{\"fault_latency_far_write\":%s,\"fault_latency_misaligned\":%s,\"fault_latency_trap\":%s",
                json(far).c_str(), json(mis).c_str(), json(trap).c_str());
    for (const char* mode : {"beside-fault", "beside-fault", "beside-trap", "beside-trap", "beside-hang", "beside-hang"}) {
        std::string cmd = std::string(argv[0]) + " 0 " + mode + " 1000";
        std::fflush(stdout);
        FILE* p = popen(cmd.c_str(), "r");
        std::string got;
        char line[4096];
        while (p && std::fgets(line, sizeof line, p)) got += line;
        if (p) pclose(p);
        while (!got.empty() && (got.back() == '\n' || got.back() == ' ')) got.pop_back();
        static int k = 0;
        std::printf(",\"%s_%d\":%s", mode, ++k, got.empty() ? "null" : got.c_str());
    }
    std::printf("}\n");
    return 0;
}
