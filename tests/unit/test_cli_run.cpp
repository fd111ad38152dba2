// kbench run, as a user runs it, on a machine without a GPU (--compile-only):
// --help, usage errors and their JSON, the verdict of every kind of line,
// resume (everything skipped, no duplicates), a cut-off last line repaired,
// and Ctrl-C in the middle of a run followed by a resumed run that completes
// the rest. The scored run on a GPU is tests/gpu/test_cli_run_gpu.cpp.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "device/no_device_advice.h"
#include "kbench.h"
#include "support/temp_dir.h"
#include "util/json.h"

namespace {

using kb::Json;
namespace fs = std::filesystem;

const std::string kKbench = std::string(KB_BINARY_DIR) + "/kbench";
const std::string kSource = KB_SOURCE_DIR;

struct Outcome {
    int rc = -1;
    std::string out, err;
};

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs `kbench <args>` through the shell, from the source folder.
Outcome kbench(const std::string& args) {
    static int n = 0;
    std::string base = (fs::temp_directory_path() / ("kb_run_" + std::to_string(::getpid()) + "_" + std::to_string(n++))).string();
    std::string cmd = "cd '" + kSource + "' && '" + kKbench + "' " + args + " < /dev/null > '" + base + ".out' 2> '" +
                      base + ".err'";
    int status = std::system(cmd.c_str());
    Outcome r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(base + ".out");
    r.err = slurp(base + ".err");
    fs::remove(base + ".out");
    fs::remove(base + ".err");
    return r;
}

Json json_of(const Outcome& r) {
    try {
        return Json::parse(r.out);
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not JSON (" << e.what() << "):\n" << r.out << "\nstderr:\n" << r.err;
        return Json();
    }
}

// Every line of a results file, parsed; a line that is not a whole JSON
// object fails the test.
std::vector<Json> result_lines(const std::string& path) {
    std::vector<Json> out;
    std::string text = slurp(path);
    if (!text.empty()) {
        EXPECT_EQ(text.back(), '\n') << path << " does not end with a whole line";
    }
    size_t p = 0;
    while (p < text.size()) {
        size_t e = text.find('\n', p);
        if (e == std::string::npos) e = text.size();
        std::string line = text.substr(p, e - p);
        p = e + 1;
        try {
            Json j = Json::parse(line);
            EXPECT_TRUE(j.is_object()) << line;
            out.push_back(j);
        } catch (const std::exception& ex) {
            ADD_FAILURE() << path << ": a line is not JSON (" << ex.what() << "): " << line;
        }
    }
    return out;
}

std::string key_of(const Json& j) {
    return j["task"].get<std::string>() + "|" + (j["id"].is_string() ? j["id"].get<std::string>() : j["id"].dump());
}

const char* kCorrect =
    "__global__ void vector_add(const float* a, const float* b, float* c, int n) {\n"
    "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
    "        c[i] = a[i] + b[i];\n"
    "}\n";

// The mixed file of the verdict test: (id, line, expected verdict).
struct Line {
    std::string id;
    Json line;
    std::string verdict;
};

std::vector<Line> mixed_lines(const std::string& dir) {
    std::ofstream(dir + "/doc_kernel.cu") << kCorrect;
    const std::string fenced = std::string("Here is the kernel:\n\n```cuda\n") + kCorrect + "```\nHope it helps!";
    const std::string other = "__global__ void vector_add(const float* a, const float* b, float* c, int n) {\n"
                              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = a[i] - b[i];\n}\n";
    const std::string broken = std::string("```cuda\n__global__ void vector_add(const float* a, const float* b, float* c, int n) {\n") +
                               "    kbench_undeclared_helper(threadIdx.x);\n}\n```\n";
    return {
        {"fenced", {{"task", "vector_add_f32"}, {"id", "fenced"}, {"answer", fenced}}, "compiled"},
        {"r1", {{"task", "vector_add_f32"}, {"id", "r1"}, {"sample", 1}, {"model", "m"},
                {"answer", std::string("<think>\nindexing...\n</think>\n\n```cuda\n") + kCorrect + "```\n"}}, "compiled"},
        {"doc", {{"task", "vector_add_f32"}, {"id", "doc"},
                 {"candidate", {{"format", "kbench-candidate/1"}, {"source_file", "doc_kernel.cu"}}}}, "compiled"},
        {"prose", {{"task", "vector_add_f32"}, {"id", "prose"}, {"answer", "I cannot write that kernel, sorry."}}, "no_code"},
        {"ambiguous", {{"task", "vector_add_f32"}, {"id", "ambiguous"},
                       {"answer", "One way:\n\n```cuda\n" + std::string(kCorrect) + "```\n\nAnother way:\n\n```cuda\n" + other + "```\n"}},
         "no_code"},
        {"broken", {{"task", "vector_add_f32"}, {"id", "broken"}, {"answer", broken}}, "compile_error"},
        {"path", {{"task", kSource + "/tasks/elementwise/vector_add_f32/task.json"}, {"id", 7}, {"answer", fenced}}, "compiled"},
    };
}

