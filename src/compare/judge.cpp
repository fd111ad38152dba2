#include "compare/judge.h"

namespace kb {

bool needs_comparison(const RunObservation& later) {
    return !later.identical_to_first || !later.inputs_modified.empty() || !later.breaches.empty();
}

Judgement judge_run(const RunObservation& run, const JudgeRules& rules) {
    const std::string at = " at case '" + rules.case_name + "'";
    Judgement j;
    if (run.fault) {
        j.verdict = run.fault->verdict;
        j.message = run.fault->message;
        j.context_lost = run.fault->context_lost;
        return j;
    }
    if (!run.breaches.empty()) {
        const GuardBreachReport& b = run.breaches.front();
        j.verdict = KB_VERDICT_OUT_OF_BOUNDS_WRITE;
        j.message = "the kernel wrote outside buffer '" + b.buffer + "' (" + std::to_string(b.bytes_changed) +
                    " guard bytes changed, the first at byte offset " + std::to_string(b.first_offset) +
                    " from its start)" + at + "; check index bounds";
        return j;
    }
    if (!run.inputs_modified.empty()) {
        std::string names;
        for (const std::string& m : run.inputs_modified) names += (names.empty() ? "'" : ", '") + m + "'";
        j.verdict = KB_VERDICT_INPUT_MODIFIED;
        j.message = "the kernel modified input buffer(s) " + names + at +
                    "; inputs declared `in` must be left unchanged";
        return j;
    }
    const OutputReport* unwritten = nullptr;
    const OutputReport* wrong = nullptr;
    for (const OutputReport& o : run.outputs) {
        if (o.unwritten > 0 && !unwritten) unwritten = &o;
        if (!o.ok() && !wrong) wrong = &o;
    }
    if (unwritten) {
        // The first failing output names the problem (it may be this one).
        j.verdict = KB_VERDICT_OUTPUT_NOT_WRITTEN;
        j.message = wrong->describe() + at;
        return j;
    }
    if (wrong) {
        j.verdict = KB_VERDICT_WRONG_ANSWER;
        j.message = wrong->describe() + at;
        return j;
    }
    j.message = "all outputs match" + at;
    return j;
}

Judgement judge_runs(const std::vector<RunObservation>& runs, const JudgeRules& rules) {
    Judgement first = judge_run(runs.at(0), rules);
    first.runs = unsigned(runs.size());
    if (first.verdict != KB_VERDICT_PASS || runs.size() == 1) return first;

    bool deterministic = true;
    for (size_t i = 1; i < runs.size(); ++i) {
        const RunObservation& r = runs[i];
        if (!r.fault && !needs_comparison(r)) continue;
        deterministic = false;
        Judgement later = judge_run(r, rules);
        if (later.verdict == KB_VERDICT_PASS) continue;
        later.message = "on run " + std::to_string(i + 1) + " of " + std::to_string(runs.size()) +
                        " on the same inputs (the first run passed): " + later.message;
        later.judged_run = i;
        later.failed_run = unsigned(i + 1);
        later.runs = first.runs;
        later.deterministic = false;
        return later;
    }
    first.deterministic = deterministic;
    if (!deterministic) {
        if (rules.deterministic_required) {
            first.verdict = KB_VERDICT_NONDETERMINISTIC;
            first.message = "repeated runs on the same inputs at case '" + rules.case_name +
                            "' gave different outputs, and the task requires bit-identical results (a race, or "
                            "atomics whose order varies)";
        } else {
            first.message += " (note: repeated runs gave different bits; the task allows that)";
        }
    }
    return first;
}

Judgement judge_recheck(Judgement recheck) {
    if (recheck.verdict != KB_VERDICT_PASS) recheck.message = "after timing, on fresh inputs: " + recheck.message;
    return recheck;
}

}  // namespace kb
