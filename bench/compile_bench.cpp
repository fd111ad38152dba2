// Compile latency through kb_compile in a warm process: NVRTC on fresh
// sources (cache misses), and memory-cache hits. Prints one JSON object.
#include "bench_util.h"

using namespace bench;

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
    s = kb_load_task((source_dir() + "/tasks/vector_add_f32/task.json").c_str(), &task);
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
                    {"path", info["path"]}};
    std::printf("%s\n", out.dump(2).c_str());
    kb_task_destroy(task);
    kb_context_destroy(ctx);
    return 0;
}
