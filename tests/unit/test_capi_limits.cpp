// kb_limits and version 2 of kb_context_options through the C API (no GPU):
// a program built against the version 1 header keeps working, byte for byte;
// limits reach the loader, the candidate's checks and the compilers; nothing a
// hostile candidate includes comes back in kb_last_error().
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "kbench.h"
#include "support/task_paths.h"
#include "util/json.h"

namespace {

std::string task_path(const char* name) { return kb::test::builtin_task_file(name); }
bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// kb_context_options as the version 1 header declared it.
struct kb_context_options_v1 {
    unsigned version;
    int device;
    kb_isolation isolation;
    const char* arch;
    const char* cache_dir;
    const char* cuda_home;
    const char* worker_path;
    double timeout_s;
    unsigned flags;
};
static_assert(sizeof(kb_context_options_v1) == offsetof(kb_context_options, limits),
              "version 2 only appends to version 1");

// Memory that ends where an object of type T ends, followed by a page that
// cannot be touched: reading or writing one byte past T crashes the test.
template <class T>
class AtPageEnd {
public:
    AtPageEnd() {
        page_ = size_t(::sysconf(_SC_PAGESIZE));
        base_ = static_cast<char*>(::mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
        EXPECT_NE(base_, MAP_FAILED);
        EXPECT_EQ(::mprotect(base_ + page_, page_, PROT_NONE), 0);
        obj_ = reinterpret_cast<T*>(base_ + page_ - sizeof(T));
        std::memset(static_cast<void*>(obj_), 0, sizeof(T));
    }
    ~AtPageEnd() { ::munmap(base_, 2 * page_); }
    T* get() { return obj_; }

private:
    size_t page_ = 0;
    char* base_ = nullptr;
    T* obj_ = nullptr;
};

TEST(CApiVersions, AVersionOneContextOptionsStructStillWorks) {
    AtPageEnd<kb_context_options_v1> v1;
    // _init writes version 1's bytes and no more.
    ASSERT_EQ(kb_context_options_init(reinterpret_cast<kb_context_options*>(v1.get()), 1), KB_OK) << kb_last_error();
    EXPECT_EQ(v1.get()->version, 1u);
    EXPECT_EQ(v1.get()->isolation, KB_ISOLATION_DEFAULT);
    v1.get()->device = KB_DEVICE_NONE;
    // _create reads version 1's bytes and no more; `limits` takes its default.
    kb_context* ctx = nullptr;
    ASSERT_EQ(kb_context_create(reinterpret_cast<const kb_context_options*>(v1.get()), &ctx), KB_OK) << kb_last_error();
    kb::Json info = kb::Json::parse(kb_context_json(ctx));
    EXPECT_EQ(info["compile_limits"]["memory_bytes"].get<uint64_t>(), uint64_t(8) << 30);
    kb_task* task = nullptr;
    ASSERT_EQ(kb_load_task(task_path("vector_add_f32").c_str(), &task), KB_OK) << kb_last_error();
    kb_candidate cand = KB_CANDIDATE_INIT;
    std::string path = kb::test::builtin_task_dir("vector_add_f32") + "/reference.cu";
    cand.path = path.c_str();
    cand.launch_json = R"J({"launch": [{"kernel": "vector_add_ref", "grid": "ceil_div(n, 256)", "block": 256,
                                        "args": ["a", "b", "c", "n"]}]})J";
    kb_kernel* k = nullptr;
    EXPECT_EQ(kb_compile(ctx, task, &cand, &k), KB_OK) << kb_last_error();
    kb_kernel_destroy(k);
    kb_task_destroy(task);
    kb_context_destroy(ctx);
}

TEST(CApiVersions, EveryVersionUpToTheLibrarysAndNoOther) {
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    EXPECT_EQ(o.version, 2u);
    EXPECT_EQ(o.limits, nullptr);
    kb_context* c = nullptr;
    for (unsigned bad : {0u, 3u, 99u}) {
        o.version = bad;
        EXPECT_EQ(kb_context_create(&o, &c), KB_ERR_UNSUPPORTED_VERSION);
        EXPECT_TRUE(has(kb_last_error(), "versions 1..2")) << kb_last_error();
        EXPECT_EQ(kb_context_options_init(&o, bad), KB_ERR_UNSUPPORTED_VERSION);
    }
    kb_limits l;
    EXPECT_EQ(kb_limits_init(&l, 2), KB_ERR_UNSUPPORTED_VERSION);
    EXPECT_EQ(kb_limits_init(&l, KB_LIMITS_VERSION), KB_OK);
    l.version = 7;
    o = kb_context_options KB_CONTEXT_OPTIONS_INIT;
    o.device = KB_DEVICE_NONE;
    o.limits = &l;
    EXPECT_EQ(kb_context_create(&o, &c), KB_ERR_UNSUPPORTED_VERSION);
    EXPECT_TRUE(has(kb_last_error(), "kb_limits.version 7")) << kb_last_error();
}

