// What a contained compile's parts cost on this machine's CPU (issue 12):
// with faults contained (docs/isolation.md, "Contained faults and hangs"),
// NVRTC gives PTX, kbench rewrites its traps and adds a checked copy of
// every function, and nvJitLink assembles both builds as one module; against
// the plain compile, NVRTC straight to a cubin. It also assembles the
// checked copies alone (compiler/fault_containment.h, CheckedForm::
// copies_only: all a score's comparisons run; the timing and the recheck
// after it run the functions themselves), at ptxas's default level and at
// -O1 and -O0, to size what such a build would save. No GPU is needed.
//
//   kbench_contained_compile_cost [REPEATS=5] FILE.cu...
//
// Prints one JSON object per file: each part's median over REPEATS fresh
// sources (a comment makes each one new), in milliseconds.
#include <cctype>
#include <cmath>
#include <map>

#include "bench_util.h"
#include "compiler/fault_containment.h"
#include "compiler/ptx_assembler.h"
#include "nvrtc_pair.h"

using namespace bench;


int main(int argc, char** argv) {
    int first = 1, repeats = 5;
    if (argc > 1 && std::isdigit(static_cast<unsigned char>(argv[1][0]))) repeats = std::max(1, std::atoi(argv[1])), first = 2;
    if (first >= argc) {
        std::fprintf(stderr, "usage: kbench_contained_compile_cost [REPEATS=5] FILE.cu...\n");
        return 2;
    }
    NvrtcPair nvrtc;
    kb::NvrtcBackend &to_ptx = nvrtc.to_ptx, &to_cubin = nvrtc.to_cubin;
    const std::string arch = "sm_90";
    for (int f = first; f < argc; ++f) {
        const std::string code = read_file(argv[f]);
        std::map<std::string, std::vector<double>> ms;
        size_t both_bytes = 0, copies_bytes = 0;
        for (int r = 0; r < repeats; ++r) {
            kb::CompileRequest rq;
            rq.code = "// " + std::to_string(r) + "\n" + code;
            rq.allow_nvcc_fallback = false;
            rq.arch = arch;
            double t = now_ms();
            to_cubin.compile(rq);
            ms["plain_nvrtc_cubin"].push_back(now_ms() - t);
            rq.code = "// ptx " + std::to_string(r) + "\n" + code;
            rq.emit_ptx = true;  // NVRTC's PTX with its traps contained, not yet assembled
            t = now_ms();
            kb::CompiledImage img = to_ptx.compile(rq);
            ms["contained_nvrtc_ptx"].push_back(now_ms() - t);
            t = now_ms();
            kb::CheckedPtx checked = kb::check_faults(img.bytes);
            ms["check_faults"].push_back(now_ms() - t);
            const std::string copies = kb::check_faults(img.bytes, kb::CheckedForm::copies_only).ptx;
            auto assemble = [&](const char* name, const std::string& ptx, std::vector<std::string> extra, size_t* bytes) {
                kb::PtxAssembly a = kb::assemble_ptx(KB_CUDA_HOME, ptx, arch, 0, extra);
                if (!a.ok) {
                    std::fprintf(stderr, "%s: %s did not assemble: %s%s\n", argv[f], name, a.why_unavailable.c_str(),
                                 a.log.c_str());
                    std::exit(1);
                }
                ms[name].push_back(a.ms);
                if (bytes) *bytes = a.cubin.size();
            };
            assemble("assemble_plain", img.bytes, {}, nullptr);
            assemble("assemble_both", checked.ptx, {}, &both_bytes);
            assemble("assemble_copies_only", copies, {}, &copies_bytes);
            assemble("assemble_copies_only_O1", copies, {"-Xptxas=-O1"}, nullptr);
            assemble("assemble_copies_only_O0", copies, {"-Xptxas=-O0"}, nullptr);
        }
        kb::Json out;
        out["file"] = argv[f];
        out["repeats"] = repeats;
        for (auto& [name, v] : ms) out[name + "_ms"] = std::round(median(v) * 100) / 100;
        out["cubin_bytes_both"] = both_bytes;
        out["cubin_bytes_copies_only"] = copies_bytes;
        std::printf("%s\n", out.dump().c_str());
    }
    return 0;
}
