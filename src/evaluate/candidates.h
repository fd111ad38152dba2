// The candidates file of `kbench run` (docs/batch.md, "Candidates file"):
// JSONL, one candidate per line,
//
//   {"task": "vector_add_f32", "id": 17, "sample": 3, "model": "m", "answer": "<raw model text>"}
//   {"task": "tasks/x/task.json", "id": "a", "candidate": {"format": "kbench-candidate/1", ...}}
//
// Parsing is strict (unknown fields, wrong types, a duplicate candidate are
// errors naming the file and line) except for blank lines and a missing or
// extra trailing newline, which files produced by scripts often have.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/json.h"

namespace kb::evaluate {

// What identifies a candidate, in the candidates file and in results:
// (task, id, sample). `id` is kept as text (17 and "17" are the same id).
struct CandidateKey {
    std::string task;
    std::string id;
    std::optional<int64_t> sample;

    bool operator<(const CandidateKey& o) const;
    bool operator==(const CandidateKey& o) const;
    // "task 'vector_add_f32', id 17, sample 3"
    std::string describe() const;
};

struct CandidateLine {
    int line = 0;              // 1-based line in the file
    CandidateKey key;
    Json id;                   // the id as written (string or integer), for results
    std::string model;         // "" when absent
    std::string language;      // "cuda", "triton" or "" (the run's default)
    bool has_answer = false;   // `answer` (raw text) rather than `candidate` (a document)
    std::string answer;
    Json candidate;            // the kbench-candidate/1 document, validated later against its task
    Json meta;                 // free-form, copied into the result line; null when absent
};

struct LineError {
    int line = 0;
    std::string message;  // "<file>:<line>: <what is wrong>; expected <what>"
};

struct CandidatesFile {
    std::vector<CandidateLine> candidates;
    std::vector<LineError> errors;  // every bad line (parsing goes on past them)
    int blank_lines = 0;
};

// Parses the text of a candidates file. `label` names it in messages (its path).
CandidatesFile parse_candidates(const std::string& text, const std::string& label);
// Reads and parses a file; "-" reads standard input. Throws kb::Error(KB_ERR_IO)
// when it cannot be read.
CandidatesFile read_candidates(const std::string& path);

// At most `max` errors, one per line, then "... and N more".
std::string format_errors(const std::vector<LineError>& errors, size_t max = 20);

}  // namespace kb::evaluate
