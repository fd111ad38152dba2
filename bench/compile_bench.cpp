// Compile latency through kb_compile in a warm process: NVRTC on fresh
// sources (cache misses), and memory-cache hits; and what kbench's nvcc
// conveniences (prelude, device std headers, host-code splitter) add over
// plain NVRTC compiling the equivalent plain code. Prints one JSON object.
#include <nvrtc.h>

#include <atomic>
#include <thread>

#include "bench_util.h"
#include "compiler/compiler.h"

using namespace bench;

namespace {

// Plain NVRTC, no kbench: the same target, standard and include folders.
double raw_nvrtc_ms(const std::string& src, const std::string& arch, const std::vector<std::string>& includes) {
    double t0 = now_ms();
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, src.c_str(), "raw.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) std::exit(1);
    std::vector<std::string> opts = {"--gpu-architecture=" + arch, "-std=c++17"};
    for (const auto& d : includes) opts.push_back("-I" + d);
    std::vector<const char*> o;
    for (const auto& x : opts) o.push_back(x.c_str());
    nvrtcResult r = nvrtcCompileProgram(prog, int(o.size()), o.data());
    size_t n = 0;
    if (r == NVRTC_SUCCESS) nvrtcGetCUBINSize(prog, &n);
    nvrtcDestroyProgram(&prog);
    if (r != NVRTC_SUCCESS || n == 0) {
        std::fprintf(stderr, "raw NVRTC failed on:\n%s\n", src.c_str());
        std::exit(1);
    }
    return now_ms() - t0;
}

struct Pair {
    const char* name;
    const char* plain;       // what plain NVRTC accepts
    const char* convenient;  // the same kernel as models write it, which plain NVRTC rejects
};

const Pair kPairs[] = {
    {"small_kernel",
     "__global__ void k(const float* a, float* c, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + 1.0f; }\n",
     "__global__ void k(const float* a, float* c, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + 1.0f; }\n"},
    {"cmath",
     "__global__ void k(const float* a, float* c, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = sqrtf(a[i]) + expf(a[i]); }\n",
     "#include <cmath>\n__global__ void k(const float* a, float* c, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = std::sqrt(a[i]) + std::exp(a[i]); }\n"},
    {"infinity",
     "__global__ void k(const float* a, float* c, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] > 0 ? __int_as_float(0x7f800000) : a[i]; }\n",
     "__global__ void k(const float* a, float* c, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] > 0 ? INFINITY : a[i]; }\n"},
    {"limits_cfloat_cstdint",
     "__global__ void k(const float* a, float* c, int n) { long long i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] > 0 ? 3.402823466e+38f : 1.192092896e-07f; }\n",
     "#include <limits>\n#include <cfloat>\n#include <cstdint>\n__global__ void k(const float* a, float* c, int n) { int64_t i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] > 0 ? FLT_MAX : std::numeric_limits<float>::epsilon(); }\n"},
    {"host_launcher",
     "__global__ void k(const float* a, float* c, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i]; }\n",
     "#include <vector>\n__global__ void k(const float* a, float* c, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i]; }\n"
     "void launch(const float* a, float* c, int n) { k<<<(n + 255) / 256, 256>>>(a, c, n); }\n"
     "int main() { std::vector<float> h(4); float *a, *c; cudaMalloc(&a, 16); cudaMalloc(&c, 16); launch(a, c, 4); return 0; }\n"},
};

// Interleaved, unique sources (no cache can help either side); medians.
kb::Json shim_overhead(const std::string& arch, int iters) {
    kb::Compiler compiler(kb::CompilerConfig{kb::default_cuda_home(), ""});
    std::vector<std::string> includes = compiler.include_dirs();
    kb::Json out = kb::Json::object();
    double worst = 0;
    for (const Pair& p : kPairs) {
        std::vector<double> raw, ours;
        std::string path;
        for (int i = -1; i < iters; ++i) {  // i = -1 warms both up
            std::string tag = "// " + std::string(p.name) + " " + std::to_string(i) + "\n";
            double r = raw_nvrtc_ms(tag + p.plain, arch, includes);
            kb::CompileRequest req;
            req.code = tag + p.convenient;
            req.kernel_names = {"k"};
            req.arch = arch;
            req.allow_nvcc_fallback = false;  // the fast path or nothing
            double t0 = now_ms();
            kb::CompiledImage img = compiler.compile(req);
            double k = now_ms() - t0;
            path = img.path;
            if (i >= 0) {
                raw.push_back(r);
                ours.push_back(k);
            }
        }
        double added = median(ours) - median(raw);
        worst = std::max(worst, added);
        out[p.name] = {{"raw_nvrtc_median_ms", median(raw)}, {"kbench_median_ms", median(ours)},
                       {"added_ms", added}, {"path", path}};
    }
    out["worst_added_ms"] = worst;
    return out;
}

// What containment adds to a compile (docs/isolation.md): the same sources
// with no containment, traps contained, and traps contained with checked
// copies, in-process: one thread's median, and the rate of `threads`
// threads compiling at once (kbench run's and the batch's compile pools).
kb::Json containment_cost(const std::string& arch, int iters, unsigned threads) {
    const std::vector<std::string> files = {"tasks/elementwise/vector_add_f32/candidates/correct.cu",
                                            "tasks/attention/attention_causal_f16/candidates/correct.cu"};
    kb::Json out = kb::Json::object();
    out["threads"] = threads;
    struct Mode {
        const char* name;
        bool traps, checked;
    };
    for (const Mode& m : {Mode{"none", false, false}, Mode{"traps", true, false}, Mode{"checked", true, true}}) {
        kb::CompilerConfig cfg{kb::default_cuda_home(), ""};
        cfg.contain_traps = m.traps;
        cfg.checked_build = m.checked;
        kb::Compiler compiler(cfg);
        kb::Json mode = kb::Json::object();
        for (const std::string& f : files) {
            const std::string src = read_file(source_dir() + "/" + f);
            auto request = [&](const std::string& tag) {
                kb::CompileRequest req;
                req.code = "// " + std::string(m.name) + " " + tag + "\n" + src;  // new to every cache
                req.arch = arch;
                req.allow_nvcc_fallback = false;
                return req;
            };
            compiler.compile(request("warm-up"));
            std::vector<double> one;
            for (int i = 0; i < iters; ++i) {
                double t0 = now_ms();
                compiler.compile(request(std::to_string(i)));
                one.push_back(now_ms() - t0);
            }
            std::atomic<int> next{0};
            const int n = iters * int(threads);
            double t0 = now_ms();
            std::vector<std::thread> pool;
            for (unsigned t = 0; t < threads; ++t)
                pool.emplace_back([&] {
                    for (int i; (i = next++) < n;) compiler.compile(request("parallel " + std::to_string(i)));
                });
            for (std::thread& t : pool) t.join();
            const double rate = n / ((now_ms() - t0) / 1000.0);
            mode[f.substr(f.find('/') + 1, f.find("/candidates") - f.find('/') - 1)] = {
                {"median_ms", median(one)}, {"compiles_per_s", rate}};
        }
        out[m.name] = mode;
    }
    return out;
}

}  // namespace

