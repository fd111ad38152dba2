// kbench devices: each GPU's facts and its measured ceilings (docs/devices.md):
// device-to-device copy bandwidth, and dense f16, bf16 and f32 GEMM TFLOP/s
// through cuBLAS, the figures efficiency divides by. Measured with kbench's own
// timing (kb_time: events, L2 flushed between runs, median of many samples)
// on tasks built here, and cached per device model and driver
// (engine/devices_cache.h).
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "engine/devices_cache.h"
#include "cli/subcommand.h"

namespace kb::cli {

namespace {

const char* kDevicesUsage =
    "usage: kbench devices [--json] [--refresh] [--device N]\n"
    "       kbench devices --cached [--json]\n"
    "       kbench devices --dry-run [--json]\n"
    "\n"
    "Lists each CUDA device: name, architecture, SMs, memory, clocks, and the\n"
    "ceilings kbench measured on it: device-to-device copy bandwidth (GB/s) and\n"
    "dense GEMM TFLOP/s through cuBLAS for f16, bf16 and f32 (f32 without TF32).\n"
    "Efficiency figures (kbench run, report) are fractions of these. The first\n"
    "run on a device measures them (a few seconds) and caches them in\n"
    "$XDG_CACHE_HOME/kbench/devices.json (default ~/.cache/kbench/devices.json),\n"
    "per device model and driver version (docs/devices.md).\n"
    "\n"
    "options:\n"
    "  --json         print JSON (valid JSON on errors too)\n"
    "  --refresh      measure again and rewrite the cache entries\n"
    "  --device N     only device N\n"
    "  --cached       print the cache's entries; needs no device\n"
    "  --dry-run      load and compile what measuring uses, measure nothing; needs no device\n"
    "\n"
    "Without a CUDA device it prints a one-line notice (with --json:\n"
    "{\"devices\": [], \"count\": 0, \"no_device_reason\": ...}) and exits 0.\n"
    "\n"
    "exit status: 0 listed (or no device); 1 a measurement failed or the cache\n"
    "             cannot be read; 2 usage error\n"
    "\n"
    "examples:\n"
    "  kbench devices                              # facts and ceilings of every GPU\n"
    "  kbench devices --json | jq '.devices[0].ceilings.gemm_tflops.f16'\n"
    "  kbench devices --refresh --device 1         # measure GPU 1 again\n";

const Subcommand kCommand{"devices", kDevicesUsage};

struct Options {
    bool json = false, refresh = false, cached = false, dry_run = false;
    int device = -1;
};

Options parse_options(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--json") o.json = true;
        else if (a == "--refresh") o.refresh = true;
        else if (a == "--cached") o.cached = true;
        else if (a == "--dry-run") o.dry_run = true;
        else if (a == "--device") {
            if (i + 1 >= argc) throw UsageError{"--device needs a value"};
            std::string v = argv[++i];
            char* end = nullptr;
            long n = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || n < 0) throw UsageError{"--device expects a device number (0, 1, ...), got '" + v + "'"};
            o.device = int(n);
        } else if (a.size() > 1 && a[0] == '-') throw UsageError{"unknown option '" + a + "'"};
        else throw UsageError{"devices takes no arguments (got '" + a + "')"};
    }
    if (o.cached + o.dry_run + o.refresh > 1) throw UsageError{"--cached, --dry-run and --refresh exclude each other"};
    if ((o.cached || o.dry_run) && o.device >= 0) throw UsageError{"--device applies to measuring, not to --cached or --dry-run"};
    return o;
}

// --- what is measured ---------------------------------------------------------

// A float4 copy, one float4 per thread: the kernel that reaches copy bandwidth.
const char* kCopyKernel =
    "__global__ void ceiling_copy(const float* __restrict__ x, float* __restrict__ y, int n) {\n"
    "    long long i = (long long)(blockIdx.x * blockDim.x + threadIdx.x) * 4;\n"
    "    if (i + 3 < n) {\n"
    "        *reinterpret_cast<float4*>(y + i) = *reinterpret_cast<const float4*>(x + i);\n"
    "    } else {\n"
    "        for (long long j = i; j < n; ++j) y[j] = x[j];\n"
    "    }\n"
    "}\n";

constexpr long long kCopyElements = 1ll << 28;  // 1 GiB read + 1 GiB written: far past any L2
constexpr int kGemmSize = 8192;                  // M = N = K

