// The include sandbox (src/compiler/include_sandbox.cpp, docs/compilation.md):
// a candidate's code reads the toolkit's headers, the host compiler's and the
// files it names, nothing else; no message carries a byte of another file;
// nothing hangs or eats memory; and the compilers' limits stop what would.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "support/temp_dir.h"
#include "compiler/compiler.h"
#include "compiler/device_headers.h"
#include "compiler/include_sandbox.h"
#include "compiler/nvrtc_backend.h"
#include "engine/context.h"
#include "task/task.h"

namespace {

using kb::CompileError;
using kb::CompileRequest;
using kb::Compiler;
using kb::CompilerConfig;
using kb::FileReference;
using kb::scan_file_references;

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

Compiler& compiler() {
    static Compiler c(CompilerConfig{});
    return c;
}
bool have_nvcc() { return !compiler().nvcc_path().empty(); }

const char* kKernel = "__global__ void k(float* x) { x[threadIdx.x] = 1.f; }\n";

CompileRequest request(const std::string& code) {
    CompileRequest r;
    r.code = code;
    r.source_name = "candidate.cu";
    r.kernel_names = {"k"};
    r.emit_ptx = true;
    return r;
}

// Compiles and returns the CompileError's summary and log ("" if it compiled).
std::string refusal(const CompileRequest& r, Compiler& c = compiler()) {
    try {
        c.compile(r);
    } catch (const CompileError& e) {
        return std::string(e.what()) + "\n--- log ---\n" + e.log();
    }
    return "";
}

// A folder named after this file's tests.
struct TempDir : kb::test::TempDir {
    TempDir() : kb::test::TempDir("kbench_sandbox") {}
};

// Runs f in folder `dir`, then returns to where it was.
void in_folder(const std::string& dir, const std::function<void()>& f) {
    auto here = std::filesystem::current_path();
    std::filesystem::current_path(dir);
    try {
        f();
    } catch (...) {
        std::filesystem::current_path(here);
        throw;
    }
    std::filesystem::current_path(here);
}

std::string names(const std::vector<FileReference>& refs) {
    std::string s;
    for (const FileReference& r : refs)
        s += r.kind + (r.computed ? "(computed)" : "") + ":" + r.name + "@" + std::to_string(r.line) + ";";
    return s;
}

// ---- the scan ---------------------------------------------------------------

TEST(IncludeScan, FindsEveryDirectiveAPreprocessorWould) {
    EXPECT_EQ(names(scan_file_references("#include <a.h>\n  #  include \"b.h\"\n")), "include:a.h@1;include:b.h@2;");
    // Digraph, line splices, comments before and inside the directive.
    EXPECT_EQ(names(scan_file_references("%:include \"d.h\"\n")), "include:d.h@1;");
    EXPECT_EQ(names(scan_file_references("#inc\\\nlude \"s.h\"\n")), "include:s.h@1;");
    EXPECT_EQ(names(scan_file_references("#inc\\   \nlude \"s.h\"\n")), "include:s.h@1;");  // gcc allows the blanks
    EXPECT_EQ(names(scan_file_references("/* x */ # /* y */ include /* z */ \"c.h\"\n")), "include:c.h@1;");
    EXPECT_EQ(names(scan_file_references("/* a\n b */ #include \"m.h\"\n")), "include:m.h@2;");
    EXPECT_EQ(names(scan_file_references("#include /* a\n */ \"x.h\"\n")), "include:x.h@1;");
    EXPECT_EQ(names(scan_file_references("#include \"a/*b*/c.h\"\n")), "include:a/*b*/c.h@1;");
    // Trigraphs, whether or not a compiler honours them.
    // ("?" "?=" keeps this file's own compiler from reading a trigraph.)
    EXPECT_EQ(names(scan_file_references("?" "?=include \"t.h\"\n")), "include:t.h@1;");
    EXPECT_EQ(names(scan_file_references("const char* s = \"?" "?/\";\n#include \"u.h\"\n")), "include:u.h@2;");
    // The other directives that open or name files.
    EXPECT_EQ(names(scan_file_references("#include_next <n.h>\n#import \"i.h\"\n#embed \"e.bin\"\n")),
              "include_next:n.h@1;import:i.h@2;embed:e.bin@3;");
    EXPECT_EQ(names(scan_file_references("#if __has_include(</etc/passwd>)\n#endif\n")),
              "__has_include:/etc/passwd@1;");
    EXPECT_EQ(names(scan_file_references("#line 1 \"/etc/passwd\"\n# 7 \"/etc/shadow\" 2\n#line 9\n")),
              "line:/etc/passwd@1;line:/etc/shadow@2;");
    EXPECT_EQ(names(scan_file_references("#pragma GCC dependency \"/etc/passwd\"\n")),
              "pragma dependency:GCC dependency \"/etc/passwd\"@1;");
    EXPECT_EQ(names(scan_file_references("_Pragma(\"GCC dependency \\\"/etc/passwd\\\"\")\n")),
              "pragma dependency:GCC dependency \"/etc/passwd\"@1;");
    // Macro-built names are computed.
    EXPECT_EQ(names(scan_file_references("#define F \"/etc/passwd\"\n#include F\n")), "include(computed):F@2;");
    EXPECT_EQ(names(scan_file_references("#line __LINE__ F\n")), "line(computed):__LINE__ F@1;");
}

TEST(IncludeScan, TextThatIsNotADirectiveIsNot) {
    EXPECT_EQ(names(scan_file_references("int x; // #include \"/etc/passwd\"\n")), "");
    EXPECT_EQ(names(scan_file_references("/*\n#include \"/etc/passwd\"\n*/\n")), "");
    EXPECT_EQ(names(scan_file_references("const char* s = R\"x(\n#include \"/etc/passwd\"\n)x\";\n")), "");
    EXPECT_EQ(names(scan_file_references("const char* s = \"#include <x>\";\nint y = 1'000'000;\n")), "");
    EXPECT_EQ(names(scan_file_references("#define PRAGMA(x) _Pragma(#x)\nPRAGMA(unroll 4)\n")), "");
    // What hides text must end: an unterminated comment or raw string hides nothing.
    EXPECT_EQ(names(scan_file_references("/* open\n#include \"/etc/passwd\"\n")), "include:/etc/passwd@2;");
    EXPECT_EQ(names(scan_file_references("auto s = R\"x(\n#include \"/etc/passwd\"\n")), "include:/etc/passwd@2;");
}

// ---- the policy, before any compiler -----------------------------------------

kb::IncludePolicy toolkit_policy() {
    kb::IncludePolicy p;
    p.dirs = compiler().include_dirs();
    for (const std::string& d : kb::host_compiler_include_dirs()) p.dirs.push_back(d);
    p.is_builtin = [](const std::string& n) { return n == "cmath"; };
    return p;
}

std::string check(const std::string& code, const std::vector<kb::SourceFile>& headers = {}) {
    try {
        kb::check_file_references("candidate.cu", code, headers, toolkit_policy());
    } catch (const CompileError& e) {
        return e.what();
    }
    return "";
}

TEST(IncludePolicy, AllowsTheToolkitTheHostCompilerBuiltinsAndNamedHeaders) {
    EXPECT_EQ(check("#include <cuda_fp16.h>\n#include \"cuda_bf16.h\"\n#include <cub/cub.cuh>\n"), "");
    EXPECT_EQ(check("#include <cmath>\n#include <vector>\n#include <stdio.h>\n"), "");
    std::vector<kb::SourceFile> headers = {{"common.cuh", "#include \"b.cuh\"\n"}, {"b.cuh", ""},
                                           {"detail/x.cuh", "#include \"y.cuh\"\n"}, {"detail/y.cuh", ""}};
    EXPECT_EQ(check("#include \"common.cuh\"\n#include <./detail//x.cuh>\n", headers), "");
    EXPECT_EQ(check("#if __has_include(<cuda/std/cmath>)\n#endif\n#line 3\n#line 4 \"candidate.cu\"\n"), "");
}

TEST(IncludePolicy, RefusesEverythingElseNamingTheDirectiveAndTheRule) {
    struct Case {
        const char* code;
        const char* part;
    } cases[] = {
        {"#include \"/etc/passwd\"\n", "candidate.cu:1: #include \"/etc/passwd\": absolute paths are not allowed"},
        {"#include </proc/self/environ>\n", "#include </proc/self/environ>: absolute paths"},
        {"#include \"/dev/zero\"\n", "absolute paths"},
        {"\n#include \"../secret.h\"\n", "candidate.cu:2: #include \"../secret.h\": '..' is not allowed"},
        {"#include <cuda/../../../../etc/passwd>\n", "'..' is not allowed"},
        {"#include \"secret.h\"\n", "no such header among the toolkit's"},
        {"#define F \"/etc/passwd\"\n#include F\n", "a file name computed by a macro is not allowed"},
        {"#include_next \"/etc/passwd\"\n", "#include_next"},
        {"#import \"/etc/passwd\"\n", "absolute"},
        {"#embed \"/etc/passwd\"\n", "absolute"},
        {"#if __has_include(\"/etc/passwd\")\n#endif\n", "__has_include(\"/etc/passwd\")"},
        {"#line 1 \"/etc/passwd\"\n", "#line may name only the candidate's own files"},
        {"# 1 \"/etc/passwd\"\n", "#line may name only"},
        {"#pragma GCC dependency \"/etc/passwd\"\n", "a pragma that reads another file"},
        {"%:include \"/etc/passwd\"\n", "absolute"},
        {"?" "?=include \"/etc/passwd\"\n", "absolute"},
        {"#include \"a\\\\b.h\"\n", "backslash"},
    };
    for (const Case& c : cases) {
        std::string msg = check(c.code);
        EXPECT_TRUE(has(msg, c.part)) << c.code << " -> " << msg;
    }
    // A header the candidate brings is held to the same rules.
    std::string msg = check("#include \"h.cuh\"\n", {{"h.cuh", "\n\n#include \"/etc/passwd\"\n"}});
    EXPECT_TRUE(has(msg, "h.cuh:3: #include \"/etc/passwd\"")) << msg;
}

TEST(IncludePolicy, SymbolicLinksOutOfTheAllowedFoldersAreRefused) {
    TempDir root;
    root.write("inc/good.h", "#define GOOD 1\n");
    TempDir outside;
    outside.write("secret.h", "SECRET_CONTENT_0451\n");
    ASSERT_EQ(::symlink((outside.path() + "/secret.h").c_str(), (root.path() + "/inc/link.h").c_str()), 0);
    kb::IncludePolicy p;
    p.dirs = {root.path() + "/inc"};
    EXPECT_NO_THROW(kb::check_file_references("c.cu", "#include <good.h>\n", {}, p));
    try {
        kb::check_file_references("c.cu", "#include <link.h>\n", {}, p);
        FAIL() << "a link out of the folder was allowed";
    } catch (const CompileError& e) {
        EXPECT_TRUE(has(e.what(), "leads out of")) << e.what();
        EXPECT_FALSE(has(std::string(e.what()) + e.log(), "SECRET_CONTENT"));
    }
}

// ---- through the compilers -------------------------------------------------------

TEST(IncludeSandbox, HostFilesNeverReachTheCompilersNorTheirMessages) {
    TempDir cwd;
    cwd.write("secret.h", "SECRET_CONTENT_0451 int leaked = 1;\n");
    const char* hostile[] = {
        "#include \"/etc/passwd\"\n",
        "#include </etc/passwd>\n",
        "#include \"/proc/self/environ\"\n",
        "#include \"/dev/zero\"\n",
        "#include \"../secret.h\"\n",
        "#include \"secret.h\"\n",  // in the host's working directory, which NVRTC would search
        "#line 1 \"/etc/passwd\"\n#error boom\n",
        "#define F(x) #x\n#include F(/etc/passwd)\n",
    };
    in_folder(cwd.path(), [&] {
        for (const char* h : hostile) {
            for (bool nvcc : {false, true}) {
                if (nvcc && !have_nvcc()) continue;
                CompileRequest r = request(std::string(h) + kKernel);
                r.force_nvcc = nvcc;
                auto t0 = std::chrono::steady_clock::now();
                std::string msg = refusal(r);
                double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                EXPECT_FALSE(msg.empty()) << h << " compiled";
                EXPECT_FALSE(has(msg, "root:")) << msg;            // /etc/passwd's first line
                EXPECT_FALSE(has(msg, "PATH=")) << msg;            // the environment
                EXPECT_FALSE(has(msg, "SECRET_CONTENT")) << msg;   // the file beside the host
                EXPECT_LT(s, 2.0) << h << ": the refusal comes before any compiler runs";
            }
        }
    });
}

TEST(IncludeSandbox, NvrtcDoesNotSearchTheHostsWorkingDirectory) {
    // Below the sandbox's check: NVRTC's own options keep it out of the
    // working directory, in case a name ever slipped through.
    TempDir cwd;
    cwd.write("secret.h", "SECRET_CONTENT_0451\n");
    in_folder(cwd.path(), [&] {
        CompileRequest r = request(std::string("#include \"secret.h\"\n") + kKernel);
        std::vector<std::pair<std::string, std::string>> prelude = {{kb::prelude_header_name(), kb::prelude_for({})}};
        for (const kb::VirtualHeader& h : kb::device_headers()) prelude.emplace_back(h.name, h.text);
        kb::NvrtcResult nr =
            kb::run_nvrtc(r.code, "candidate.cu", compiler().nvrtc_options(r), prelude, {}, false, 60);
        EXPECT_FALSE(nr.ok);
        EXPECT_TRUE(has(nr.log, "source file \"secret.h\"")) << nr.log;
        EXPECT_FALSE(has(nr.log, "SECRET_CONTENT")) << nr.log;
    });
}

TEST(IncludeSandbox, NamedHeadersCompileWithBothCompilers) {
    CompileRequest r = request("#include \"common.cuh\"\n#include \"detail/a.cuh\"\n"
                               "__global__ void k(float* x) { x[0] = SCALE * A_PLUS_B; }\n");
    r.headers = {{"common.cuh", "#define SCALE 2.f\n"},
                 {"detail/a.cuh", "#include \"b.cuh\"\n#define A_PLUS_B (1.f + B)\n"},  // b.cuh beside it
                 {"detail/b.cuh", "#define B 3.f\n"}};
    kb::CompiledImage img = compiler().compile(r);
    EXPECT_EQ(img.path, "nvrtc") << img.log;
    EXPECT_TRUE(has(img.bytes, ".entry")) << img.log;
    if (have_nvcc()) {
        r.force_nvcc = true;
        kb::CompiledImage n = compiler().compile(r);
        EXPECT_EQ(n.path, "nvcc");
    }
    // The headers are part of what is cached: other headers, another image.
    CompileRequest other = r;
    other.force_nvcc = false;
    other.headers[0].text = "#define SCALE 4.f\n";
    EXPECT_NE(compiler().cache_key(other), compiler().cache_key(r));
}

TEST(IncludeSandbox, FileBesideTheCandidateThatItsDocumentDoesNotNameIsRefused) {
    TempDir dir;
    dir.write("task.json", R"J({
      "format": "kbench-task/1", "name": "t", "dims": {"n": "elements"},
      "cases": [{"name": "one", "dims": {"n": 1}}], "perf_case": {"dims": {"n": 256}},
      "args": [{"name": "x", "role": "out", "dtype": "f32", "shape": ["n"], "tolerance": {"atol": 0, "rtol": 0}}],
      "reference": {"source": "__global__ void r(float* x) {}",
                    "launch": [{"kernel": "r", "grid": 1, "block": 256, "args": ["x"]}]},
      "candidate": {"launch": [{"kernel": "k", "grid": 1, "block": 256, "args": ["x"]}]}
    })J");
    dir.write("cand/k.cu", std::string("#include \"secret.h\"\n#include \"common.cuh\"\n") + kKernel);
    dir.write("cand/secret.h", "#define SECRET_CONTENT_0451 1\n");
    dir.write("cand/common.cuh", "#define COMMON 1\n");
    dir.write("cand/named.json", R"J({"format": "kbench-candidate/1", "source_file": "k.cu",
                                      "headers": ["common.cuh"]})J");
    dir.write("cand/both.json", R"J({"format": "kbench-candidate/1", "source_file": "k.cu",
                                     "headers": ["common.cuh", "secret.h"]})J");
    kb::ContextOptions o;
    o.device = KB_DEVICE_NONE;
    o.nvcc_fallback = true;
    kb::Context ctx(o, {});
    kb::TaskPtr task = kb::load_task(dir.path() + "/task.json");
    kb::CandidateInput in;
    in.path = dir.path() + "/cand/named.json";
    try {
        ctx.compile_candidate(task, in);
        FAIL() << "compiled with a header it did not name";
    } catch (const CompileError& e) {
        std::string all = std::string(e.what()) + e.log();
        EXPECT_TRUE(has(all, "k.cu:1: #include \"secret.h\"")) << all;
        EXPECT_TRUE(has(all, "must be listed there")) << all;
        EXPECT_FALSE(has(all, "SECRET_CONTENT")) << all;
    }
    in.path = dir.path() + "/cand/both.json";
    EXPECT_NO_THROW(ctx.compile_candidate(task, in));
    // Raw code from the caller names no files: nothing beside it is reachable.
    in = kb::CandidateInput();
    in.path = dir.path() + "/cand/k.cu";
    EXPECT_THROW(ctx.compile_candidate(task, in), CompileError);
}

