// Every CUDA candidate that ships with a built-in task (tasks/*/*/candidates)
// and every CUDA example solution (examples/solutions/solutions.json), run
// by the CPU emulator against the task's reference on the task's small
// cases: a candidate declared to pass must match the reference there, and
// one declared to fail must not pass. The GPU tests give the real verdicts;
// this catches a wrong example or a mislabelled candidate on any machine.
//
// Not checked here: candidates the emulator cannot run (inline PTX, tensor
// core intrinsics) and those whose verdict needs a GPU (races, perf-size-only
// failures), which say so with a line "Emulator: not checked (why)".
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <ostream>
#include <regex>
#include <string>
#include <vector>

#include "hostdev/compare_math.h"
#include "emulate/emulated_module.h"
#include "emulate/emulator.h"
#include "support/task_paths.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json.h"

namespace {

using namespace kb::emulate;

struct Entry {
    std::string id;        // for the test name
    std::string task_dir;  // tasks/<family>/<task>
    std::string path;      // a .cu file or a kbench-candidate/1 .json
    std::string expect;    // declared verdict
    std::string skip;      // why it is not checked here
};

std::string first_lines(const std::string& path, int n) {
    std::ifstream in(path);
    std::string line, out;
    for (int i = 0; i < n && std::getline(in, line); ++i) out += line + "\n";
    return out;
}

// "Expected verdict: x" / "expect: x" (as `kbench suite` reads it) and
// "Emulator: not checked (why)".
void read_declarations(const std::string& file, Entry& e) {
    const std::string head = first_lines(file, 30);
    static const std::regex verdict(R"(expect(?:ed)?(?:\s+verdict)?\s*[:=]\s*([a-z_]+))", std::regex::icase);
    static const std::regex skip(R"(emulator:\s*not checked\s*\(([^)]*)\))", std::regex::icase);
    std::smatch m;
    if (std::regex_search(head, m, verdict)) e.expect = m[1];
    if (std::regex_search(head, m, skip)) e.skip = m[1];
}

std::string sanitize(std::string s) {
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return s;
}

std::vector<Entry> entries() {
    std::vector<Entry> out;
    for (const std::string& dir : kb::test::builtin_task_dirs()) {
        const std::string task = dir.substr(dir.rfind('/') + 1);
        const std::string cdir = dir + "/candidates";
        if (!kb::test::is_directory(cdir)) continue;
        std::vector<std::string> names;
        if (DIR* d = opendir(cdir.c_str())) {
            while (dirent* de = readdir(d))
                if (de->d_name[0] != '.') names.push_back(de->d_name);
            closedir(d);
        }
        std::sort(names.begin(), names.end());
        for (const std::string& n : names) {
            Entry e;
            e.task_dir = dir;
            e.expect = "pass";
            e.id = sanitize(task + "_" + n);
            if (kb::test::is_directory(cdir + "/" + n)) {
                e.path = cdir + "/" + n + "/candidate.json";
                // The verdict is declared in one of the folder's files.
                if (DIR* d = opendir((cdir + "/" + n).c_str())) {
                    while (dirent* de = readdir(d))
                        if (de->d_name[0] != '.') read_declarations(cdir + "/" + n + "/" + de->d_name, e);
                    closedir(d);
                }
            } else {
                if (n.size() < 3 || n.substr(n.size() - 3) != ".cu") continue;
                e.path = cdir + "/" + n;
                read_declarations(e.path, e);
            }
            out.push_back(e);
        }
    }
    // The example solutions, from their manifest.
    const std::string root = std::string(KB_SOURCE_DIR) + "/examples/solutions";
    const std::string manifest = root + "/solutions.json";
    std::ifstream in(manifest);
    if (in) {
        kb::Json list = kb::Json::parse(in);
        for (const auto& s : list["solutions"]) {
            if (s.value("language", "cuda") != "cuda") continue;
            Entry e;
            e.task_dir = std::string(KB_SOURCE_DIR) + "/tasks/" + s["task"].get<std::string>();
            e.path = root + "/" + s["candidate"].get<std::string>();
            e.expect = s.value("expect", "pass");
            e.id = sanitize("example_" + s["candidate"].get<std::string>());
            out.push_back(e);
        }
    }
    return out;
}

void PrintTo(const Entry& e, std::ostream* os) { *os << e.path; }

class CandidateOnCpu : public ::testing::TestWithParam<Entry> {};

// The verdict the candidate gets against the reference at one case, as
// kbench's judge orders them: unwritten outputs, then wrong values.
std::string case_verdict(const kb::Task& task, const EmulatedRun& ref, const EmulatedRun& cand, std::string* detail) {
    if (!cand.written_out_of_bounds.empty()) return "out_of_bounds_write";
    if (!cand.inputs_modified.empty()) return "input_modified";
    for (uint64_t u : cand.unwritten)
        if (u) return "output_not_written";
    size_t k = 0;
    for (const kb::Arg& a : task.args) {
        if (!a.is_output()) continue;
        const EmulatedTensor& r = ref.outputs[k];
        const EmulatedTensor& c = cand.outputs[k];
        ++k;
        const kb::Tolerance tol = kb::dtype_is_float(a.dtype) && a.tolerance ? *a.tolerance : kb::Tolerance{};
        const size_t sz = kb::dtype_size(a.dtype);
        for (uint64_t i = 0; i < r.count(); ++i) {
            bool match;
            if (kb::dtype_is_float(a.dtype)) {
                match = kb::kb_check_float(c.at(i), r.at(i), tol.atol, tol.rtol, tol.equal_nan).match;
            } else {
                match = std::memcmp(c.bytes.data() + i * sz, r.bytes.data() + i * sz, sz) == 0;
            }
            if (!match) {
                *detail = "output '" + a.name + "' element " + std::to_string(i) + ": candidate " +
                          std::to_string(c.at(i)) + " vs reference " + std::to_string(r.at(i));
                return "wrong_answer";
            }
        }
    }
    return "pass";
}

TEST_P(CandidateOnCpu, GetsItsDeclaredVerdictOnTheSmallCases) {
    const Entry& e = GetParam();
    if (!e.skip.empty()) GTEST_SKIP() << "not checked on the CPU: " << e.skip;
    try {
        find_host_compiler();
    } catch (const kb::Error&) {
        GTEST_SKIP() << "no host C++ compiler";
    }
    kb::TaskPtr task = kb::load_task(e.task_dir + "/task.json");
    kb::Program cand;
    if (e.path.size() > 5 && e.path.substr(e.path.size() - 5) == ".json") {
        kb::Json doc = kb::parse_json_text(kb::read_file(e.path), e.path);
        cand = kb::parse_candidate_document(doc, *task, kb::dirname_of(e.path));
    } else {
        ASSERT_TRUE(task->candidate_default.has_value()) << "the task has no default plan for a bare .cu candidate";
        cand = *task->candidate_default;
        cand.source = kb::read_file(e.path);
        cand.source_name = e.path.substr(e.path.rfind('/') + 1);
        cand.language = kb::Language::cuda;
    }
    if (cand.language != kb::Language::cuda) GTEST_SKIP() << "not CUDA C++";
    ModuleOptions mo;
    mo.cache_dir = std::string(KB_BINARY_DIR) + "/kbench-cache/emulate";
    auto ref_mod = EmulatedModule::build(task->reference, task->policy, "the reference of " + task->name, mo);
    std::unique_ptr<EmulatedModule> cand_mod;
    try {
        cand_mod = EmulatedModule::build(cand, task->policy, e.path, mo);
    } catch (const kb::Error& err) {
        const std::string src = cand.source;
        const bool unsupported = src.find("asm(") != std::string::npos || src.find("asm volatile") != std::string::npos ||
                                 src.find("wmma") != std::string::npos || src.find("cooperative_groups") != std::string::npos;
        if (e.expect == "compile_error") return;
        if (unsupported) GTEST_SKIP() << "uses code the emulator does not run (inline PTX, WMMA or cooperative groups)";
        FAIL() << err.what();
    }
    std::string got = "pass", where;
    int emulated = 0;
    for (size_t ci = 0; ci < task->cases.size() && got == "pass"; ++ci) {
        CaseSize size = case_size(*task, cand, int(ci));
        CaseSize rsize = case_size(*task, task->reference, int(ci));
        if (size.elements > (1u << 20) || size.threads > (1u << 20) || rsize.threads > (1u << 20)) continue;
        ++emulated;
        EmulatedRun ref = emulate_case(*task, task->reference, *ref_mod, int(ci), 0);
        EmulatedRun run;
        try {
            run = emulate_case(*task, cand, *cand_mod, int(ci), 0);
        } catch (const kb::Error& err) {
            got = "runtime_error";
            where = "case '" + task->cases[ci].name + "': " + err.what();
            break;
        }
        std::string detail;
        got = case_verdict(*task, ref, run, &detail);
        if (got != "pass") where = "case '" + task->cases[ci].name + "': " + detail;
    }
    ASSERT_GT(emulated, 0) << "no case small enough to emulate";
    if (e.expect == "pass")
        EXPECT_EQ(got, "pass") << e.path << " is declared to pass but gets " << got << " at " << where;
    else
        EXPECT_NE(got, "pass") << e.path << " is declared " << e.expect << " but passes every small case";
    RecordProperty("emulated_verdict", got);
}

INSTANTIATE_TEST_SUITE_P(Candidates, CandidateOnCpu, ::testing::ValuesIn(entries()),
                         [](const auto& info) { return info.param.id; });

}  // namespace