Json copy_task() {
    const char* ref =
        "__global__ void copy_ref(const float* x, float* y, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) y[i] = x[i];\n"
        "}\n";
    return {
        {"format", "kbench-task/1"},
        {"name", "ceiling_copy_f32"},
        {"description", "kbench devices: device-to-device copy bandwidth, measured with a float4 copy kernel."},
        {"dims", {{"n", "elements"}}},
        {"cases", {{{"name", "small"}, {"dims", {{"n", 1029}}}}}},
        {"perf_case", {{"name", "perf"}, {"dims", {{"n", kCopyElements}}}}},
        {"args",
         {{{"name", "x"}, {"role", "in"}, {"dtype", "f32"}, {"shape", {"n"}},
           {"init", {{"dist", "uniform"}, {"low", -1}, {"high", 1}}}},
          {{"name", "y"}, {"role", "out"}, {"dtype", "f32"}, {"shape", {"n"}},
           {"tolerance", {{"atol", 0}, {"rtol", 0}}}},
          {{"name", "n"}, {"role", "scalar"}, {"dtype", "i32"}, {"value", "n"}}}},
        {"reference",
         {{"source", ref},
          {"launch", {{{"kernel", "copy_ref"}, {"grid", "ceil_div(n, 256)"}, {"block", 256}, {"args", {"x", "y", "n"}}}}}}},
        {"candidate",
         {{"signature", "__global__ void ceiling_copy(const float* x, float* y, int n)"},
          {"launch",
           {{{"kernel", "ceiling_copy"}, {"grid", "ceil_div(n, 1024)"}, {"block", 256}, {"args", {"x", "y", "n"}}}}}}},
        {"cost", {{"flops", "0"}, {"bytes", "8 * n"}}},
    };
}

Json gemm_task(const std::string& dtype) {
    const std::string t = dtype == "f16" ? "__half" : dtype == "bf16" ? "__nv_bfloat16" : "float";
    const std::string inc = dtype == "f16" ? "#include <cuda_fp16.h>\n" : dtype == "bf16" ? "#include <cuda_bf16.h>\n" : "";
    const std::string ref = inc + "__global__ void gemm_ref(const " + t + "* A, const " + t + "* B, " + t +
                            "* C, int M, int N, int K) {\n"
                            "    int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;\n"
                            "    if (r >= M || c >= N) return;\n"
                            "    float s = 0.f;\n"
                            "    for (int k = 0; k < K; ++k) s += float(A[r * K + k]) * float(B[k * N + c]);\n"
                            "    C[r * N + c] = " + t + "(s);\n"
                            "}\n";
    const double width = dtype == "f32" ? 4 : 2;
    Json init = {{"dist", "uniform"}, {"low", -1}, {"high", 1}};
    return {
        {"format", "kbench-task/1"},
        {"name", "ceiling_gemm_" + dtype},
        {"description", "kbench devices: dense " + dtype + " GEMM TFLOP/s of cuBLAS (f32 accumulation)."},
        {"dims", {{"M", "rows"}, {"N", "columns"}, {"K", "inner"}}},
        {"cases", {{{"name", "small"}, {"dims", {{"M", 33}, {"N", 17}, {"K", 65}}}}}},
        {"perf_case", {{"name", "perf"}, {"dims", {{"M", kGemmSize}, {"N", kGemmSize}, {"K", kGemmSize}}}}},
        {"args",
         {{{"name", "A"}, {"role", "in"}, {"dtype", dtype}, {"shape", {"M", "K"}}, {"init", init}},
          {{"name", "B"}, {"role", "in"}, {"dtype", dtype}, {"shape", {"K", "N"}}, {"init", init}},
          {{"name", "C"}, {"role", "out"}, {"dtype", dtype}, {"shape", {"M", "N"}},
           {"tolerance", {{"atol", 0.01}, {"rtol", 0.01}}}},
          {{"name", "M"}, {"role", "scalar"}, {"dtype", "i32"}, {"value", "M"}},
          {{"name", "N"}, {"role", "scalar"}, {"dtype", "i32"}, {"value", "N"}},
          {{"name", "K"}, {"role", "scalar"}, {"dtype", "i32"}, {"value", "K"}}}},
        {"reference",
         {{"source", ref},
          {"launch",
           {{{"kernel", "gemm_ref"}, {"grid", {"ceil_div(N, 16)", "ceil_div(M, 16)"}}, {"block", {16, 16}},
             {"args", {"A", "B", "C", "M", "N", "K"}}}}}}},
        {"baseline", {{"builtin", "cublas_gemm"}, {"args", {{"a", "A"}, {"b", "B"}, {"c", "C"}, {"m", "M"}, {"n", "N"}, {"k", "K"}}}}},
        {"cost", {{"flops", "2 * M * N * K"}, {"bytes", std::to_string(int(width)) + " * (M * K + K * N + M * N)"}}},
    };
}

void load_json_task(const Json& doc, TaskHandle& task) {
    std::string text = doc.dump();
    kb_status s = kb_load_task(text.c_str(), task.out());
    if (s != KB_OK) throw Failure(kb_status_string(s), "kbench's own " + doc["name"].get<std::string>() +
                                                           " task does not load (a bug in kbench): " + kb_last_error());
}