static const char* kKernel =
    "__global__ void vector_add(const float* a, const float* b, float* c, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

int main(int argc, char** argv) {
    int iters = argc > 1 ? std::atoi(argv[1]) : 30;
    int devices = 0;
    kb_device_count(&devices);
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    if (devices == 0) o.device = KB_DEVICE_NONE;
    kb_context* ctx = nullptr;
    kb_status s = kb_context_create(&o, &ctx);
    if (s != KB_OK) die("context", s);
    kb_task* task = nullptr;
    s = kb_load_task((source_dir() + "/tasks/elementwise/vector_add_f32/task.json").c_str(), &task);
    if (s != KB_OK) die("task", s);

    auto compile = [&](const std::string& src, kb::Json* info) {
        kb_candidate c = KB_CANDIDATE_INIT;
        c.code = src.c_str();
        kb_kernel* k = nullptr;
        double t0 = now_ms();
        kb_status st = kb_compile(ctx, task, &c, &k);
        double dt = now_ms() - t0;
        if (st != KB_OK) die("compile", st);
        if (info) *info = kb::Json::parse(kb_kernel_json(k));
        kb_kernel_destroy(k);
        return dt;
    };
    compile(std::string("// warm-up\n") + kKernel, nullptr);  // NVRTC's own first-use cost stays out
    std::vector<double> miss, hit, nvrtc;
    kb::Json info;
    for (int i = 0; i < iters; ++i) {
        // A comment makes every source new to the cache, as every RL candidate is.
        miss.push_back(compile("// candidate " + std::to_string(i) + "\n" + kKernel, &info));
        nvrtc.push_back(info.value("nvrtc_ms", info["compile_ms"].get<double>()));
    }
    std::string same = std::string("// cached\n") + kKernel;
    compile(same, nullptr);
    for (int i = 0; i < iters; ++i) hit.push_back(compile(same, &info));
    kb::Json out = {{"device", devices > 0},
                    {"arch", kb::Json::parse(kb_context_json(ctx))["arch"]},
                    {"iterations", iters},
                    {"image", info["image"]},
                    {"miss_median_ms", median(miss)},
                    {"miss_p90_ms", quantile(miss, 0.9)},
                    {"nvrtc_median_ms", median(nvrtc)},
                    {"hit_median_ms", median(hit)},
                    {"hit_p90_ms", quantile(hit, 0.9)},
                    {"path", info["path"]},
                    {"shims", shim_overhead(kb::Json::parse(kb_context_json(ctx))["arch"].get<std::string>(), iters)},
                    {"containment", containment_cost(kb::Json::parse(kb_context_json(ctx))["arch"].get<std::string>(),
                                                     std::max(3, iters / 3),
                                                     std::max(1u, std::min(8u, std::thread::hardware_concurrency())))}};
    std::printf("%s\n", out.dump(2).c_str());
    kb_task_destroy(task);
    kb_context_destroy(ctx);
    return 0;
}
