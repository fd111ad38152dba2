// The files of a batch run (src/evaluate/candidates, results, task_index;
// docs/batch.md): the candidates parser's line-numbered errors, the results
// writer's whole-line appends, and the reader that lets a run resume.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "evaluate/candidates.h"
#include "evaluate/prepare.h"
#include "evaluate/results.h"
#include "evaluate/task_index.h"
#include "util/error.h"
#include "util/files.h"

namespace {

using kb::Json;
using namespace kb::evaluate;
namespace fs = std::filesystem;

const std::string kTasks = std::string(KB_SOURCE_DIR) + "/tasks";

// A scratch folder removed at the end of the test.
struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() / ("kb_batch_" + std::to_string(::getpid()) + "_" +
                                            std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string file(const std::string& name) const { return (path / name).string(); }
};

void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

std::string read_text(const std::string& path) { return kb::read_file(path); }

// The one error of parsing `text`, or a failure naming what came back.
std::string only_error(const std::string& text) {
    CandidatesFile f = parse_candidates(text, "c.jsonl");
    if (f.errors.size() != 1) return "expected one error, got " + std::to_string(f.errors.size()) + ": " + format_errors(f.errors);
    return f.errors[0].message;
}

// ---- candidates ---------------------------------------------------------------

TEST(CandidatesFile, ParsesEveryFieldAndToleratesBlankLinesAndCrlf) {
    std::string text =
        "{\"task\": \"vector_add_f32\", \"id\": 17, \"sample\": 3, \"model\": \"m\", \"answer\": \"```cuda\\nx\\n```\"}\r\n"
        "\n"
        "   \n"
        "{\"task\": \"tasks/reductions/sum_f32/task.json\", \"id\": \"a\", \"language\": \"cuda\", \"meta\": {\"k\": 1},"
        " \"candidate\": {\"format\": \"kbench-candidate/1\", \"source\": \"x\"}}";  // no final newline
    CandidatesFile f = parse_candidates(text, "c.jsonl");
    ASSERT_TRUE(f.errors.empty()) << format_errors(f.errors);
    ASSERT_EQ(f.candidates.size(), 2u);
    EXPECT_EQ(f.blank_lines, 2);
    const CandidateLine& a = f.candidates[0];
    EXPECT_EQ(a.line, 1);
    EXPECT_EQ(a.key.task, "vector_add_f32");
    EXPECT_EQ(a.key.id, "17");
    EXPECT_EQ(a.id, Json(17));
    EXPECT_EQ(a.key.sample, 3);
    EXPECT_EQ(a.model, "m");
    EXPECT_TRUE(a.has_answer);
    EXPECT_EQ(a.answer, "```cuda\nx\n```");
    const CandidateLine& b = f.candidates[1];
    EXPECT_EQ(b.line, 4);
    EXPECT_FALSE(b.has_answer);
    EXPECT_EQ(b.candidate["source"], "x");
    EXPECT_EQ(b.language, "cuda");
    EXPECT_EQ(b.meta["k"], 1);
    EXPECT_FALSE(b.key.sample.has_value());
}

TEST(CandidatesFile, EveryErrorNamesTheFileLineAndWhatIsExpected) {
    struct Case {
        std::string line, want;
    } cases[] = {
        {R"({"id": 1, "answer": "x"})", "c.jsonl:1: \"task\" is missing; expected the name of a task"},
        {R"({"task": "t", "answer": "x"})", "\"id\" is missing; expected a string or an integer"},
        {R"({"task": "t", "id": 1.5, "answer": "x"})", "\"id\" is the number 1.5; expected a non-empty string or an integer"},
        {R"({"task": "t", "id": "", "answer": "x"})", "\"id\" is a string; expected a non-empty string"},
        {R"({"task": "", "id": 1, "answer": "x"})", "\"task\" is a string; expected a non-empty string"},
        {R"({"task": "t", "id": 1, "sample": -1, "answer": "x"})", "\"sample\" is the integer -1; expected an integer >= 0"},
        {R"({"task": "t", "id": 1, "answr": "x"})", "unknown field \"answr\" (did you mean \"answer\"?)"},
        {R"({"task": "t", "id": 1})", "neither \"answer\" nor \"candidate\" is given"},
        {R"({"task": "t", "id": 1, "answer": "x", "candidate": {}})", "both \"answer\" and \"candidate\" are given; expected exactly one"},
        {R"({"task": "t", "id": 1, "answer": 3})", "\"answer\" is the integer 3; expected a string"},
        {R"({"task": "t", "id": 1, "candidate": {"source": "x"}})", "\"candidate\" has no \"format\": \"kbench-candidate/1\""},
        {R"({"task": "t", "id": 1, "answer": "x", "language": "rust"})", "\"language\" is 'rust'; expected \"cuda\" or \"triton\""},
        {R"({"task": "t", "id": 1, "answer": "x", "meta": 3})", "\"meta\" is the integer 3; expected a JSON object"},
        {R"(["task"])", "the line is an array; expected a JSON object"},
        {R"({"task": "t", "id": 1, "answer": "x")", "not valid JSON ("},
    };
    for (const Case& c : cases) {
        std::string msg = only_error(c.line + "\n");
        EXPECT_NE(msg.find(c.want), std::string::npos) << "line: " << c.line << "\nmessage: " << msg;
        EXPECT_EQ(msg.rfind("c.jsonl:1: ", 0), 0u) << msg;
        EXPECT_NE(msg.find("; expected "), std::string::npos) << msg;
    }
}

TEST(CandidatesFile, ParsingGoesOnPastBadLinesAndCountsThem) {
    std::string text = "{\"task\": \"t\", \"id\": 1, \"answer\": \"a\"}\n"
                       "not json\n"
                       "{\"task\": \"t\", \"id\": 2, \"answer\": \"b\"}\n"
                       "{\"task\": \"t\", \"id\": 3}\n";
    CandidatesFile f = parse_candidates(text, "c.jsonl");
    EXPECT_EQ(f.candidates.size(), 2u);
    ASSERT_EQ(f.errors.size(), 2u);
    EXPECT_EQ(f.errors[0].line, 2);
    EXPECT_EQ(f.errors[1].line, 4);
    EXPECT_NE(f.errors[0].message.find("c.jsonl:2: not valid JSON"), std::string::npos) << f.errors[0].message;
}

TEST(CandidatesFile, ADuplicateKeyNamesTheFirstLine) {
    // 7 and "7" are the same id; a different sample is a different candidate.
    std::string text = "{\"task\": \"t\", \"id\": 7, \"sample\": 0, \"answer\": \"a\"}\n"
                       "{\"task\": \"t\", \"id\": 7, \"sample\": 1, \"answer\": \"a\"}\n"
                       "{\"task\": \"t\", \"id\": \"7\", \"sample\": 0, \"answer\": \"b\"}\n";
    CandidatesFile f = parse_candidates(text, "c.jsonl");
    EXPECT_EQ(f.candidates.size(), 2u);
    ASSERT_EQ(f.errors.size(), 1u);
    EXPECT_NE(f.errors[0].message.find("c.jsonl:3: task 't', id 7, sample 0 appears again (first at line 1)"),
              std::string::npos)
        << f.errors[0].message;
}

TEST(CandidatesFile, FormatErrorsStopsAtTheLimit) {
    std::vector<LineError> errors;
    for (int i = 1; i <= 25; ++i) errors.push_back({i, "e" + std::to_string(i)});
    std::string s = format_errors(errors, 20);
    EXPECT_NE(s.find("e20"), std::string::npos);
    EXPECT_EQ(s.find("e21"), std::string::npos);
    EXPECT_NE(s.find("... and 5 more"), std::string::npos);
}

// ---- results ------------------------------------------------------------------

ResultRecord record(const std::string& task, int id, int sample, const std::string& verdict) {
    ResultRecord r;
    r.task = task;
    r.id = id;
    r.sample = sample;
    r.verdict = verdict;
    r.message = "m";
    return r;
}

TEST(ResultsFile, WriterAppendsLinesTheReaderGivesBack) {
    TempDir dir;
    std::string path = dir.file("results.jsonl");
    {
        ResultWriter w(path);
        ResultRecord r = record("vector_add_f32", 1, 0, "pass");
        r.model = "m";
        r.family = "elementwise";
        r.speedup = 1.25;
        r.efficiency = 0.5;
        r.compile_ms = 40;
        r.candidate_median_us = INFINITY;  // non-finite figures travel as "inf", as in kbench's results
        r.meta = {{"shape", "prose"}};
        w.append(r);
        w.append(record("vector_add_f32", 1, 1, "wrong_answer"));
        EXPECT_EQ(w.repaired_bytes(), 0u);
    }
    ResultsFile f = read_results(path);
    ASSERT_TRUE(f.exists);
    ASSERT_TRUE(f.errors.empty()) << format_errors(f.errors);
    ASSERT_EQ(f.records.size(), 2u);
    EXPECT_FALSE(f.truncated_tail);
    const ResultRecord& r = f.records[0];
    EXPECT_EQ(r.task, "vector_add_f32");
    EXPECT_EQ(r.family, "elementwise");
    EXPECT_EQ(r.model, "m");
    EXPECT_EQ(r.verdict, "pass");
    EXPECT_DOUBLE_EQ(*r.speedup, 1.25);
    EXPECT_DOUBLE_EQ(*r.efficiency, 0.5);
    EXPECT_TRUE(std::isinf(*r.candidate_median_us));
    EXPECT_EQ(r.meta["shape"], "prose");
    EXPECT_EQ(f.done.size(), 2u);
    EXPECT_TRUE(f.done.count(CandidateKey{"vector_add_f32", "1", 1}));
    // Every line is one compact JSON object.
    std::string text = read_text(path);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
    EXPECT_NE(text.find("\"candidate_median_us\":\"inf\""), std::string::npos) << text;
}

TEST(ResultsFile, AMissingFileIsAFreshStart) {
    TempDir dir;
    ResultsFile f = read_results(dir.file("none.jsonl"));
    EXPECT_FALSE(f.exists);
    EXPECT_TRUE(f.records.empty());
}

TEST(ResultsFile, ACutOffLastLineIsReportedSkippedAndRepairedOnReopen) {
    TempDir dir;
    std::string path = dir.file("r.jsonl");
    std::string whole = "{\"task\":\"t\",\"id\":1,\"verdict\":\"pass\"}\n";
    std::string cut = "{\"task\":\"t\",\"id\":2,\"verd";
    write_text(path, whole + cut);
    ResultsFile f = read_results(path);
    EXPECT_TRUE(f.errors.empty()) << format_errors(f.errors);
    ASSERT_EQ(f.records.size(), 1u);
    ASSERT_TRUE(f.truncated_tail);
    EXPECT_EQ(f.truncated_tail->first, 2);
    EXPECT_EQ(f.truncated_tail->second, cut.size());
    {
        ResultWriter w(path);
        EXPECT_EQ(w.repaired_bytes(), cut.size());
        w.append(record("t", 2, 0, "pass"));
    }
    ResultsFile g = read_results(path);
    EXPECT_TRUE(g.errors.empty());
    EXPECT_FALSE(g.truncated_tail);
    EXPECT_EQ(g.records.size(), 2u);
    EXPECT_EQ(read_text(path).rfind(whole, 0), 0u);  // the whole line before it is untouched
}

TEST(ResultsFile, ACompleteLastLineWithoutNewlineIsKept) {
    TempDir dir;
    std::string path = dir.file("r.jsonl");
    write_text(path, "{\"task\":\"t\",\"id\":1,\"verdict\":\"pass\"}");
    ResultsFile f = read_results(path);
    EXPECT_EQ(f.records.size(), 1u);
    EXPECT_FALSE(f.truncated_tail);
    {
        ResultWriter w(path);
        EXPECT_EQ(w.repaired_bytes(), 0u);
        w.append(record("t", 2, 0, "pass"));
    }
    EXPECT_EQ(read_results(path).records.size(), 2u);
}

TEST(ResultsFile, ABadLineInTheMiddleIsAnErrorWithItsLine) {
    std::string text = "{\"task\":\"t\",\"id\":1,\"verdict\":\"pass\"}\n"
                       "garbage\n"
                       "{\"task\":\"t\",\"id\":2}\n"
                       "{\"task\":\"t\",\"id\":3,\"verdict\":\"pass\",\"speedup\":\"fast\"}\n"
                       "{\"task\":\"t\",\"id\":4,\"verdict\":\"pass\"}\n";
    ResultsFile f = parse_results(text, "r.jsonl");
    ASSERT_EQ(f.errors.size(), 3u) << format_errors(f.errors);
    EXPECT_NE(f.errors[0].message.find("r.jsonl:2: not valid JSON"), std::string::npos) << f.errors[0].message;
    EXPECT_NE(f.errors[1].message.find("r.jsonl:3: \"verdict\" is missing"), std::string::npos) << f.errors[1].message;
    EXPECT_NE(f.errors[2].message.find("r.jsonl:4: \"speedup\" is a string; expected a number"), std::string::npos)
        << f.errors[2].message;
    EXPECT_EQ(f.records.size(), 2u);
}

TEST(ResultsFile, UnknownFieldsAreKeptAndALaterDuplicateWins) {
    std::string text = "{\"task\":\"t\",\"id\":1,\"verdict\":\"wrong_answer\",\"worker\":\"w1\"}\n"
                       "{\"task\":\"t\",\"id\":1,\"verdict\":\"pass\"}\n";
    ResultsFile f = parse_results(text, "r.jsonl");
    EXPECT_TRUE(f.errors.empty());
    EXPECT_EQ(f.duplicates, 1);
    ASSERT_EQ(f.records.size(), 1u);
    EXPECT_EQ(f.records[0].verdict, "pass");
    ResultsFile g = parse_results(text.substr(0, text.find('\n') + 1), "r.jsonl");
    EXPECT_EQ(g.records[0].extra["worker"], "w1");
    EXPECT_EQ(g.records[0].to_json()["worker"], "w1");
}

TEST(ResultsFile, InvalidUtf8InAMessageIsWrittenAsValidJson) {
    TempDir dir;
    std::string path = dir.file("r.jsonl");
    {
        ResultWriter w(path);
        ResultRecord r = record("t", 1, 0, "compile_error");
        r.message = std::string("bad byte \xff here");
        w.append(r);
    }
    ResultsFile f = read_results(path);
    ASSERT_TRUE(f.errors.empty()) << format_errors(f.errors);
    ASSERT_EQ(f.records.size(), 1u);
    EXPECT_NE(f.records[0].message.find("bad byte"), std::string::npos);
}

TEST(ResultsFile, ConcurrentAppendsNeverInterleave) {
    TempDir dir;
    std::string path = dir.file("r.jsonl");
    {
        ResultWriter w(path);
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&w, t] {
                for (int i = 0; i < 200; ++i) {
                    ResultRecord r = record("t" + std::to_string(t), i, 0, "pass");
                    r.message = std::string(2000, char('a' + t));
                    w.append(r);
                }
            });
        for (auto& th : threads) th.join();
    }
    ResultsFile f = read_results(path);
    EXPECT_TRUE(f.errors.empty()) << format_errors(f.errors, 3);
    EXPECT_EQ(f.records.size(), 800u);
}