TEST(CApiLimits, InitGivesTheDefaultsAsValues) {
    kb_limits l;
    std::memset(&l, 0xff, sizeof l);
    ASSERT_EQ(kb_limits_init(&l, KB_LIMITS_VERSION), KB_OK);
    EXPECT_EQ(l.version, unsigned(KB_LIMITS_VERSION));
    EXPECT_EQ(l.max_document_bytes, uint64_t(64) << 20);
    EXPECT_EQ(l.max_json_depth, 64u);
    EXPECT_EQ(l.max_source_bytes, uint64_t(16) << 20);
    EXPECT_EQ(l.max_cases, 256u);
    EXPECT_EQ(l.max_expression_chars, 1024u);
    EXPECT_EQ(l.max_expression_depth, 32u);
    EXPECT_EQ(l.compile_memory_bytes, uint64_t(8) << 30);
    EXPECT_EQ(l.compile_cpu_s, 180.0);
    EXPECT_EQ(l.compile_wall_s, 300.0);
    EXPECT_EQ(l.compile_file_bytes, uint64_t(1) << 30);
    // The zeros of KB_LIMITS_INIT mean the same defaults.
    kb_limits zeros = KB_LIMITS_INIT;
    EXPECT_EQ(zeros.max_cases, 0u);
}

TEST(CApiLimits, LoadTaskWithLimits) {
    std::string deep;
    for (int i = 0; i < 100000; ++i) deep += "{\"a\":";
    kb_task* t = nullptr;
    EXPECT_EQ(kb_load_task(deep.c_str(), &t), KB_ERR_TASK_INVALID);
    EXPECT_TRUE(has(kb_last_error(), "nests deeper than 64")) << kb_last_error();
    kb_limits l = KB_LIMITS_INIT;
    l.max_cases = 2;
    EXPECT_EQ(kb_load_task_with_limits(task_path("vector_add_f32").c_str(), &l, &t), KB_ERR_TASK_INVALID);
    EXPECT_TRUE(has(kb_last_error(), "kb_limits.max_cases")) << kb_last_error();
    EXPECT_EQ(t, nullptr);
    EXPECT_EQ(kb_load_task_with_limits(task_path("vector_add_f32").c_str(), nullptr, &t), KB_OK) << kb_last_error();
    kb_task_destroy(t);
    l.compile_wall_s = -1;
    EXPECT_EQ(kb_load_task_with_limits(task_path("vector_add_f32").c_str(), &l, &t), KB_ERR_INVALID_ARGUMENT);
}

class CompileOnly : public testing::Test {
protected:
    void make(const kb_limits* limits) {
        kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
        o.device = KB_DEVICE_NONE;
        o.limits = limits;
        ASSERT_EQ(kb_context_create(&o, &ctx_), KB_OK) << kb_last_error();
        ASSERT_EQ(kb_load_task(task_path("vector_add_f32").c_str(), &task_), KB_OK) << kb_last_error();
    }
    void TearDown() override {
        kb_task_destroy(task_);
        kb_context_destroy(ctx_);
    }
    kb_status compile(const std::string& code) {
        kb_candidate c = KB_CANDIDATE_INIT;
        c.code = code.data();
        c.code_size = code.size();
        kb_kernel* k = nullptr;
        kb_status s = kb_compile(ctx_, task_, &c, &k);
        kb_kernel_destroy(k);
        return s;
    }
    kb_context* ctx_ = nullptr;
    kb_task* task_ = nullptr;
};

TEST_F(CompileOnly, FiftyMegabyteCandidateIsACompileErrorNamingTheLimit) {
    make(nullptr);
    std::string big = "// " + std::string(50u << 20, 'x') + "\n";
    EXPECT_EQ(compile(big), KB_ERR_COMPILE);
    EXPECT_TRUE(has(kb_last_error(), "bytes long, more than 16 MiB")) << std::string(kb_last_error()).substr(0, 300);
    EXPECT_TRUE(has(kb_last_error(), "kb_limits.max_source_bytes"));
}

TEST_F(CompileOnly, ContextLimitsReachTheCompilersAndTheCandidatesPlan) {
    kb_limits l = KB_LIMITS_INIT;
    l.compile_memory_bytes = uint64_t(3) << 30;
    l.compile_cpu_s = 20;
    l.compile_wall_s = 40;
    l.compile_file_bytes = UINT64_MAX;  // none
    l.max_source_bytes = 100;
    make(&l);
    kb::Json info = kb::Json::parse(kb_context_json(ctx_));
    EXPECT_EQ(info["compile_limits"]["memory_bytes"].get<uint64_t>(), uint64_t(3) << 30);
    EXPECT_EQ(info["compile_limits"]["cpu_s"].get<double>(), 20.0);
    EXPECT_EQ(info["compile_limits"]["wall_s"].get<double>(), 40.0);
    EXPECT_EQ(info["compile_limits"]["file_bytes"].get<uint64_t>(), 0u);
    EXPECT_EQ(compile(std::string(200, ' ') + "__global__ void vector_add() {}"), KB_ERR_COMPILE);
    EXPECT_TRUE(has(kb_last_error(), "more than 100 bytes")) << kb_last_error();
}

TEST_F(CompileOnly, HostileIncludesComeBackAsErrorsWithoutTheFilesContent) {
    make(nullptr);
    const char* kernel = "\n__global__ void vector_add(const float* a, const float* b, float* c, int n) {}\n";
    for (const char* inc : {"#include \"/etc/passwd\"", "#include \"/proc/self/environ\"", "#include \"/dev/zero\"",
                            "#include \"../secret.h\""}) {
        EXPECT_EQ(compile(std::string(inc) + kernel), KB_ERR_COMPILE) << inc;
        std::string err = kb_last_error();
        EXPECT_TRUE(has(err, inc + 9)) << err;  // names the directive
        EXPECT_FALSE(has(err, "root:")) << err;
        EXPECT_FALSE(has(err, "PATH=")) << err;
    }
}

}  // namespace