// ---- the compilers' limits ---------------------------------------------------------

// What only nvcc's preprocessor would choke on: gcc writes 10^9 tokens to
// its output file.
std::string preprocessor_bomb() {
    std::string s = "#define A0 x x x x x x x x x x\n";
    for (int i = 1; i <= 9; ++i) {
        s += "#define A" + std::to_string(i);
        for (int k = 0; k < 10; ++k) s += " A" + std::to_string(i - 1);
        s += "\n";
    }
    return s + "int y[] = { A9 };\n" + kKernel;
}

std::unique_ptr<Compiler> compiler_with(const std::function<void(CompilerConfig&)>& set) {
    CompilerConfig c;
    set(c);
    return std::make_unique<Compiler>(c);
}

CompileRequest nvcc_request(const std::string& code) {
    CompileRequest r = request(code);
    r.force_nvcc = true;
    return r;
}

const std::string kCub = "#include <cub/cub.cuh>\n" + std::string(kKernel);

TEST(CompileLimits, NvccFileSizeLimit) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
    // gcc's preprocessed output of 10^9 tokens hits 16 MiB.
    auto c = compiler_with([](CompilerConfig& cc) { cc.process_limits.file_bytes = uint64_t(16) << 20; });
    std::string msg = refusal(nvcc_request(preprocessor_bomb()), *c);
    EXPECT_TRUE(has(msg, "candidate.cu: nvcc was stopped by the file-size limit of 16 MiB")) << msg;
    EXPECT_TRUE(has(msg, "kb_limits.compile_file_bytes")) << msg;
}