// A run killed by Ctrl-C (SIGINT) while appending leaves whole lines, except
// at worst a last line the kernel cut short; the writer repairs that on reopen.
TEST(ResultsFile, ARunInterruptedMidWriteLeavesAFileThatResumes) {
    TempDir dir;
    std::string path = dir.file("r.jsonl");
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ResultWriter w(path);
        for (int i = 0;; ++i) {
            ResultRecord r = record("t", i, 0, "pass");
            r.message = std::string(4096, 'x');
            w.append(r);
        }
    }
    // Let it write for a while, then interrupt it.
    for (int i = 0; i < 200 && (!fs::exists(path) || fs::file_size(path) < 200000); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ::kill(child, SIGINT);
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status));
    ResultsFile f = read_results(path);
    EXPECT_TRUE(f.errors.empty()) << format_errors(f.errors, 3);
    EXPECT_GT(f.records.size(), 10u);
    size_t before = f.records.size();
    {
        ResultWriter w(path);  // resume: repairs a cut-off tail if there is one
        w.append(record("t", -1, 0, "pass"));
    }
    ResultsFile g = read_results(path);
    EXPECT_TRUE(g.errors.empty());
    EXPECT_FALSE(g.truncated_tail);
    EXPECT_EQ(g.records.size(), before + 1);
}

