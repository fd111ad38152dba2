#include "emulate/emulator.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <thread>

#include "hostdev/compare_math.h"
#include "hostdev/input_gen.h"
#include "task/scalar_param.h"
#include "util/error.h"

namespace kb::emulate {
namespace {

size_t page_size() { return size_t(sysconf(_SC_PAGESIZE)); }
size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

// Memory the child process writes and the parent reads afterwards
// (MAP_SHARED), between two inaccessible pages: an access up to a page past
// either end faults (further out it may land in another mapping). The data
// starts 16-byte aligned (as vector loads need), so up to 15 bytes may lie
// between its end and the upper guard page, and the rest of the first page
// before its start: both gaps hold a canary pattern that `intact()` checks,
// so a write just past either end is found too.
class SharedBuffer {
public:
    explicit SharedBuffer(size_t bytes) : bytes_(bytes) {
        const size_t page = page_size();
        span_ = round_up(std::max<size_t>(bytes, 1), page);
        total_ = span_ + 2 * page;
        void* p = mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            fail(KB_ERR_OUT_OF_MEMORY, "the emulator cannot map " + std::to_string(bytes) + " bytes: " + std::strerror(errno));
        base_ = static_cast<uint8_t*>(p);
        if (mprotect(base_, page, PROT_NONE) != 0 || mprotect(base_ + page + span_, page, PROT_NONE) != 0)
            fail(KB_ERR_IO, std::string("the emulator cannot protect a guard page: ") + std::strerror(errno));
        data_ = base_ + page + (span_ - round_up(bytes, 16));
        std::memset(base_ + page, kGuardByte, span_);
    }
    ~SharedBuffer() { munmap(base_, total_); }
    SharedBuffer(const SharedBuffer&) = delete;
    SharedBuffer& operator=(const SharedBuffer&) = delete;
    uint8_t* data() const { return data_; }
    size_t bytes() const { return bytes_; }
    // The canaries before and after the data are as they were written.
    bool intact() const {
        const uint8_t* first = base_ + page_size();
        for (const uint8_t* q = first; q < data_; ++q)
            if (*q != kGuardByte) return false;
        for (const uint8_t* q = data_ + bytes_; q < first + span_; ++q)
            if (*q != kGuardByte) return false;
        return true;
    }

private:
    uint8_t* base_ = nullptr;
    uint8_t* data_ = nullptr;
    size_t bytes_ = 0, span_ = 0, total_ = 0;
};

// What the child reports back through shared memory.
struct ChildStatus {
    kbemu_progress progress;
    int step;
    char error[1024];
};

void poison(uint8_t* p, uint64_t count, DType t) {
    switch (t) {
        case DType::f16: for (uint64_t i = 0; i < count; ++i) std::memcpy(p + 2 * i, &kPoisonF16, 2); break;
        case DType::bf16: for (uint64_t i = 0; i < count; ++i) std::memcpy(p + 2 * i, &kPoisonBF16, 2); break;
        case DType::f32: for (uint64_t i = 0; i < count; ++i) std::memcpy(p + 4 * i, &kPoisonF32, 4); break;
        case DType::f64: for (uint64_t i = 0; i < count; ++i) std::memcpy(p + 8 * i, &kPoisonF64, 8); break;
        default: std::memset(p, kPoisonByte, count * dtype_size(t));
    }
}

uint64_t count_poisoned(const uint8_t* p, uint64_t count, DType t) {
    const size_t sz = dtype_size(t);
    uint64_t pattern = 0;
    switch (t) {
        case DType::f16: pattern = kPoisonF16; break;
        case DType::bf16: pattern = kPoisonBF16; break;
        case DType::f32: pattern = kPoisonF32; break;
        case DType::f64: pattern = kPoisonF64; break;
        default: std::memset(&pattern, kPoisonByte, sz);
    }
    uint64_t n = 0;
    for (uint64_t i = 0; i < count; ++i) {
        uint64_t v = 0;
        std::memcpy(&v, p + i * sz, sz);
        n += v == pattern;
    }
    return n;
}

std::string describe_signal(int sig) {
    switch (sig) {
        case SIGSEGV: return "SIGSEGV (an access outside every buffer: check indices against the sizes at this case)";
        case SIGBUS: return "SIGBUS (a misaligned or out-of-range access)";
        case SIGFPE: return "SIGFPE (an integer division by zero?)";
        case SIGABRT: return "SIGABRT (an assert, __trap() or an emulator error; see the output)";
        case SIGILL: return "SIGILL";
        case SIGKILL: return "SIGKILL (out of memory?)";
        default: return "signal " + std::to_string(sig);
    }
}

// One kernel step, bound to the buffers: what the child launches.
struct BoundStep {
    bool zero = false;
    uint8_t* zero_ptr = nullptr;
    size_t zero_bytes = 0;
    kbemu_kernel_fn fn = nullptr;
    kbemu_launch launch{};
    std::vector<uint64_t> slots;
    std::vector<void*> params;
    std::vector<unsigned long long> sizes;
    std::string where;
};

std::string at_case(const Case& c) {
    std::string dims;
    for (const auto& kv : c.dims) dims += (dims.empty() ? "" : ", ") + kv.first + "=" + std::to_string(kv.second);
    return std::string(c.perf ? "the perf case '" : "case '") + c.name + "' (" + dims + ")";
}

}  // namespace

CaseSize case_size(const Task& task, const Program& program, int case_index) {
    const Case& c = task.cases[size_t(case_index)];
    CaseSize s;
    for (const Arg& a : task.args)
        if (a.is_buffer()) s.elements += uint64_t(element_count(a.shape, c.dims, a.name));
    for (const Scratch& sc : program.scratch) s.elements += uint64_t(element_count(sc.shape, c.dims, sc.name));
    for (const LaunchStep& st : program.launch) {
        if (st.kind != LaunchStep::Kind::kernel) continue;
        uint64_t t = 1;
        for (int d = 0; d < 3; ++d) t *= uint64_t(st.grid[d].eval(c.dims)) * uint64_t(st.block[d].eval(c.dims));
        s.threads += t;
    }
    return s;
}

EmulatedRun emulate_case(const Task& task, const Program& program, const EmulatedModule& module, int case_index,
                         uint64_t seed, const EmulateOptions& options) {
    const Case& c = task.cases[size_t(case_index)];
    const std::string where = module.label() + " at " + at_case(c);

    // Buffers: arguments, then the program's scratch buffers.
    std::vector<std::unique_ptr<SharedBuffer>> args(task.args.size());
    std::vector<uint64_t> counts(task.args.size(), 0);
    std::map<std::string, std::pair<SharedBuffer*, uint64_t>> by_name;
    EmulatedRun run;
    for (size_t i = 0; i < task.args.size(); ++i) {
        const Arg& a = task.args[i];
        if (!a.is_buffer()) continue;
        counts[i] = uint64_t(element_count(a.shape, c.dims, a.name));
        const size_t sz = dtype_size(a.dtype);
        args[i] = std::make_unique<SharedBuffer>(counts[i] * sz);
        uint8_t* p = args[i]->data();
        by_name[a.name] = {args[i].get(), counts[i]};
        if (a.is_input()) {
            // The same values the device's fill kernel writes (input_gen.h).
            const InitSpec s = a.init.at(c.dims);
            for (uint64_t e = 0; e < counts[i]; ++e) {
                uint64_t bits = kb_input_bits(int(a.dtype), int(s.dist), s.a, s.b, seed, uint32_t(i), e);
                std::memcpy(p + e * sz, &bits, sz);  // little-endian: the low bytes
            }
            EmulatedTensor t;
            t.name = a.name;
            t.dtype = a.dtype;
            for (const Expr& e : a.shape) t.shape.push_back(e.eval(c.dims));
            t.bytes.assign(p, p + counts[i] * sz);
            run.inputs.push_back(std::move(t));
        } else {
            poison(p, counts[i], a.dtype);
        }
    }
    std::vector<std::unique_ptr<SharedBuffer>> scratch;
    for (const Scratch& s : program.scratch) {
        uint64_t n = uint64_t(element_count(s.shape, c.dims, s.name));
        scratch.push_back(std::make_unique<SharedBuffer>(n * dtype_size(s.dtype)));
        if (s.zero) std::memset(scratch.back()->data(), 0, n * dtype_size(s.dtype));
        else poison(scratch.back()->data(), n, s.dtype);
        by_name[s.name] = {scratch.back().get(), n};
    }

    // The plan, bound before the fork: the child only launches.
    std::vector<BoundStep> steps(program.launch.size());
    for (size_t si = 0; si < program.launch.size(); ++si) {
        const LaunchStep& s = program.launch[si];
        BoundStep& b = steps[si];
        if (s.kind == LaunchStep::Kind::zero) {
            b.zero = true;
            b.where = "launch[" + std::to_string(si) + "] (zero '" + s.target + "')";
            auto it = by_name.find(s.target);
            if (it == by_name.end()) fail(KB_ERR_TASK_INVALID, where + ": " + b.where + ": no buffer of that name");
            b.zero_ptr = it->second.first->data();
            b.zero_bytes = it->second.first->bytes();
            continue;
        }
        b.where = "launch[" + std::to_string(si) + "] (kernel '" + s.kernel + "')";
        b.fn = module.kernel(s.kernel);
        for (int d = 0; d < 3; ++d) {
            b.launch.grid[d] = unsigned(s.grid[d].eval(c.dims));
            b.launch.block[d] = unsigned(s.block[d].eval(c.dims));
        }
        b.launch.shared_bytes = uint64_t(s.shared_mem_bytes.eval(c.dims));
        for (const LaunchArg& la : s.args) {
            if (la.kind == LaunchArg::Kind::scalar) {
                int64_t iv = la.is_float ? 0 : la.value.eval(c.dims);
                b.slots.push_back(scalar_param_slot(la.dtype, iv, la.float_value, la.is_float));
                b.sizes.push_back(dtype_size(la.dtype));
                continue;
            }
            auto it = by_name.find(la.name);
            if (it != by_name.end()) {
                b.slots.push_back(uint64_t(reinterpret_cast<uintptr_t>(it->second.first->data())));
                b.sizes.push_back(sizeof(void*));
                continue;
            }
            const Arg* a = task.find_arg(la.name);
            if (!a || a->is_buffer()) fail(KB_ERR_TASK_INVALID, where + ": " + b.where + ": no argument '" + la.name + "'");
            int64_t iv = a->scalar_is_float ? 0 : a->scalar_expr.eval(c.dims);
            b.slots.push_back(scalar_param_slot(a->dtype, iv, a->scalar_float, a->scalar_is_float));
            b.sizes.push_back(dtype_size(a->dtype));
        }
        for (uint64_t& slot : b.slots) b.params.push_back(&slot);
        b.launch.params = b.params.data();
        b.launch.sizes = b.sizes.data();
        b.launch.count = b.params.size();
    }

    SharedBuffer status_buf(sizeof(ChildStatus));
    auto* status = reinterpret_cast<ChildStatus*>(status_buf.data());
    std::memset(status, 0, sizeof *status);
    status->step = -1;
    FILE* out = tmpfile();  // the child's stdout and stderr (kernel printf, emulator errors)
    if (!out) fail(KB_ERR_IO, std::string("the emulator cannot create a temporary file: ") + std::strerror(errno));
    std::fflush(stdout);
    std::fflush(stderr);

    auto t0 = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid < 0) {
        std::fclose(out);
        fail(KB_ERR_IO, std::string("the emulator cannot fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
        dup2(fileno(out), 1);
        dup2(fileno(out), 2);
        module.attach_progress(&status->progress);
        for (size_t si = 0; si < steps.size(); ++si) {
            BoundStep& b = steps[si];
            status->step = int(si);
            if (b.zero) {
                std::memset(b.zero_ptr, 0, b.zero_bytes);
                continue;
            }
            b.launch.error = status->error;
            b.launch.error_capacity = sizeof status->error;
            if (b.fn(&b.launch) != 0) {
                std::fflush(stdout);
                _exit(3);
            }
        }
        std::fflush(stdout);
        std::fflush(stderr);
        _exit(0);
    }

    int wstatus = 0;
    bool timed_out = false;
    auto deadline = t0 + std::chrono::duration<double>(options.timeout_s);
    auto nap = std::chrono::microseconds(100);
    for (;;) {
        pid_t r = waitpid(pid, &wstatus, WNOHANG);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) break;
        if (std::chrono::steady_clock::now() > deadline) {
            timed_out = true;
            kill(pid, SIGKILL);
            while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
            }
            break;
        }
        std::this_thread::sleep_for(nap);
        nap = std::min(nap * 2, std::chrono::microseconds(20000));
    }
    run.run_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

