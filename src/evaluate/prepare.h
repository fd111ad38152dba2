// From a line of the candidates file to what `kbench run` hands the scorer:
// the task resolved and loaded, the code extracted from a model's answer (or
// read from a candidate document), and the result line pre-filled with
// everything known before compiling. A line that cannot be scored (no code,
// ambiguous code, a task that does not resolve or load, a document that does
// not fit its task) comes back finished, with its verdict and message, so the
// run only appends it. CPU work only: any thread, ahead of the GPUs.
#pragma once

#include <string>

#include "evaluate/candidates.h"
#include "evaluate/extract.h"
#include "evaluate/results.h"
#include "evaluate/task_index.h"

namespace kb::evaluate {

struct PrepareOptions {
    // The language of answers whose line has no "language" (docs/batch.md §1).
    AnswerLanguage language = AnswerLanguage::detect;
    bool include_reasoning = false;
    // The candidates file's folder: relative task paths and a document's
    // source_file resolve against it.
    std::string base_dir;
};

struct PreparedCandidate {
    // true: compile and score `code`; false: `result` is final (verdict no_code or error).
    bool ready = false;
    TaskEntry task;
    TaskPtr loaded;             // the task, when it resolved and loaded
    std::string code;           // the source to compile
    std::string language;       // "cuda", "triton" (Python source), or a document's language
    std::string launch_json;    // a document's own plan (the whole document; kb_candidate.launch_json
                                // accepts it); "" for the task's default plan
    Extraction extraction;      // answers only
    ResultRecord result;        // task, task_name, family, id, sample, model, meta, extraction filled in
};

PreparedCandidate prepare_candidate(const CandidateLine& line, const TaskIndex& tasks, const PrepareOptions& options);

}  // namespace kb::evaluate