TEST(ResultsFile, WriterNamesThePathWhenItCannotOpen) {
    try {
        ResultWriter w("/nonexistent-folder/r.jsonl");
        FAIL() << "opened";
    } catch (const kb::Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_IO);
        EXPECT_NE(std::string(e.what()).find("/nonexistent-folder/r.jsonl"), std::string::npos) << e.what();
    }
}

// ---- task index ---------------------------------------------------------------

TEST(TaskIndex, FindsTheBuiltInTasksByNameAndPath) {
    TaskIndex idx;
    idx.add(kTasks);
    EXPECT_TRUE(idx.problems().empty());
    EXPECT_GE(idx.entries().size(), 6u);
    std::string why;
    auto e = idx.resolve("vector_add_f32", "", &why);
    ASSERT_TRUE(e) << why;
    EXPECT_EQ(e->family, "elementwise");
    EXPECT_NE(e->path.find("elementwise/vector_add_f32/task.json"), std::string::npos);
    auto p = idx.resolve("elementwise/vector_add_f32/task.json", kTasks, &why);
    ASSERT_TRUE(p) << why;
    EXPECT_EQ(p->name, "vector_add_f32");
    auto folder = idx.resolve(kTasks + "/reductions/sum_f32", "", &why);
    ASSERT_TRUE(folder) << why;
    EXPECT_EQ(folder->name, "sum_f32");
    EXPECT_FALSE(idx.resolve("vector_ad_f32", "", &why));
    EXPECT_NE(why.find("no task named 'vector_ad_f32' (did you mean 'vector_add_f32'?)"), std::string::npos) << why;
    kb::TaskPtr t = idx.load(*e);
    EXPECT_EQ(task_entries(*t), std::vector<std::string>{"vector_add"});
    EXPECT_EQ(idx.load(*e).get(), t.get());  // loaded once
}