kb_candidate copy_candidate() {
    kb_candidate c = KB_CANDIDATE_INIT;
    c.code = kCopyKernel;
    c.code_size = std::strlen(kCopyKernel);
    c.language = KB_LANG_CUDA;
    c.label = "ceiling_copy";
    return c;
}

// The timed program's throughput figure (the baseline's when timing a baseline alone).
double throughput(const Json& r, const char* key, const std::string& what) {
    for (const char* role : {"baseline", "candidate"})
        if (r.contains(role) && r[role].contains(key)) return r[role][key].get<double>();
    throw Failure("measurement failed", what + ": kb_time gave no " + key + " figure (" + r.value("message", "") + ")");
}

Json timed(kb_context* ctx, const kb_task* task, const kb_kernel* kernel, const std::string& what) {
    kb_time_options t = KB_TIME_OPTIONS_INIT;
    t.budget_ms = 400;
    t.warmup_ms = 50;
    ResultHandle r;
    kb_status s = kb_time(ctx, task, kernel, &t, r.out());
    if (s != KB_OK) throw Failure(kb_status_string(s), what + ": " + kb_last_error());
    Json j = parse(kb_result_json(r.get()));
    if (j.value("verdict", "none") != "none")
        throw Failure("measurement failed", what + ": " + j.value("verdict", "") + ": " + j.value("message", ""));
    return j;
}

std::string utc_now() {
    std::time_t now = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    return buf;
}

// Measures one device's ceilings on its context.
Json measure(kb_context* ctx) {
    Json ceilings;
    {
        TaskHandle task;
        load_json_task(copy_task(), task);
        kb_candidate c = copy_candidate();
        KernelHandle k;
        kb_status s = kb_compile(ctx, task.get(), &c, k.out());
        if (s != KB_OK) throw Failure(kb_status_string(s), "the copy kernel does not compile: " + std::string(kb_last_error()));
        ceilings["copy_gbps"] = throughput(timed(ctx, task.get(), k.get(), "copy bandwidth"), "gbps", "copy bandwidth");
    }
    Json gemm = Json::object();
    for (const char* dtype : {"f16", "bf16", "f32"}) {
        TaskHandle task;
        load_json_task(gemm_task(dtype), task);
        const std::string what = std::string("cuBLAS ") + dtype + " GEMM";
        gemm[dtype] = throughput(timed(ctx, task.get(), nullptr, what), "tflops", what);
    }
    ceilings["gemm_tflops"] = gemm;
    return ceilings;
}

Json method() {
    return {{"copy", "float4 copy kernel, " + std::to_string(kCopyElements) + " f32 elements (2 GiB moved per run)"},
            {"gemm", "cuBLAS cublasGemmEx, M = N = K = " + std::to_string(kGemmSize) +
                         ", f32 accumulation, f32 without TF32"},
            {"timing", "kb_time cold: L2 flushed between runs, median of samples over 400 ms"}};
}

// --- output ----------------------------------------------------------------------

void print_device_text(const Json& d) {
    std::printf("gpu %d  %s  %s  %d SMs  %.1f GiB  SM %.0f MHz  memory %.0f MHz (%d-bit, %.0f GB/s peak)\n",
                d["ordinal"].get<int>(), d["name"].get<std::string>().c_str(), d["arch"].get<std::string>().c_str(),
                d["sm_count"].get<int>(), d["total_memory_bytes"].get<double>() / double(1ull << 30),
                d.value("sm_clock_rated_mhz", 0.0), d.value("memory_clock_mhz", 0.0), d.value("memory_bus_bits", 0),
                d.value("peak_dram_gbps", 0.0));
    const Json& c = d["ceilings"];
    const Json& g = c["gemm_tflops"];
    std::printf("       measured: copy %.0f GB/s, GEMM f16 %.1f, bf16 %.1f, f32 %.1f TFLOP/s  (%s %s)\n",
                c["copy_gbps"].get<double>(), g["f16"].get<double>(), g["bf16"].get<double>(), g["f32"].get<double>(),
                d["cached"].get<bool>() ? "cached, measured" : "measured", d.value("measured_at", "").c_str());
}

int list_cached(const Options& o) {
    const std::string path = devices_cache_path();
    DevicesCache cache = read_devices_cache(path);
    if (o.json) {
        Json devices = Json::object();
        for (const auto& [k, v] : cache.devices) devices[k] = v;
        print_json({{"cache", path}, {"devices", devices}});
        return kExitOk;
    }
    if (cache.devices.empty()) std::printf("no devices measured yet (cache %s)\n", path.c_str());
    for (const auto& [k, v] : cache.devices) {
        const Json& c = v["ceilings"];
        std::printf("%s: copy %s GB/s, GEMM TFLOP/s %s (measured %s)\n", k.c_str(), c.value("copy_gbps", Json()).dump().c_str(),
                    c.value("gemm_tflops", Json()).dump().c_str(), v.value("measured_at", "?").c_str());
    }
    return kExitOk;
}

