// What a contained compile's parts cost on this machine's CPU (issue 12):
// with faults contained (docs/isolation.md, "Contained faults and hangs"),
// NVRTC gives PTX, kbench rewrites its traps and adds a checked copy of
// every function, and nvJitLink assembles both builds as one module; against
// the plain compile, NVRTC straight to a cubin. It also assembles what a
// build of only the checked copies would be (the plain functions' bodies
// left out: the comparisons run only the copies; the timing and the recheck
// after it run the plain functions), at ptxas's default level and at -O1
// and -O0, to size what such a build would save. No GPU is needed.
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
#include "compiler/nvrtc_backend.h"
#include "compiler/ptx_assembler.h"

using namespace bench;

namespace {

// The module without the plain functions' definitions: everything before
// the checked build's marker keeps its declarations and variables, not the
// bodies of .entry and .func definitions. Only for measuring: nvJitLink
// checks that what is left assembles.
std::string checked_copies_only(const std::string& both) {
    const std::string mark = "\n// kbench: the checked build";
    const size_t m = both.find(mark);
    if (m == std::string::npos) return "";
    std::istringstream in(both.substr(0, m));
    std::string line, out, pending;
    int depth = 0;
    auto names_function = [](const std::string& s) {
        return s.find(".entry") != std::string::npos || s.find(".func") != std::string::npos;
    };
    while (std::getline(in, line)) {
        const int opens = int(std::count(line.begin(), line.end(), '{'));
        const int closes = int(std::count(line.begin(), line.end(), '}'));
        if (depth > 0) {  // inside a dropped body
            depth += opens - closes;
            continue;
        }
        if (opens > closes && line.find('=') == std::string::npos && (names_function(pending) || names_function(line))) {
            pending.clear();  // the definition's header goes with its body
            depth = opens - closes;
            continue;
        }
        pending += line + "\n";
        std::string t = line;
        while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
        // A statement ends (a declaration, a variable), or a line that cannot
        // begin a definition's header: keep what is pending.
        if (t.empty() || t.back() == ';' || t.back() == '}' || t.rfind("//", 0) == 0 || !names_function(pending)) {
            out += pending;
            pending.clear();
        }
    }
    return out + pending + both.substr(m);
}

}  // namespace

int main(int argc, char** argv) {
    int first = 1, repeats = 5;
    if (argc > 1 && std::isdigit(static_cast<unsigned char>(argv[1][0]))) repeats = std::max(1, std::atoi(argv[1])), first = 2;
    if (first >= argc) {
        std::fprintf(stderr, "usage: kbench_contained_compile_cost [REPEATS=5] FILE.cu...\n");
        return 2;
    }
    kb::CompilerConfig contained;
    contained.cuda_home = KB_CUDA_HOME;
    contained.contain_traps = true;
    kb::CompilerConfig plain = contained;
    plain.contain_traps = false;
    kb::NvrtcBackend to_ptx(contained, false), to_cubin(plain, false);
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
            const std::string copies = checked_copies_only(checked.ptx);
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