TEST(TaskIndex, FamilyFoldersAndDuplicateNames) {
    TempDir dir;
    fs::create_directories(dir.path / "reductions" / "sum");
    fs::create_directories(dir.path / "other" / "sum_again");
    fs::copy(kTasks + "/reductions/sum_f32", dir.path / "reductions" / "sum", fs::copy_options::recursive);
    fs::copy(kTasks + "/reductions/sum_f32/task.json", dir.path / "other" / "sum_again" / "task.json");
    fs::create_directories(dir.path / "broken" / "b");
    write_text((dir.path / "broken" / "b" / "task.json").string(), "{ not json");
    TaskIndex idx;
    idx.add(dir.path.string());
    ASSERT_EQ(idx.problems().size(), 1u);
    EXPECT_NE(idx.problems()[0].find("broken/b/task.json"), std::string::npos) << idx.problems()[0];
    std::string why;
    EXPECT_FALSE(idx.resolve("sum_f32", "", &why));
    EXPECT_NE(why.find("declared by several files"), std::string::npos) << why;
    auto e = idx.resolve((dir.path / "reductions" / "sum").string(), "", &why);
    ASSERT_TRUE(e) << why;
    EXPECT_EQ(e->family, "reductions");
    EXPECT_EQ(task_entries(*idx.load(*e)), std::vector<std::string>{"sum"});
    EXPECT_THROW(idx.add(dir.file("missing")), kb::Error);
}

