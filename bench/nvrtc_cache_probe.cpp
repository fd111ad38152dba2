// Whether the CUDA stack's own compile cache answers NVRTC (issue 12's
// benchmark honesty): compiles each file five times, each time as a new
// source, and times NVRTC to PTX, NVRTC to a cubin, nvJitLink and the ptxas
// command on that PTX (alone, and with fault containment's checked copies
// beside it). No GPU is needed; on a host with one the difference shows.
//
//   kbench_nvrtc_cache_probe FILE.cu...
//
// Sources differ by a comment alone (the PTX stays the same), or, with
// KBENCH_PROBE_DISTINCT=1, by an empty kernel of a name of their own (the
// PTX differs). On an H200 host (`bench/run_device.sh`, bench/RESULTS.md): with
// a GPU visible and the same PTX, NVRTC's PTX and cubin came back in a
// fraction of the time a new PTX took, and CUDA_CACHE_DISABLE=1 or
// CUDA_VISIBLE_DEVICES= took that away; nvJitLink (run with -no-cache, as
// kbench runs it) and the ptxas command never hit. Prints one line per
// file: each part's median, in milliseconds.
#include <cstdlib>
#include <fstream>
#include <map>

#include "bench_util.h"
#include "compiler/fault_containment.h"
#include "compiler/ptx_assembler.h"
#include "nvrtc_pair.h"

using namespace bench;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: kbench_nvrtc_cache_probe FILE.cu...\n");
        return 2;
    }
    NvrtcPair nvrtc;
    kb::NvrtcBackend &to_ptx = nvrtc.to_ptx, &to_cubin = nvrtc.to_cubin;
    const char* d = std::getenv("KBENCH_PROBE_DISTINCT");
    const bool distinct = d && std::string(d) == "1";
    // The run's own number: the stack's cache outlives the process.
    const std::string run = std::to_string(static_cast<long long>(now_ms()));
    const std::string dir = "/tmp/kbench-cache-probe-" + run;
    if (std::system(("mkdir -p " + dir).c_str()) != 0) die("mkdir", KB_ERR_IO);
    const std::string ptxas = std::string(KB_CUDA_HOME) + "/bin/ptxas -arch=sm_90 ";
    for (int f = 1; f < argc; ++f) {
        const std::string code = read_file(argv[f]);
        std::map<std::string, std::vector<double>> ms;
        for (int r = 0; r < 5; ++r) {
            const std::string tag = std::to_string(f) + "_" + std::to_string(r) + "_" + run;
            auto source = [&](const char* what) {
                return "// " + std::string(what) + " " + tag + "\n" + code +
                       (distinct ? "\n__global__ void kbench_probe_" + std::string(what) + "_" + tag + "() {}\n" : "\n");
            };
            kb::CompileRequest rq;
            rq.allow_nvcc_fallback = false;
            rq.arch = "sm_90";
            rq.code = source("cubin");
            double t = now_ms();
            to_cubin.compile(rq);
            ms["nvrtc_cubin"].push_back(now_ms() - t);
            rq.code = source("ptx");
            rq.emit_ptx = true;  // with its traps contained, not yet assembled
            t = now_ms();
            kb::CompiledImage img = to_ptx.compile(rq);
            ms["nvrtc_ptx"].push_back(now_ms() - t);
            const std::string both = kb::check_faults(img.bytes).ptx;
            for (const auto& [name, ptx] : {std::pair<const char*, const std::string*>{"plain", &img.bytes},
                                            std::pair<const char*, const std::string*>{"both", &both}}) {
                t = now_ms();
                kb::PtxAssembly a = kb::assemble_ptx(KB_CUDA_HOME, *ptx, "sm_90", 0);
                ms[std::string("nvjitlink_") + name].push_back(now_ms() - t);
                if (!a.ok) die((std::string(argv[f]) + ": nvJitLink " + a.why_unavailable + a.log).c_str(), KB_ERR_COMPILE);
                const std::string file = dir + "/" + name + ".ptx";
                std::ofstream(file) << *ptx;
                t = now_ms();
                int rc = std::system((ptxas + file + " -o " + dir + "/" + name + ".cubin").c_str());
                ms[std::string("ptxas_command_") + name].push_back(now_ms() - t);
                if (rc != 0) die((std::string(argv[f]) + ": the ptxas command failed").c_str(), KB_ERR_COMPILE);
            }
        }
        std::printf("%s%s", argv[f], distinct ? " (distinct PTX)" : " (same PTX)");
        for (auto& [k, v] : ms) std::printf(" %s=%.2f", k.c_str(), median(v));
        std::printf("\n");
    }
    std::system(("rm -rf " + dir).c_str());
    return 0;
}
