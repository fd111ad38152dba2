// The results file of `kbench run` (docs/batch.md, "Results file"): JSONL,
// one object per candidate, appended as each candidate finishes.
//
// Writing: one write() per line on a file opened O_APPEND, so a run killed at
// any moment (Ctrl-C, SIGKILL, a crash) leaves whole lines; the only damage
// possible is a last line cut short by a full disk or a machine going down,
// which the writer removes when it reopens the file.
//
// Reading (resume, report): the (task, id, sample) keys already present; a
// last line cut short is reported and skipped, any other bad line is an
// error naming its line.
#pragma once

#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "evaluate/candidates.h"
#include "util/json.h"

namespace kb::evaluate {

// One result line, typed. Optional figures are absent from the JSON when unset.
struct ResultRecord {
    std::string task;       // the candidate line's "task", as written (the resume key)
    std::string task_name;  // the task's declared name, when it differs from `task` (a path)
    std::string family;     // the task's family folder (tasks/<family>/<task>/), "" if none
    Json id;                // as in the candidate line (string or integer)
    std::optional<int64_t> sample;
    std::string model;
    std::string verdict;    // a kb_verdict name ("pass", ..., "no_code"), "compiled" (compile-only
                            // runs) or "error" (kbench could not score it; message says why)
    std::string message;
    Json extraction;        // Extraction::to_json(false, false) for answers; null for documents
    std::optional<double> compile_ms, run_ms;
    std::optional<double> candidate_median_us, baseline_median_us;
    std::optional<double> speedup;     // baseline median / candidate median
    std::optional<double> efficiency;  // fraction (0..1) of the device's measured ceiling
    std::optional<double> gbps, tflops;
    std::optional<int> gpu;
    std::string device;
    Json meta;              // the candidate line's "meta", unchanged
    Json extra;             // fields this version does not know (kept when reading)

    CandidateKey key() const;
    // The task as reports name it: task_name when set, else task.
    const std::string& display_task() const { return task_name.empty() ? task : task_name; }
    Json to_json() const;
};

// Parses one result object; nullopt with *why ("\"verdict\" is missing; expected ...") when invalid.
std::optional<ResultRecord> parse_result(const Json& j, std::string* why);

struct ResultsFile {
    bool exists = false;
    std::vector<ResultRecord> records;  // in file order
    std::vector<int> record_lines;      // the line of each record
    std::set<CandidateKey> done;        // every key present
    std::vector<LineError> errors;      // bad lines other than a cut-off last one
    int duplicates = 0;                 // keys seen again (the later line wins in `records`)
    // A last line cut short (no valid JSON): its line and byte count.
    std::optional<std::pair<int, size_t>> truncated_tail;
};

// Reads a results file. A missing file gives exists = false and no error
// (a run that starts fresh); an unreadable one throws kb::Error(KB_ERR_IO).
ResultsFile read_results(const std::string& path);
ResultsFile parse_results(const std::string& text, const std::string& label);

class ResultWriter {
public:
    // Opens (creating) `path` for appending. A cut-off last line is removed
    // first; a last line that is complete JSON but lacks its newline gets one.
    // `sync_each`: fdatasync after every line (survives power loss; slower).
    // Throws kb::Error(KB_ERR_IO) naming the path.
    explicit ResultWriter(const std::string& path, bool sync_each = false);
    ~ResultWriter();
    ResultWriter(const ResultWriter&) = delete;
    ResultWriter& operator=(const ResultWriter&) = delete;

    // Appends one line with a single write(). Safe to call from several threads.
    void append(const Json& line);
    void append(const ResultRecord& r) { append(r.to_json()); }

    // Bytes of a cut-off last line removed when the file was opened.
    size_t repaired_bytes() const { return repaired_; }
    const std::string& path() const { return path_; }

private:
    void repair_tail();

    std::string path_;
    int fd_ = -1;
    bool sync_each_ = false;
    size_t repaired_ = 0;
    std::mutex mu_;
};

}  // namespace kb::evaluate
