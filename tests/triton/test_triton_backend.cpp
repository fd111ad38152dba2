// The Triton compile backend end to end on the CPU: the Python compile worker
// compiles real kernels with the installed Triton, errors come back at the
// candidate's lines, untrusted source is checked before it runs, and a hang,
// a crash or an exception costs one worker. Needs Triton (triton_main.cpp).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "compiler/compiler.h"
#include "compiler/triton_backend.h"
#include "compiler/triton_launch.h"
#include "util/error.h"
#include "util/files.h"

namespace {

using kb::CompiledImage;
using kb::CompileError;
using kb::CompileRequest;
using kb::Compiler;
using kb::CompilerConfig;

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

std::string example(const std::string& rel) { return kb::read_file(std::string(KB_SOURCE_DIR) + "/examples/triton/" + rel); }

Compiler& shared_compiler() {
    static Compiler c{CompilerConfig{}};
    return c;
}

CompileRequest vector_add_request(const std::string& n_spec = "D", int block = 1024) {
    CompileRequest r;
    r.language = kb::Language::triton;
    r.code = example("vector_add/vector_add.py");
    r.source_name = "vector_add.py";
    r.arch = "sm_90";
    r.kernel_names = {"vector_add"};
    r.triton.kernel = "vector_add";
    r.triton.args = {{"a", "*fp32", "D"}, {"b", "*fp32", "D"}, {"c", "*fp32", "D"}, {"n", "i32", n_spec}};
    r.triton.constexprs = {{"BLOCK", block}};
    r.triton.num_warps = 4;
    r.triton.num_stages = 1;
    return r;
}

CompileRequest source_request(const std::string& code, const std::string& kernel = "k") {
    CompileRequest r = vector_add_request();
    r.code = code;
    r.source_name = "candidate.py";
    r.kernel_names = {kernel};
    r.triton.kernel = kernel;
    return r;
}

const std::string kHeader = "import triton\nimport triton.language as tl\n\n\n";

TEST(TritonBackend, CompilesAKernelAndDerivesItsLaunch) {
    CompiledImage img = shared_compiler().compile(vector_add_request());
    EXPECT_EQ(img.path, "triton");
    EXPECT_EQ(img.kind, kb::ImageKind::cubin);
    EXPECT_EQ(img.symbols.at("vector_add"), "vector_add");
    EXPECT_NE(std::find(img.entries.begin(), img.entries.end(), "vector_add"), img.entries.end());
    EXPECT_EQ(img.triton_key, vector_add_request().triton.key());
    EXPECT_TRUE(has(img.triton_ptx_entry, ".entry vector_add(")) << img.triton_ptx_entry;
    kb::TritonLaunch t = kb::derive_triton_launch(img.triton_metadata, img.triton_signature, img.triton_ptx_entry);
    EXPECT_EQ(t.threads_per_block(), 128u);
    EXPECT_EQ(t.arg_param_count(), 4u);
    EXPECT_EQ(t.params.size(), 4u + size_t(kb::triton_hidden_param_count(t.version)));
    EXPECT_EQ(t.version.text, shared_compiler().triton_backend().version());
    ASSERT_EQ(img.triton_signature.size(), 5u);  // a, b, c, n, BLOCK
    EXPECT_EQ(img.triton_signature[4].type, "constexpr");
    EXPECT_EQ(img.triton_signature[4].arg, -1);
}

TEST(TritonBackend, CachesByContent) {
    CompileRequest r = vector_add_request("D", 512);
    CompiledImage a = shared_compiler().compile(r);
    CompiledImage b = shared_compiler().compile(r);
    EXPECT_TRUE(b.cache_hit);
    EXPECT_EQ(a.bytes, b.bytes);
    EXPECT_EQ(a.hash, b.hash);
    // Another specialisation is another key.
    EXPECT_NE(shared_compiler().cache_key(vector_add_request("", 512)), a.hash);

    // The directory cache answers another compiler (another process) too.
    std::string dir = kb::make_temp_dir("kbench-triton-cache-");
    CompilerConfig cc;
    cc.cache_dir = dir;
    {
        Compiler one(cc);
        EXPECT_FALSE(one.compile(r).cache_hit);
    }
    Compiler two(cc);
    CompiledImage c = two.compile(r);
    EXPECT_TRUE(c.cache_hit);
    EXPECT_EQ(c.path, "triton");
    EXPECT_EQ(c.bytes, a.bytes);
    EXPECT_EQ(c.triton_metadata, a.triton_metadata);
    EXPECT_EQ(c.triton_ptx_entry, a.triton_ptx_entry);
    ASSERT_EQ(c.triton_signature.size(), a.triton_signature.size());
    EXPECT_EQ(c.triton_signature[3].type, a.triton_signature[3].type);
    kb::remove_tree(dir);
}

// n = 1024, n = 1009 and n = 1 are three different binaries: n divisible by
// 16 vectorises, n = 1 is compiled in and leaves the parameter list.
TEST(TritonBackend, SpecialisationMakesDifferentBinaries) {
    CompiledImage d = shared_compiler().compile(vector_add_request("D"));
    CompiledImage plain = shared_compiler().compile(vector_add_request(""));
    CompiledImage one = shared_compiler().compile(vector_add_request("1"));
    EXPECT_NE(d.bytes, plain.bytes);
    EXPECT_NE(d.bytes, one.bytes);
    auto params = [](const CompiledImage& i) {
        return kb::derive_triton_launch(i.triton_metadata, i.triton_signature, i.triton_ptx_entry).arg_param_count();
    };
    EXPECT_EQ(params(d), 4u);
    EXPECT_EQ(params(plain), 4u);
    EXPECT_EQ(params(one), 3u);
    EXPECT_EQ(one.triton_signature[3].type, "constexpr");
    EXPECT_EQ(one.triton_signature[3].arg, 3);
}

TEST(TritonBackend, CompileErrorsPointAtTheCandidatesLine) {
    const std::string code = kHeader +
                             "@triton.jit\n"                               // 5
                             "def helper(x):\n"                            // 6
                             "    return x + undefined_name\n"             // 7
                             "\n"
                             "\n"
                             "@triton.jit\n"                               // 10
                             "def k(a, b, c, n, BLOCK: tl.constexpr):\n"   // 11
                             "    i = tl.arange(0, BLOCK)\n"               // 12
                             "    x = tl.load(a + i, mask=i < n)\n"        // 13
                             "    tl.store(c + i, helper(x), mask=i < n)\n";  // 14
    try {
        shared_compiler().compile(source_request(code));
        FAIL() << "compiled";
    } catch (const CompileError& e) {
        EXPECT_TRUE(has(e.what(), "candidate.py:7:")) << e.what();
        EXPECT_TRUE(has(e.what(), "undefined_name")) << e.what();
        EXPECT_TRUE(has(e.what(), "return x + undefined_name")) << e.what();
        EXPECT_TRUE(has(e.log(), "candidate.py:14:")) << e.log();
        EXPECT_TRUE(has(e.log(), "called from kernel 'k'")) << e.log();
        EXPECT_FALSE(has(e.what(), "compile_worker.py")) << e.what();
        EXPECT_FALSE(has(e.what(), "Traceback")) << e.what();
    }
    // A type error inside Triton's semantics, at the candidate's line.
    const std::string bad_load = kHeader +
                                 "@triton.jit\n"
                                 "def k(a, b, c, n, BLOCK: tl.constexpr):\n"
                                 "    i = tl.arange(0, BLOCK)\n"
                                 "    x = tl.load(n + i)\n";  // line 8: n is an int, not a pointer
    try {
        shared_compiler().compile(source_request(bad_load));
        FAIL() << "compiled";
    } catch (const CompileError& e) {
        EXPECT_TRUE(has(e.what(), "candidate.py:8:")) << e.what();
    }
}

TEST(TritonBackend, SourceIsCheckedBeforeItRuns) {
    struct Case {
        std::string code, where, what;
    };
    const std::string marker = "/tmp/kbench-triton-test-marker-" + std::to_string(::getpid());
    std::vector<Case> cases = {
        {"import os\nos.system('touch " + marker + "')\n", "candidate.py:1:", "import of 'os'"},
        {kHeader + "open('" + marker + "', 'w')\n", "candidate.py:5:", "top-level Expr"},
        {kHeader + "@triton.jit\ndef k(a, b, c, n, BLOCK: tl.constexpr):\n    triton.compiler.compiler.os.system('touch " +
             marker + "')\n",
         "candidate.py:7:", "outside triton.language"},
        {kHeader + "@triton.jit\ndef k(a, b, c, n, BLOCK: tl.constexpr):\n    x = a.__class__\n", "candidate.py:7:",
         "beginning with '_'"},
        {kHeader + "def host(a):\n    return a\n", "candidate.py:5:", "no decorator"},
        {kHeader + "@triton.jit\ndef k(a, b, c, n, BLOCK: tl.constexpr = print(1)):\n    pass\n", "candidate.py:6:",
         "only tl.constexpr(...) may be called"},
        {kHeader + "@triton.jit\ndef k(a, b, c, n, BLOCK: tl.constexpr):\n    pass\nif True:\n    pass\n",
         "candidate.py:8:", "top-level If"},
        {kHeader + "@triton.jit\ndef k(a, b, c, n, BLOCK: tl.constexpr:\n    pass\n", "candidate.py:6:", "syntax error"},
    };
    for (const Case& c : cases) {
        try {
            shared_compiler().compile(source_request(c.code));
            ADD_FAILURE() << "accepted:\n" << c.code;
        } catch (const CompileError& e) {
            EXPECT_TRUE(has(e.what(), c.where)) << e.what();
            EXPECT_TRUE(has(e.what(), c.what)) << e.what();
        }
    }
    EXPECT_FALSE(kb::file_exists(marker)) << "candidate code ran";
}

TEST(TritonBackend, LaunchEntryMistakesAreCompileErrors) {
    auto error_of = [](CompileRequest r) -> std::string {
        try {
            shared_compiler().compile(r);
        } catch (const CompileError& e) {
            return e.what();
        }
        return "(compiled)";
    };
    CompileRequest r = vector_add_request();
    r.triton.args.pop_back();
    std::string e = error_of(r);
    EXPECT_TRUE(has(e, "takes 4 runtime argument(s) (a_ptr, b_ptr, c_ptr, n)")) << e;
    EXPECT_TRUE(has(e, "passes 3")) << e;

    r = vector_add_request();
    r.triton.constexprs.clear();
    e = error_of(r);
    EXPECT_TRUE(has(e, "'BLOCK'")) << e;
    EXPECT_TRUE(has(e, "has no value")) << e;

    r = vector_add_request();
    r.triton.constexprs.emplace_back("n", 16);
    e = error_of(r);
    EXPECT_TRUE(has(e, "does not declare it tl.constexpr")) << e;

    r = vector_add_request();
    r.triton.kernel = "vector_ad";
    r.kernel_names = {"vector_ad"};
    e = error_of(r);
    EXPECT_TRUE(has(e, "'vector_ad'")) << e;
    EXPECT_TRUE(has(e, "its kernels: vector_add")) << e;

    // A block Triton rejects: not a power of two.
    r = vector_add_request("D", 1000);
    e = error_of(r);
    EXPECT_TRUE(has(e, "vector_add.py:")) << e;
}

TEST(TritonBackend, ParallelCompilesShareThePool) {
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    for (int i = 0; i < 4; ++i)
        threads.emplace_back([&, i] {
            CompiledImage img = shared_compiler().compile(vector_add_request("", 64 << i));
            if (img.path == "triton") ++ok;
        });
    for (auto& t : threads) t.join();
    EXPECT_EQ(ok.load(), 4);
    EXPECT_LE(shared_compiler().triton_backend().live_workers(), shared_compiler().triton_backend().max_workers());
}

// A hang, a crash or an exception inside the worker costs that worker only;
// the next compile gets a fresh one.
TEST(TritonBackend, FaultsCostOneWorker) {
    CompilerConfig cc;
    cc.triton_workers = 1;
    Compiler c(cc);
    c.triton_backend().enable_test_hooks();
    c.triton_backend().set_deadline_s(5);
    EXPECT_EQ(c.compile(vector_add_request("D", 64)).path, "triton");
    int block = 128;  // a new request each time: a cached image would not reach a worker
    for (const char* fault : {"hang", "crash", "exception"}) {
        SCOPED_TRACE(fault);
        c.triton_backend().inject_fault_once(fault);
        block *= 2;
        try {
            c.compile(vector_add_request("D", block));
            ADD_FAILURE() << "no fault";
        } catch (const CompileError& e) {
            if (std::string(fault) == "hang")
                EXPECT_TRUE(has(e.what(), "did not finish")) << e.what();
            else
                EXPECT_TRUE(has(e.what(), "crashed")) << e.what();
            if (std::string(fault) == "exception") EXPECT_TRUE(has(e.log(), "test fault")) << e.log();
        }
        EXPECT_EQ(c.triton_backend().live_workers(), 0u);
        CompiledImage img = c.compile(vector_add_request("D", block));
        EXPECT_EQ(img.path, "triton");
        EXPECT_EQ(c.triton_backend().live_workers(), 1u);
    }
}

TEST(TritonBackend, MissingInterpreterOrTritonSaysHowToFixIt) {
    CompilerConfig cc;
    cc.python = "/nonexistent/kbench/python3";
    Compiler c(cc);
    try {
        c.compile(vector_add_request());
        FAIL() << "compiled";
    } catch (const kb::Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_NOT_FOUND);
        EXPECT_TRUE(has(e.what(), "/nonexistent/kbench/python3")) << e.what();
        EXPECT_TRUE(has(e.what(), "KBENCH_PYTHON")) << e.what();
        EXPECT_TRUE(has(e.what(), "pip install triton")) << e.what();
    }
    // An interpreter without Triton: the same Python without its site
    // packages (-S), through a wrapper script.
    std::string dir = kb::make_temp_dir("kbench-triton-nopkg-");
    std::string wrapper = dir + "/python-without-site";
    kb::write_file_atomic(wrapper, "#!/bin/sh\nexec \"" + shared_compiler().triton_backend().python() + "\" -S \"$@\"\n");
    ::chmod(wrapper.c_str(), 0755);
    cc.python = wrapper;
    Compiler d(cc);
    try {
        d.triton_backend().version();
        FAIL() << "found Triton without site packages";
    } catch (const kb::Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_NOT_FOUND);
        EXPECT_TRUE(has(e.what(), "cannot import triton")) << e.what();
        EXPECT_TRUE(has(e.what(), wrapper)) << e.what();
    }
    kb::remove_tree(dir);
}

}  // namespace
