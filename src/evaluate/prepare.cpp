#include "evaluate/prepare.h"

#include "util/error.h"

namespace kb::evaluate {

PreparedCandidate prepare_candidate(const CandidateLine& line, const TaskIndex& tasks, const PrepareOptions& options) {
    PreparedCandidate p;
    ResultRecord& r = p.result;
    r.task = line.key.task;
    r.id = line.id;
    r.sample = line.key.sample;
    r.model = line.model;
    r.meta = line.meta;
    auto finish = [&](const std::string& verdict, const std::string& message) {
        p.ready = false;
        r.verdict = verdict;
        r.message = message;
        return p;
    };

    std::string why;
    std::optional<TaskEntry> entry = tasks.resolve(line.key.task, options.base_dir, &why);
    if (!entry) return finish("error", why);
    p.task = *entry;
    r.family = entry->family;
    if (entry->name != line.key.task) r.task_name = entry->name;
    try {
        p.loaded = tasks.load(*entry);
    } catch (const Error& e) {
        return finish("error", std::string("the task does not load: ") + e.what());
    }

    if (!line.has_answer) {
        // A candidate document: validated against its task here, so a bad one
        // is reported per line instead of failing the run.
        try {
            Program prog = parse_candidate_document(line.candidate, *p.loaded, options.base_dir);
            p.code = prog.source;
            p.language = language_name(prog.language);
            if (line.candidate.contains("launch")) p.launch_json = line.candidate.dump();
        } catch (const Error& e) {
            return finish("error", std::string("the candidate document does not fit its task: ") + e.what());
        }
        p.ready = true;
        return p;
    }

    ExtractOptions eo;
    eo.entries = task_entries(*p.loaded);
    eo.include_reasoning = options.include_reasoning;
    eo.language = options.language;
    if (!line.language.empty()) parse_answer_language(line.language, &eo.language);
    p.extraction = extract_answer(line.answer, eo);
    r.extraction = p.extraction.to_json(false, false);
    if (p.extraction.outcome != ExtractOutcome::ok)
        return finish("no_code", std::string(extract_outcome_name(p.extraction.outcome)) + ": " + p.extraction.reason);
    p.code = p.extraction.code;
    p.language = p.extraction.language == "cuda" ? "cuda" : "triton";
    p.ready = true;
    return p;
}

}  // namespace kb::evaluate