std::string write_candidates(const std::string& path, const std::vector<Line>& lines) {
    std::ofstream f(path);
    for (const Line& l : lines) f << l.line.dump() << "\n";
    return path;
}

TEST(CliRun, HelpHasAnExample) {
    Outcome r = kbench("run --help");
    EXPECT_EQ(r.rc, 0);
    EXPECT_NE(r.out.find("usage: kbench run"), std::string::npos);
    EXPECT_NE(r.out.find("examples:"), std::string::npos);
    EXPECT_NE(r.out.find("--compile-only"), std::string::npos);
    Outcome all = kbench("--help");
    EXPECT_NE(all.out.find("run --candidates F --out F"), std::string::npos) << all.out;
}

TEST(CliRun, UsageAndInputErrorsAreJsonWithJson) {
    kb::test::TempDir dir("kb_run_usage");
    const std::string d = dir.path();
    std::ofstream(d + "/empty.jsonl") << "\n\n";
    fs::create_directories(d + "/folder");
    std::ofstream(d + "/bad.jsonl") << "{\"task\": \"vector_add_f32\", \"id\": 1, \"answr\": \"x\"}\n";
    struct Case {
        std::string args;
        int rc;
        std::string part;
    } cases[] = {
        {"run --json --tasks tasks --candidates " + d + "/empty.jsonl", 2, "no --out given"},
        {"run --json --candidates x.jsonl --out y.jsonl", 2, "no --tasks given"},
        {"run --json --tasks tasks --out y.jsonl", 2, "no --candidates given"},
        {"run --json --bogus", 2, "unknown option '--bogus'"},
        {"run --json --tasks tasks --candidates a --out b --isolation maybe", 2, "--isolation expects worker or none"},
        {"run --json --tasks tasks --candidates a --out b --jobs 0", 2, "--jobs expects"},
        {"run --json --tasks tasks --candidates a --out b --lanes 17", 2, "--lanes expects a number from 1 to 16"},
        {"run --json --tasks tasks --candidates a --out b --lanes 2x", 2, "--lanes expects"},
        {"run --json --tasks tasks --candidates a --out b --compile-only --lanes 2", 2, "--lanes does not apply"},
        {"run --json --tasks tasks --candidates a --out b --isolation none --lanes 2", 2, "needs --isolation worker"},
        {"run --json --tasks tasks --candidates a --out b --ray auto --lanes 2", 2, "--lanes does not apply with --ray"},
        {"run --json --tasks tasks --candidates a --out b --keep-pool eval", 2, "--keep-pool applies with --ray only"},
        {"run --json --tasks tasks --candidates a --out b --ray local --keep-pool eval", 2,
         "--keep-pool needs a running Ray cluster"},
        {"run --json --tasks tasks --candidates a --out b --ray auto --keep-pool", 2, "--keep-pool needs a value"},
        {"run --json --tasks tasks --candidates a --out b --compile-only --gpus 0", 2, "--gpus does not apply"},
        {"run --json --tasks tasks --candidates a --out b --gpus 0,x", 2, "--gpus expects 'all' or GPU numbers"},
        {"run --json --tasks tasks --candidates a --out b --gpus 1,1", 2, "names GPU 1 twice"},
        {"run --json --tasks tasks --candidates a --out b --ray auto --jobs 2", 2, "--jobs does not apply with --ray"},
        {"run --json --tasks tasks --candidates a --out b --ray auto --no-contain-traps", 2,
         "--no-contain-traps does not apply with --ray"},
        {"run --json --tasks tasks --candidates " + d + "/none.jsonl --out " + d + "/r.jsonl", 1, "none.jsonl"},
        {"run --json --tasks tasks --candidates " + d + "/folder --out " + d + "/r.jsonl", 1, "is a directory"},
        {"run --json --tasks tasks --candidates " + d + "/empty.jsonl --out " + d + "/r.jsonl", 1, "holds no candidate"},
        {"run --json --tasks tasks --candidates " + d + "/bad.jsonl --out " + d + "/r.jsonl", 1, "invalid line"},
        {"run --json --compile-only --tasks no_such_tasks --candidates " + d + "/bad.jsonl --out " + d + "/r.jsonl", 1, "invalid line"},
    };
    for (const Case& c : cases) {
        Outcome r = kbench(c.args);
        EXPECT_EQ(r.rc, c.rc) << c.args << "\n" << r.out << r.err;
        Json j = json_of(r);
        ASSERT_TRUE(j.is_object()) << c.args;
        EXPECT_NE(j["error"].value("message", "").find(c.part), std::string::npos) << c.args << ": " << r.out;
        EXPECT_EQ(j["error"].value("kind", ""), c.rc == 2 ? "usage" : "failure") << c.args;
    }
    // The bad line is named with its line number and the fix.
    Outcome bad = kbench("run --json --tasks tasks --candidates " + d + "/bad.jsonl --out " + d + "/r.jsonl");
    Json j = json_of(bad);
    ASSERT_TRUE(j["error"]["errors"].is_array());
    EXPECT_EQ(j["error"]["errors"][0]["line"], 1);
    EXPECT_NE(j["error"]["errors"][0]["message"].get<std::string>().find("did you mean \"answer\""), std::string::npos);
    // Without --json the error goes to stderr and stdout stays empty.
    Outcome text = kbench("run --tasks tasks --candidates " + d + "/empty.jsonl --out " + d + "/r.jsonl");
    EXPECT_EQ(text.rc, 1);
    EXPECT_TRUE(text.out.empty());
    EXPECT_NE(text.err.find("kbench run: "), std::string::npos);
    EXPECT_FALSE(fs::exists(d + "/r.jsonl")) << "nothing is written when the input is invalid";

    // Scoring needs a GPU; without one the run says so and writes nothing.
    int devices = 0;
    if (kb_device_count(&devices) == KB_OK && devices == 0) {
        std::ofstream(d + "/one.jsonl") << "{\"task\": \"vector_add_f32\", \"id\": 1, \"answer\": \"```cuda\\n__global__ void vector_add() {}\\n```\"}\n";
        Outcome r = kbench("run --json --tasks tasks --candidates " + d + "/one.jsonl --out " + d + "/r.jsonl");
        EXPECT_EQ(r.rc, 1) << r.out << r.err;
        const std::string error = json_of(r)["error"].value("message", "");
        EXPECT_NE(error.find("use --compile-only"), std::string::npos) << r.out;
        EXPECT_EQ(error.find(kb::compile_only_advice()), std::string::npos) << "the library's advice, for its callers: " << r.out;
        EXPECT_FALSE(fs::exists(d + "/r.jsonl"));
    }
}

