// The C API's contract on a machine without a GPU: status codes, the
// thread-local error, options versions, NULL tolerance, compile-only contexts.
#include <gtest/gtest.h>

#include <cstring>

#include <string>
#include <thread>
#include <tuple>

#include "kbench.h"
#include "capi/versioned.h"
#include "util/json.h"
#include "support/task_paths.h"

namespace {

std::string task_path(const char* name) { return kb::test::builtin_task_file(name); }

bool have_device() {
    int n = 0;
    return kb_device_count(&n) == KB_OK && n > 0;
}

}  // namespace

TEST(CApi, VersionAndStrings) {
    EXPECT_EQ(kb_version_number(), unsigned(KB_VERSION_NUMBER));
    EXPECT_STREQ(kb_verdict_string(KB_VERDICT_WRONG_ANSWER), "wrong_answer");
    EXPECT_STREQ(kb_verdict_string(KB_VERDICT_PASS), "pass");
    // Appended for batch runs of model answers (docs/batch.md); never renumbered.
    EXPECT_EQ(int(KB_VERDICT_NO_CODE), 10);
    EXPECT_STREQ(kb_verdict_string(KB_VERDICT_NO_CODE), "no_code");
    EXPECT_STREQ(kb_status_string(KB_ERR_TASK_INVALID), "task invalid");
    EXPECT_STRNE(kb_status_string(kb_status(999)), "");
    EXPECT_NE(kb_last_error(), nullptr);
}

TEST(CApi, DestroyAcceptsNull) {
    kb_context_destroy(nullptr);
    kb_task_destroy(nullptr);
    kb_kernel_destroy(nullptr);
    kb_result_destroy(nullptr);
}