TEST(TaskIndex, AProgramTasksEntryIsTheClassItsCandidatesDefine) {
    // KernelBench style: ModelNew, even where the task also has a kernel
    // signature and a default kernel plan; TritonBench: the operator's functions.
    const std::string programs = std::string(KB_SOURCE_DIR) + "/tests/programs/tasks";
    TaskIndex idx;
    idx.add(programs);
    std::string why;
    for (const char* name : {"relu_gpu", "relu_kernel"}) {
        auto e = idx.resolve(name, "", &why);
        ASSERT_TRUE(e) << why;
        EXPECT_EQ(task_entries(*idx.load(*e)), std::vector<std::string>{"ModelNew"}) << name;
    }
}

// ---- preparing a line for the scorer ------------------------------------------------

CandidateLine line_of(const std::string& json) {
    CandidatesFile f = parse_candidates(json + "\n", "c.jsonl");
    EXPECT_TRUE(f.errors.empty()) << format_errors(f.errors);
    return f.candidates.empty() ? CandidateLine() : f.candidates[0];
}

TEST(PrepareCandidate, AnAnswerBecomesCodeAndAPrefilledResult) {
    TaskIndex idx;
    idx.add(kTasks);
    PrepareOptions po;
    Json line = {{"task", "vector_add_f32"}, {"id", 5}, {"sample", 2}, {"model", "m"}, {"meta", {{"k", "v"}}},
                 {"answer", "<think>draft</think>\n```cuda\n__global__ void vector_add(const float* a, const float* b, "
                            "float* c, int n) { int i = threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }\n```"}};
    PreparedCandidate p = prepare_candidate(line_of(line.dump()), idx, po);
    ASSERT_TRUE(p.ready) << p.result.message;
    EXPECT_EQ(p.language, "cuda");
    EXPECT_NE(p.code.find("__global__ void vector_add"), std::string::npos);
    EXPECT_TRUE(p.launch_json.empty());
    EXPECT_EQ(p.result.task, "vector_add_f32");
    EXPECT_TRUE(p.result.task_name.empty());
    EXPECT_EQ(p.result.id, Json(5));
    EXPECT_EQ(p.result.sample, 2);
    EXPECT_EQ(p.result.model, "m");
    EXPECT_EQ(p.result.meta["k"], "v");
    EXPECT_EQ(p.result.extraction["outcome"], "ok");
    EXPECT_EQ(p.result.extraction["flags"], Json::array({"think_stripped"}));
    EXPECT_TRUE(p.result.verdict.empty());  // the scorer gives it
}