// The library's no-device advice comes off the reason exactly, wherever it
// was added (a worker's refusal quoted in the host's message too), and
// nothing else does.
TEST(CliRun, TheLibrarysNoDeviceAdviceComesOffTheReasonAlone) {
    const std::string reason = "GPU 1: CUDA device 1 does not exist: 1 device(s) visible (ordinals 0..0)";
    EXPECT_EQ(kb::without_compile_only_advice(kb::with_compile_only_advice(reason)), reason);
    const std::string quoted = "worker: " + kb::with_compile_only_advice("no CUDA driver: install the NVIDIA driver");
    EXPECT_EQ(kb::without_compile_only_advice(kb::with_compile_only_advice(quoted)),
              "worker: no CUDA driver: install the NVIDIA driver");
    EXPECT_EQ(kb::without_compile_only_advice("no GPU; use a GPU"), "no GPU; use a GPU");
}

TEST(CliRun, CompileOnlyGivesEachLineItsVerdict) {
    kb::test::TempDir dir("kb_run_verdicts");
    const std::string d = dir.path();
    std::vector<Line> lines = mixed_lines(d);
    lines.push_back({"lost", {{"task", "no_such_task"}, {"id", "lost"}, {"answer", "```cuda\n" + std::string(kCorrect) + "```"}},
                     "error"});
    write_candidates(d + "/c.jsonl", lines);
    Outcome r = kbench("run --json --compile-only --tasks tasks --candidates " + d + "/c.jsonl --out " + d + "/r.jsonl");
    // The unknown task is a line kbench could not score: exit 1, every line written.
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    Json s = json_of(r);
    EXPECT_EQ(s["written"], lines.size());
    EXPECT_EQ(s["skipped"], 0);
    EXPECT_EQ(s["left"], 0);
    EXPECT_EQ(s["interrupted"], false);
    EXPECT_EQ(s["errors"], 1);
    std::map<std::string, Json> by_id;
    for (const Json& j : result_lines(d + "/r.jsonl")) {
        std::string id = j["id"].is_string() ? j["id"].get<std::string>() : j["id"].dump();
        EXPECT_EQ(by_id.count(id), 0u) << "duplicate " << id;
        by_id[id] = j;
    }
    ASSERT_EQ(by_id.size(), lines.size());
    for (const Line& l : lines) {
        std::string id = l.line["id"].is_string() ? l.line["id"].get<std::string>() : l.line["id"].dump();
        const Json& j = by_id[id];
        EXPECT_EQ(j["verdict"], l.verdict) << id << ": " << j.dump();
        if (l.verdict == "compiled" || l.verdict == "compile_error") {
            EXPECT_TRUE(j.contains("compile_ms")) << id << ": " << j.dump();
        }
        EXPECT_FALSE(j.contains("gpu")) << "compile-only lines ran nowhere";
    }
    EXPECT_EQ(by_id["r1"]["sample"], 1);
    EXPECT_EQ(by_id["r1"]["model"], "m");
    EXPECT_EQ(by_id["fenced"]["family"], "elementwise");
    EXPECT_EQ(by_id["7"]["task_name"], "vector_add_f32");
    EXPECT_EQ(by_id["ambiguous"]["extraction"]["outcome"], "ambiguous");
    EXPECT_NE(by_id["broken"]["message"].get<std::string>().find("kbench_undeclared_helper"), std::string::npos)
        << by_id["broken"].dump();
    EXPECT_NE(by_id["lost"]["message"].get<std::string>().find("no_such_task"), std::string::npos);
    EXPECT_FALSE(by_id["doc"].contains("extraction")) << "a document is not extracted";

    // kbench report reads it: call accuracy only.
    Outcome rep = kbench("report --json " + d + "/r.jsonl");
    EXPECT_EQ(rep.rc, 0) << rep.err;
    Json rj = json_of(rep);
    // compiled: fenced, r1, doc, path = 4 of 8.
    EXPECT_DOUBLE_EQ(rj["call_accuracy"].get<double>(), 4.0 / 8.0) << rep.out;
}