int dry_run(const Options& o) {
    kb_context_options co = KB_CONTEXT_OPTIONS_INIT;
    co.device = KB_DEVICE_NONE;
    ContextHandle ctx;
    kb_status s = kb_context_create(&co, ctx.out());
    if (s != KB_OK) fail_with(s);
    Json tasks = Json::array();
    for (const Json& doc : {copy_task(), gemm_task("f16"), gemm_task("bf16"), gemm_task("f32")}) {
        TaskHandle task;
        load_json_task(doc, task);
        tasks.push_back(doc["name"]);
    }
    TaskHandle copy;
    load_json_task(copy_task(), copy);
    kb_candidate c = copy_candidate();
    KernelHandle k;
    s = kb_compile(ctx.get(), copy.get(), &c, k.out());
    if (s != KB_OK) throw Failure(kb_status_string(s), "the copy kernel does not compile: " + std::string(kb_last_error()));
    if (o.json) print_json({{"tasks", tasks}, {"copy_kernel", "compiled"}, {"method", method()}});
    else std::printf("dry run: %zu measuring tasks load, the copy kernel compiles; nothing measured\n", tasks.size());
    return kExitOk;
}

int list_devices(const Options& o) {
    int count = 0;
    kb_status s = kb_device_count(&count);
    if (s != KB_OK || count == 0) {
        std::string why = kb_last_error();
        if (why.empty()) why = "no CUDA device";
        if (o.json) print_json({{"devices", Json::array()}, {"count", 0}, {"no_device_reason", why}});
        else std::fprintf(stderr, "kbench devices: no CUDA device (%s): nothing to list or measure\n",
                          why.substr(0, why.find('\n')).c_str());
        return kExitOk;
    }
    if (o.device >= count)
        throw Failure("no device", "--device " + std::to_string(o.device) + ": there are " + std::to_string(count) +
                                       " device(s), numbered from 0");
    const std::string path = devices_cache_path();
    DevicesCache cache;
    if (!o.refresh) cache = read_devices_cache(path);
    else {
        try {
            cache = read_devices_cache(path);
        } catch (const std::runtime_error&) {
            // --refresh rewrites a broken cache.
        }
    }
    Json out = Json::array();
    bool wrote = false;
    for (int i = 0; i < count; ++i) {
        if (o.device >= 0 && i != o.device) continue;
        kb_context_options co = KB_CONTEXT_OPTIONS_INIT;
        co.device = i;
        ContextHandle ctx;
        s = kb_context_create(&co, ctx.out());
        if (s != KB_OK) throw Failure(kb_status_string(s), "device " + std::to_string(i) + ": " + kb_last_error());
        Json d = parse(kb_context_json(ctx.get()))["device"];
        d["ordinal"] = i;
        const std::string key = device_cache_key(d["name"].get<std::string>(), d.value("driver_version", 0ll));
        auto hit = cache.devices.find(key);
        if (hit != cache.devices.end() && !o.refresh) {
            d["ceilings"] = hit->second["ceilings"];
            d["measured_at"] = hit->second.value("measured_at", "");
            d["cached"] = true;
        } else {
            if (!o.json) std::fprintf(stderr, "kbench devices: measuring gpu %d (%s): copy bandwidth, cuBLAS GEMMs...\n", i,
                                      d["name"].get<std::string>().c_str());
            Json entry = {{"name", d["name"]},
                          {"driver_version", d.value("driver_version", 0ll)},
                          {"arch", d["arch"]},
                          {"measured_on_ordinal", i},
                          {"ceilings", measure(ctx.get())},
                          {"measured_at", utc_now()},
                          {"kbench_version", kb_version_string()},
                          {"method", method()}};
            cache.devices[key] = entry;
            wrote = true;
            d["ceilings"] = entry["ceilings"];
            d["measured_at"] = entry["measured_at"];
            d["cached"] = false;
        }
        d["cache_key"] = key;
        out.push_back(d);
    }
    if (wrote) write_devices_cache(path, cache);
    if (o.json) print_json({{"devices", out}, {"count", out.size()}, {"cache", path}});
    else
        for (const Json& d : out) print_device_text(d);
    return kExitOk;
}

}  // namespace

int cmd_devices(int argc, char** argv) {
    return run_subcommand(kCommand, argc, argv, [&](bool) {
        Options o = parse_options(argc, argv);
        if (o.cached) return list_cached(o);
        if (o.dry_run) return dry_run(o);
        return list_devices(o);
    });
}

}  // namespace kb::cli