TEST(PrepareCandidate, LinesThatCannotBeScoredComeBackFinished) {
    TaskIndex idx;
    idx.add(kTasks);
    PrepareOptions po;
    PreparedCandidate none = prepare_candidate(line_of(R"({"task": "vector_add_f32", "id": 1, "answer": "Sorry, I cannot."})"), idx, po);
    EXPECT_FALSE(none.ready);
    EXPECT_EQ(none.result.verdict, "no_code");
    EXPECT_EQ(none.result.message.rfind("no_code: no fenced code block", 0), 0u) << none.result.message;
    EXPECT_EQ(none.result.to_json()["extraction"]["outcome"], "no_code");

    std::string two = "```cuda\n__global__ void vector_add(float* c) { c[0] = 1; }\n```\nor\n```cuda\n__global__ void "
                      "vector_add(float* c) { c[0] = 2; }\n```";
    PreparedCandidate amb = prepare_candidate(line_of(Json({{"task", "vector_add_f32"}, {"id", 2}, {"answer", two}}).dump()), idx, po);
    EXPECT_EQ(amb.result.verdict, "no_code");
    EXPECT_EQ(amb.result.message.rfind("ambiguous: blocks 1 and 2", 0), 0u) << amb.result.message;

    PreparedCandidate missing = prepare_candidate(line_of(R"({"task": "vector_ad", "id": 3, "answer": "x"})"), idx, po);
    EXPECT_EQ(missing.result.verdict, "error");
    EXPECT_NE(missing.result.message.find("no task named 'vector_ad'"), std::string::npos) << missing.result.message;

    Json bad_doc = {{"format", "kbench-candidate/1"}, {"source", "__global__ void k() {}"},
                    {"launch", {{{"kernel", "k"}, {"grid", 1}, {"block", 1}, {"args", {"nope"}}}}}};
    PreparedCandidate doc = prepare_candidate(line_of(Json({{"task", "vector_add_f32"}, {"id", 4}, {"candidate", bad_doc}}).dump()), idx, po);
    EXPECT_EQ(doc.result.verdict, "error");
    EXPECT_NE(doc.result.message.find("candidate.launch[0].args[0]"), std::string::npos) << doc.result.message;
}

TEST(PrepareCandidate, ADocumentKeepsItsPlanAndATaskPathItsName) {
    TaskIndex idx;  // nothing indexed: the task is given by path, relative to the candidates file's folder
    PrepareOptions po;
    po.base_dir = kTasks;
    Json doc = {{"format", "kbench-candidate/1"}, {"source_file", "reductions/sum_f32/candidates/correct.cu"},
                {"launch", {{{"zero", "out"}}, {{"kernel", "sum"}, {"grid", 4}, {"block", 256}, {"args", {"x", "out", "n"}}}}}};
    PreparedCandidate p = prepare_candidate(line_of(Json({{"task", "reductions/sum_f32"}, {"id", "d"}, {"candidate", doc}}).dump()), idx, po);
    ASSERT_TRUE(p.ready) << p.result.message;
    EXPECT_EQ(p.result.task, "reductions/sum_f32");
    EXPECT_EQ(p.result.task_name, "sum_f32");  // the path is not the name, so the result names both
    EXPECT_EQ(p.language, "cuda");
    EXPECT_NE(p.code.find("__global__ void sum"), std::string::npos);
    EXPECT_EQ(Json::parse(p.launch_json)["launch"][1]["grid"], 4);
    PreparedCandidate q = prepare_candidate(
        line_of(Json({{"task", "elementwise/vector_add_f32/task.json"}, {"id", 1}, {"answer", "```cuda\n__global__ void vector_add() {}\n```"}}).dump()),
        idx, po);
    ASSERT_TRUE(q.ready) << q.result.message;
    EXPECT_EQ(q.result.task_name, "vector_add_f32");
}

}  // namespace