TEST(CliRun, ResumeSkipsWhatIsDoneAndRepairsACutOffLine) {
    kb::test::TempDir dir("kb_run_resume");
    const std::string d = dir.path();
    std::vector<Line> lines = mixed_lines(d);
    write_candidates(d + "/c.jsonl", lines);
    const std::string cmd = "run --json --no-progress --compile-only --tasks tasks --candidates " + d + "/c.jsonl --out " + d + "/r.jsonl";
    Outcome first = kbench(cmd);
    ASSERT_EQ(first.rc, 0) << first.out << first.err;
    EXPECT_EQ(json_of(first)["written"], lines.size());
    std::string after_first = slurp(d + "/r.jsonl");

    // Again: everything skipped, nothing appended.
    Outcome second = kbench(cmd);
    EXPECT_EQ(second.rc, 0) << second.out << second.err;
    Json s = json_of(second);
    EXPECT_EQ(s["skipped"], lines.size());
    EXPECT_EQ(s["written"], 0);
    EXPECT_EQ(slurp(d + "/r.jsonl"), after_first);

    // Cut the file inside its last line, as a machine going down would: the
    // next run removes the partial line and scores that candidate again.
    std::vector<Json> before = result_lines(d + "/r.jsonl");
    const std::string cut_key = key_of(before.back());
    fs::resize_file(d + "/r.jsonl", after_first.size() - 25);
    Outcome third = kbench(cmd);
    EXPECT_EQ(third.rc, 0) << third.out << third.err;
    Json t = json_of(third);
    EXPECT_EQ(t["written"], 1);
    EXPECT_EQ(t["skipped"], lines.size() - 1);
    EXPECT_GT(t["repaired_bytes"].get<size_t>(), 0u);
    std::vector<Json> after = result_lines(d + "/r.jsonl");
    ASSERT_EQ(after.size(), lines.size());
    std::set<std::string> keys;
    for (const Json& j : after) EXPECT_TRUE(keys.insert(key_of(j)).second) << "duplicate " << key_of(j);
    EXPECT_EQ(key_of(after.back()), cut_key);

    // Text mode says what was skipped.
    Outcome text = kbench("run --no-progress --compile-only --tasks tasks --candidates " + d + "/c.jsonl --out " + d + "/r.jsonl");
    EXPECT_EQ(text.rc, 0);
    EXPECT_NE(text.out.find("0 written, " + std::to_string(lines.size()) + " skipped"), std::string::npos) << text.out;
}