TEST(CApi, NullArgumentsAreErrorsNotCrashes) {
    EXPECT_EQ(kb_load_task(nullptr, nullptr), KB_ERR_INVALID_ARGUMENT);
    kb_task* t = nullptr;
    EXPECT_EQ(kb_load_task(nullptr, &t), KB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(kb_last_error()).find("source"), std::string::npos);
    EXPECT_EQ(kb_compile(nullptr, nullptr, nullptr, nullptr), KB_ERR_INVALID_ARGUMENT);
    kb_result* r = nullptr;
    EXPECT_EQ(kb_score(nullptr, nullptr, nullptr, nullptr, &r), KB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(r, nullptr);
    EXPECT_EQ(kb_context_options_init(nullptr, KB_CONTEXT_OPTIONS_VERSION), KB_ERR_INVALID_ARGUMENT);
}

TEST(CApi, UnknownOptionsVersionsAreRejected) {
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.version = 99;
    kb_context* c = nullptr;
    EXPECT_EQ(kb_context_create(&o, &c), KB_ERR_UNSUPPORTED_VERSION);
    EXPECT_EQ(c, nullptr);
    EXPECT_NE(std::string(kb_last_error()).find("99"), std::string::npos);
    kb_time_options t;
    EXPECT_EQ(kb_time_options_init(&t, 2), KB_ERR_UNSUPPORTED_VERSION);
    EXPECT_EQ(kb_time_options_init(&t, KB_TIME_OPTIONS_VERSION), KB_OK);
    EXPECT_EQ(t.case_index, -1);
}

TEST(CApi, EveryVersionUpToTheCurrentOneIsRead) {
    // A caller built against version 1 of each struct keeps working whatever
    // the current version is: 1 is always accepted, 0 and newer ones are not.
    EXPECT_EQ(kb::capi::unsupported_version<kb_context_options>(1), "");
    EXPECT_EQ(kb::capi::unsupported_version<kb_score_options>(kb::capi::current_version<kb_score_options>()), "");
    std::string zero = kb::capi::unsupported_version<kb_time_options>(0);
    EXPECT_NE(zero.find("KB_TIME_OPTIONS_INIT"), std::string::npos) << zero;
    std::string newer = kb::capi::unsupported_version<kb_candidate>(kb::capi::current_version<kb_candidate>() + 1);
    EXPECT_NE(newer.find("newer kbench library"), std::string::npos) << newer;

    // A version-1 struct, as a v1 caller fills it, through the real calls.
    kb_context_options v1;
    std::memset(&v1, 0xab, sizeof v1);
    ASSERT_EQ(kb_context_options_init(&v1, 1), KB_OK) << kb_last_error();
    EXPECT_EQ(v1.version, 1u);
    v1.device = KB_DEVICE_NONE;
    kb_context* c = nullptr;
    ASSERT_EQ(kb_context_create(&v1, &c), KB_OK) << kb_last_error();
    kb_context_destroy(c);
    kb_score_options so;
    ASSERT_EQ(kb_score_options_init(&so, 1), KB_OK);
    EXPECT_EQ(so.timing.case_index, -1);
}

TEST(CApi, BadTaskNamesThePlace) {
    kb_task* t = nullptr;
    EXPECT_EQ(kb_load_task("{\"format\": \"kbench-task/1\"}", &t), KB_ERR_TASK_INVALID);
    EXPECT_EQ(t, nullptr);
    EXPECT_STRNE(kb_last_error(), "");
    EXPECT_EQ(kb_load_task("/no/such/task.json", &t), KB_ERR_IO);
    EXPECT_NE(std::string(kb_last_error()).find("/no/such/task.json"), std::string::npos);
}

TEST(CApi, LastErrorIsPerThread) {
    kb_task* t = nullptr;
    ASSERT_EQ(kb_load_task("/no/such/task.json", &t), KB_ERR_IO);
    std::string other;
    std::thread th([&] { other = kb_last_error(); });
    th.join();
    EXPECT_EQ(other, "");
    EXPECT_NE(std::string(kb_last_error()), "");
}

TEST(CApi, DefaultContextWithoutDeviceSaysNoDevice) {
    if (have_device()) GTEST_SKIP() << "a device is present";
    kb_context* c = nullptr;
    EXPECT_EQ(kb_context_create(nullptr, &c), KB_ERR_NO_DEVICE);
    EXPECT_EQ(c, nullptr);
    EXPECT_NE(std::string(kb_last_error()).find("KB_DEVICE_NONE"), std::string::npos) << kb_last_error();
    int n = -1;
    EXPECT_EQ(kb_device_count(&n), KB_OK);
    EXPECT_EQ(n, 0);
}

// The containment flags reach the context (docs/isolation.md, "Contained
// faults and hangs"), which says what it contains: by default the builds
// only compared, with KB_CONTEXT_CONTAIN_TRAPS every build, with
// KB_CONTEXT_NO_CONTAIN_TRAPS none. Both at once, or a bit the library does
// not know, is the caller's error.
TEST(CApi, TheContainmentFlagsReachTheContext) {
    ::unsetenv("KBENCH_CONTAIN_TRAPS");
    const std::pair<unsigned, const char*> cases[] = {
        {0u, "comparisons"}, {KB_CONTEXT_CONTAIN_TRAPS, "all"}, {KB_CONTEXT_NO_CONTAIN_TRAPS, "none"}};
    for (const auto& [flags, name] : cases) {
        kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
        o.device = KB_DEVICE_NONE;
        o.flags = flags;
        kb_context* c = nullptr;
        ASSERT_EQ(kb_context_create(&o, &c), KB_OK) << kb_last_error();
        kb::Json info = kb::Json::parse(kb_context_json(c));
        EXPECT_EQ(info["containment"], name) << info.dump(2);
        EXPECT_EQ(info["contain_traps"], flags == KB_CONTEXT_CONTAIN_TRAPS) << info.dump(2);
        kb_context_destroy(c);
    }
    // The variable overrides the flags: 0 the default, comparisons a context that asked for none.
    const std::tuple<const char*, unsigned, const char*> overrides[] = {
        {"0", 0u, "none"}, {"comparisons", KB_CONTEXT_NO_CONTAIN_TRAPS, "comparisons"}, {"1", 0u, "all"}};
    for (const auto& [value, flags, name] : overrides) {
        ::setenv("KBENCH_CONTAIN_TRAPS", value, 1);
        kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
        o.device = KB_DEVICE_NONE;
        o.flags = flags;
        kb_context* c = nullptr;
        ASSERT_EQ(kb_context_create(&o, &c), KB_OK) << kb_last_error();
        EXPECT_EQ(kb::Json::parse(kb_context_json(c))["containment"], name) << "KBENCH_CONTAIN_TRAPS=" << value;
        kb_context_destroy(c);
    }
    ::unsetenv("KBENCH_CONTAIN_TRAPS");

    const std::pair<unsigned, const char*> refused[] = {
        {KB_CONTEXT_CONTAIN_TRAPS | KB_CONTEXT_NO_CONTAIN_TRAPS, "keep one"}, {0x100u, "does not know (256)"}};
    for (const auto& [flags, says] : refused) {
        kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
        o.device = KB_DEVICE_NONE;
        o.flags = flags;
        kb_context* c = nullptr;
        EXPECT_EQ(kb_context_create(&o, &c), KB_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(c, nullptr);
        EXPECT_NE(std::string(kb_last_error()).find(says), std::string::npos) << kb_last_error();
        EXPECT_NE(std::string(kb_last_error()).find("kb_context_options.flags"), std::string::npos) << kb_last_error();
    }
}

// $KBENCH_GPU_SHARERS caps how many lanes run correctness work on the GPU
// at once (engine/gpu_phase.h); the context says the cap (0: none), and a
// setting that is not a number of lanes is refused with the fix.
TEST(CApi, TheGpuSharersSettingReachesTheContext) {
    const std::pair<const char*, unsigned> good[] = {{"", 0u}, {"3", 3u}};
    for (const auto& [value, cap] : good) {
        ::setenv("KBENCH_GPU_SHARERS", value, 1);
        kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
        o.device = KB_DEVICE_NONE;
        kb_context* c = nullptr;
        ASSERT_EQ(kb_context_create(&o, &c), KB_OK) << kb_last_error();
        EXPECT_EQ(kb::Json::parse(kb_context_json(c))["gpu_sharers"], cap) << "KBENCH_GPU_SHARERS=" << value;
        kb_context_destroy(c);
    }
    for (const char* value : {"0", "two", "4x", "-1", "99999"}) {
        ::setenv("KBENCH_GPU_SHARERS", value, 1);
        kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
        o.device = KB_DEVICE_NONE;
        kb_context* c = nullptr;
        EXPECT_EQ(kb_context_create(&o, &c), KB_ERR_INVALID_ARGUMENT) << "KBENCH_GPU_SHARERS=" << value;
        EXPECT_EQ(c, nullptr);
        const std::string why = kb_last_error();
        EXPECT_NE(why.find("$KBENCH_GPU_SHARERS is '" + std::string(value) + "', not a number from 1 to 1024"),
                  std::string::npos)
            << why;
        EXPECT_NE(why.find("unset it for every lane"), std::string::npos) << why;
    }
    ::unsetenv("KBENCH_GPU_SHARERS");
}

TEST(CApi, CompileOnlyContextCompilesAndRefusesToRun) {
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.device = KB_DEVICE_NONE;
    kb_context* c = nullptr;
    ASSERT_EQ(kb_context_create(&o, &c), KB_OK) << kb_last_error();
    kb::Json info = kb::Json::parse(kb_context_json(c));
    EXPECT_EQ(info["emit"], "ptx");
    EXPECT_TRUE(info["device"].is_null());

    kb_task* t = nullptr;
    ASSERT_EQ(kb_load_task(task_path("vector_add_f32").c_str(), &t), KB_OK) << kb_last_error();
    EXPECT_EQ(std::string(kb_task_name(t)), "vector_add_f32");
    int perf = kb_task_perf_case(t);
    EXPECT_EQ(perf, kb_task_case_count(t) - 1);
    EXPECT_EQ(kb_task_find_case(t, kb_task_case_name(t, perf)), perf);
    EXPECT_EQ(kb_task_case_name(t, 999), nullptr);

    kb_candidate cand = KB_CANDIDATE_INIT;
    cand.code = "__global__ void vector_add(const float* a, const float* b, float* c, int n) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }\n";
    kb_kernel* k = nullptr;
    ASSERT_EQ(kb_compile(c, t, &cand, &k), KB_OK) << kb_last_error();
    const void* img = nullptr;
    size_t size = 0;
    ASSERT_EQ(kb_kernel_image(k, &img, &size), KB_OK);
    EXPECT_GT(size, 0u);
    EXPECT_NE(std::string(static_cast<const char*>(img), size).find(".entry"), std::string::npos);
    kb::Json kj = kb::Json::parse(kb_kernel_json(k));
    EXPECT_EQ(kj["image"], "ptx");

    kb_result* r = nullptr;
    EXPECT_EQ(kb_compare(c, t, k, 0, 1, &r), KB_ERR_NO_DEVICE);
    EXPECT_EQ(kb_compare(c, t, k, 99, 1, &r), KB_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(kb_last_error()).find("out of range"), std::string::npos);

    // A compile error keeps the log in the detail.
    cand.code = "__global__ void vector_add(const float* a, const float* b, float* c, int n) { c[0] = undefined_thing; }";
    kb_kernel* bad = nullptr;
    EXPECT_EQ(kb_compile(c, t, &cand, &bad), KB_ERR_COMPILE);
    EXPECT_EQ(bad, nullptr);
    EXPECT_NE(std::string(kb_last_error()).find("undefined_thing"), std::string::npos) << kb_last_error();

    // A launch plan naming an unknown buffer is a task-format error.
    cand.code = "__global__ void vector_add(float* c) {}";
    cand.launch_json = "{\"launch\": [{\"kernel\": \"vector_add\", \"grid\": 1, \"block\": 32, \"args\": [\"nope\"]}]}";
    EXPECT_EQ(kb_compile(c, t, &cand, &bad), KB_ERR_TASK_INVALID);
    EXPECT_NE(std::string(kb_last_error()).find("nope"), std::string::npos) << kb_last_error();

    kb_kernel_destroy(k);
    kb_task_destroy(t);
    kb_context_destroy(c);
}

TEST(CApi, CompileIsThreadSafeOnOneContext) {
    kb_context_options o = KB_CONTEXT_OPTIONS_INIT;
    o.device = KB_DEVICE_NONE;
    kb_context* c = nullptr;
    ASSERT_EQ(kb_context_create(&o, &c), KB_OK);
    kb_task* t = nullptr;
    ASSERT_EQ(kb_load_task(task_path("vector_add_f32").c_str(), &t), KB_OK);
    std::vector<std::thread> threads;
    std::vector<int> ok(4, 0);
    for (int i = 0; i < 4; ++i) {
        threads.emplace_back([&, i] {
            std::string src = "// variant " + std::to_string(i) +
                              "\n__global__ void vector_add(const float* a, const float* b, float* c, int n) {}\n";
            kb_candidate cand = KB_CANDIDATE_INIT;
            cand.code = src.c_str();
            kb_kernel* k = nullptr;
            ok[size_t(i)] = kb_compile(c, t, &cand, &k) == KB_OK;
            kb_kernel_destroy(k);
        });
    }
    for (auto& th : threads) th.join();
    for (int v : ok) EXPECT_TRUE(v);
    kb_task_destroy(t);
    kb_context_destroy(c);
}