TEST(CompileLimits, NvccWallClockLimit) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
    auto c = compiler_with([](CompilerConfig& cc) { cc.timeout_s = 0.3; });
    auto t0 = std::chrono::steady_clock::now();
    std::string msg = refusal(nvcc_request(kCub), *c);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 3.0);
    EXPECT_TRUE(has(msg, "wall-clock limit of 0.3 s")) << msg;
    EXPECT_TRUE(has(msg, "kb_limits.compile_wall_s")) << msg;
}

TEST(CompileLimits, NvccMemoryLimit) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
    // CUB's headers need more than 256 MiB of address space in cicc.
    auto c = compiler_with([](CompilerConfig& cc) { cc.process_limits.memory_bytes = uint64_t(256) << 20; });
    std::string msg = refusal(nvcc_request(kCub), *c);
    EXPECT_TRUE(has(msg, "memory limit of 256 MiB")) << msg;
    EXPECT_TRUE(has(msg, "kb_limits.compile_memory_bytes")) << msg;
}

TEST(CompileLimits, NvccCpuTimeLimit) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
    // One second of CPU per process is not enough for four Thrust sorts:
    // cicc takes several seconds over them. (One sort of floats took nvcc
    // 2.3 s in all on a 2026 CI machine, about one second a stage: too
    // close to the limit, and the test failed there now and then; CUB's
    // headers alone are closer still.)
    auto c = compiler_with([](CompilerConfig& cc) { cc.process_limits.cpu_s = 1; });
    const std::string heavy =
        "#include <thrust/device_vector.h>\n#include <thrust/sort.h>\n" + std::string(kKernel) +
        "void sort_f(thrust::device_vector<float>& v) { thrust::sort(v.begin(), v.end()); }\n"
        "void sort_d(thrust::device_vector<double>& v) { thrust::sort(v.begin(), v.end(), thrust::greater<double>()); }\n"
        "void sort_i(thrust::device_vector<int>& k, thrust::device_vector<float>& v) {\n"
        "  thrust::sort_by_key(k.begin(), k.end(), v.begin());\n}\n"
        "void sort_l(thrust::device_vector<long long>& v) { thrust::stable_sort(v.begin(), v.end()); }\n";
    std::string msg = refusal(nvcc_request(heavy), *c);
    EXPECT_TRUE(has(msg, "CPU-time limit of 1 s")) << msg;
    EXPECT_TRUE(has(msg, "kb_limits.compile_cpu_s")) << msg;
}

TEST(CompileLimits, DefaultsLetAnOrdinaryKernelThroughNvcc) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
    EXPECT_EQ(compiler().compile(nvcc_request(kKernel)).path, "nvcc");
}

}  // namespace