// A candidates file of `n` distinct kernels (distinct source, so none is a
// compile-cache hit), compile-only: a run long enough to be interrupted.
void write_many(const std::string& path, int n) {
    std::ofstream f(path);
    for (int i = 0; i < n; ++i) {
        std::string code = "#define KB_VARIANT " + std::to_string(i) + "\n" +
                           "__global__ void vector_add(const float* a, const float* b, float* c, int n) {\n"
                           "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
                           "        c[i] = a[i] + b[i] * (float)(KB_VARIANT - KB_VARIANT + 1);\n}\n";
        Json line = {{"task", "vector_add_f32"}, {"id", i}, {"answer", "```cuda\n" + code + "```\n"}};
        f << line.dump() << "\n";
    }
}

size_t count_lines(const std::string& path) {
    std::string t = slurp(path);
    return size_t(std::count(t.begin(), t.end(), '\n'));
}

TEST(CliRun, CtrlCLeavesAValidFileAndAResumedRunCompletesIt) {
    kb::test::TempDir dir("kb_run_interrupt");
    const std::string d = dir.path();
    const int n = 150;
    write_many(d + "/c.jsonl", n);
    const std::string out = d + "/r.jsonl";
    // The child: kbench run with one compile thread, so it takes long enough
    // (each line is a fresh NVRTC compile) for the signal to land mid-run.
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        if (::chdir(kSource.c_str()) != 0) ::_exit(120);
        std::freopen((d + "/child.out").c_str(), "w", stdout);
        std::freopen((d + "/child.err").c_str(), "w", stderr);
        std::string cands = d + "/c.jsonl";
        ::execl(kKbench.c_str(), "kbench", "run", "--json", "--compile-only", "--jobs", "1", "--tasks", "tasks",
                "--candidates", cands.c_str(), "--out", out.c_str(), (char*)nullptr);
        ::_exit(121);
    }
    // Wait for the first lines, then Ctrl-C.
    auto start = std::chrono::steady_clock::now();
    while (count_lines(out) < 3 && std::chrono::steady_clock::now() - start < std::chrono::seconds(120)) {
        int st = 0;
        if (::waitpid(pid, &st, WNOHANG) == pid) FAIL() << "kbench run ended before the signal: " << slurp(d + "/child.err");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_GE(count_lines(out), 3u) << "no lines within 120 s: " << slurp(d + "/child.err");
    ASSERT_EQ(::kill(pid, SIGINT), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by a signal rather than stopping: " << status;
    const size_t written = count_lines(out);
    if (WEXITSTATUS(status) == 0) {
        // The whole file finished before the signal was handled: nothing to resume.
        ADD_FAILURE() << "the run completed before SIGINT landed; make the file larger";
        return;
    }
    EXPECT_EQ(WEXITSTATUS(status), 130) << slurp(d + "/child.err");
    Json summary = Json::parse(slurp(d + "/child.out"));
    EXPECT_EQ(summary["interrupted"], true);
    EXPECT_EQ(summary["written"], written);
    EXPECT_EQ(summary["left"], size_t(n) - written);
    EXPECT_LT(written, size_t(n));
    std::vector<Json> part = result_lines(out);  // every line whole
    EXPECT_EQ(part.size(), written);

    // Resumed: the rest, no duplicates, the union is every candidate.
    Outcome r = kbench("run --json --no-progress --compile-only --jobs 2 --tasks tasks --candidates " + d + "/c.jsonl --out " + out);
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    Json s = json_of(r);
    EXPECT_EQ(s["skipped"], written);
    EXPECT_EQ(s["written"], size_t(n) - written);
    std::set<std::string> keys;
    for (const Json& j : result_lines(out)) {
        EXPECT_TRUE(keys.insert(key_of(j)).second) << "duplicate " << key_of(j);
        EXPECT_EQ(j["verdict"], "compiled") << j.dump();
    }
    EXPECT_EQ(keys.size(), size_t(n));
}

TEST(CliRun, RayWithoutTheModuleSaysWhatToInstall) {
    kb::test::TempDir dir("kb_run_ray");
    const std::string d = dir.path();
    // An interpreter that does not exist.
    std::string env_none = "KBENCH_PYTHON=" + d + "/no_python ";
    std::string cmd = "cd '" + kSource + "' && " + env_none + "'" + kKbench +
                      "' run --json --ray auto --tasks tasks --candidates x.jsonl --out y.jsonl > '" + d + "/o' 2>&1";
    int st = std::system(cmd.c_str());
    EXPECT_EQ(WEXITSTATUS(st), 1);
    Json j = Json::parse(slurp(d + "/o"));
    EXPECT_NE(j["error"]["message"].get<std::string>().find("cannot run " + d + "/no_python"), std::string::npos) << j.dump();
    EXPECT_NE(j["error"]["message"].get<std::string>().find("KBENCH_PYTHON"), std::string::npos);
    // A Python that has no kbench package at all.
    std::ofstream(d + "/py") << "#!/bin/sh\nexec python3 -I -S \"$@\"\n";
    fs::permissions(d + "/py", fs::perms::owner_all);
    cmd = "cd '" + kSource + "' && KBENCH_PYTHON=" + d + "/py '" + kKbench +
          "' run --json --ray auto --tasks tasks --candidates x.jsonl --out y.jsonl > '" + d + "/o2' 2>&1";
    st = std::system(cmd.c_str());
    EXPECT_EQ(WEXITSTATUS(st), 1);
    j = Json::parse(slurp(d + "/o2"));
    EXPECT_NE(j["error"]["message"].get<std::string>().find("kbench.ray was not found"), std::string::npos) << j.dump();
}

TEST(CliRun, RayExecsTheModuleWithTheOtherFlagsUnchanged) {
    kb::test::TempDir dir("kb_run_ray_exec");
    const std::string d = dir.path();
    // A stand-in interpreter: it finds the module, and records what it is run with.
    std::ofstream(d + "/py") << "#!/bin/sh\n"
                                "if [ \"$1\" = -c ]; then exit 0; fi\n"
                                "printf '%s\\n' \"$@\" > " + d + "/argv\n"
                                "printf '%s' \"$KBENCH_CLI\" > " + d + "/cli\n"
                                "exit 7\n";
    fs::permissions(d + "/py", fs::perms::owner_all);
    std::string cmd = "cd '" + kSource + "' && env -u KBENCH_CLI KBENCH_PYTHON=" + d + "/py '" + kKbench +
                      "' run --tasks tasks extra_tasks --ray 10.0.0.1:6379 --candidates c.jsonl --out r.jsonl --compile-only --json"
                      " --keep-pool eval > /dev/null 2>&1";
    int st = std::system(cmd.c_str());
    EXPECT_EQ(WEXITSTATUS(st), 7) << "the module's exit status is kbench run's";
    EXPECT_EQ(slurp(d + "/argv"),
              "-m\nkbench.ray\nrun\n--address\n10.0.0.1:6379\n--tasks\ntasks\nextra_tasks\n--candidates\nc.jsonl\n"
              "--out\nr.jsonl\n--compile-only\n--json\n--keep-pool\neval\n");
    // kbench.ray extracts with this kbench, not whichever PATH holds...
    EXPECT_EQ(fs::canonical(slurp(d + "/cli")), fs::canonical(kKbench));
    // ...unless the caller named one.
    cmd = "cd '" + kSource + "' && KBENCH_CLI=/opt/other/kbench KBENCH_PYTHON=" + d + "/py '" + kKbench +
          "' run --tasks tasks --ray auto --candidates c.jsonl --out r.jsonl --compile-only > /dev/null 2>&1";
    st = std::system(cmd.c_str());
    EXPECT_EQ(WEXITSTATUS(st), 7);
    EXPECT_EQ(slurp(d + "/cli"), "/opt/other/kbench");
}

// make_answers.py's mixed file, compile-only: every line whose answer cannot
// compile (no code, ambiguous, truncated, an undeclared call) gets the
// verdict its meta expects, and every other line compiles.
TEST(CliRun, CompileOnlyVerdictsOfMakeAnswersMatchTheirMeta) {
    kb::test::TempDir dir("kb_run_make_answers");
    const std::string d = dir.path();
    std::string cmd = "python3 '" + kSource + "/bench/make_answers.py' --count 40 --seed 5 -o '" + d + "/a.jsonl'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    Outcome r = kbench("run --json --no-progress --compile-only --tasks tasks --candidates " + d + "/a.jsonl --out " + d + "/r.jsonl");
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    std::vector<Json> lines = result_lines(d + "/r.jsonl");
    ASSERT_EQ(lines.size(), 40u);
    int compiled = 0, refused = 0;
    for (const Json& l : lines) {
        std::string want = l["meta"]["expect_verdict"];
        if (want == "no_code" || want == "compile_error") {
            EXPECT_EQ(l["verdict"], want) << l.dump();
            ++refused;
        } else {
            EXPECT_EQ(l["verdict"], "compiled") << l.dump();
            ++compiled;
        }
    }
    EXPECT_GT(compiled, 10);
    EXPECT_GT(refused, 5);
}

}  // namespace