    std::string output;
    std::rewind(out);
    char buf[4096];
    size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, out)) > 0) {
        output.append(buf, got);
        if (output.size() > 8192) output.erase(0, output.size() - 8192);
    }
    std::fclose(out);

    const bool ok = !timed_out && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0;
    if (!ok) {
        std::string step = status->step >= 0 && size_t(status->step) < steps.size() ? steps[size_t(status->step)].where
                                                                                     : "before the first step";
        const kbemu_progress& pr = status->progress;
        std::string last = " (last block (" + std::to_string(pr.block[0]) + ", " + std::to_string(pr.block[1]) + ", " +
                           std::to_string(pr.block[2]) + "), thread (" + std::to_string(pr.thread[0]) + ", " +
                           std::to_string(pr.thread[1]) + ", " + std::to_string(pr.thread[2]) + "))";
        std::string why;
        if (timed_out)
            why = "did not finish within " + std::to_string(int(options.timeout_s)) + " s in " + step + last +
                  ": an endless loop, or a wait for another block (the emulator runs blocks one after another)";
        else if (WIFSIGNALED(wstatus))
            why = "crashed with " + describe_signal(WTERMSIG(wstatus)) + " in " + step + last;
        else if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 3)
            why = "could not launch " + step + ": " + std::string(status->error);
        else
            why = "exited with status " + std::to_string(WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1) + " in " + step;
        if (!output.empty()) why += "\noutput:\n" + output;
        fail(KB_ERR_REFERENCE_FAILED, where + " " + why);
    }

    for (const auto& kv : by_name)
        if (!kv.second.first->intact()) run.written_out_of_bounds.push_back(kv.first);

    size_t k = 0;
    for (size_t i = 0; i < task.args.size(); ++i) {
        const Arg& a = task.args[i];
        if (!a.is_buffer()) continue;
        const uint8_t* p = args[i]->data();
        const size_t sz = dtype_size(a.dtype);
        if (a.role == Role::in) {
            const EmulatedTensor& before = run.inputs[k];
            if (std::memcmp(before.bytes.data(), p, before.bytes.size()) != 0) run.inputs_modified.push_back(a.name);
        }
        if (a.is_input()) ++k;
        if (!a.is_output()) continue;
        EmulatedTensor t;
        t.name = a.name;
        t.dtype = a.dtype;
        for (const Expr& e : a.shape) t.shape.push_back(e.eval(c.dims));
        t.bytes.assign(p, p + counts[i] * sz);
        run.unwritten.push_back(a.role == Role::out ? count_poisoned(p, counts[i], a.dtype) : 0);
        run.outputs.push_back(std::move(t));
    }
    return run;
}

}  // namespace kb::emulate
