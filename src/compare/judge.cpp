#include "compare/judge.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace kb {
namespace {

std::string shape_text(const std::vector<int64_t>& s) {
    std::string t = "[";
    for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
    return t + "]";
}

std::string list_text(const std::vector<std::string>& v, size_t max = 6) {
    std::string t;
    for (size_t i = 0; i < v.size() && i < max; ++i) t += (i ? ", " : "") + v[i];
    if (v.size() > max) t += ", ... (" + std::to_string(v.size()) + " in all)";
    return t;
}

}  // namespace

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

Judgement judge_recheck(Judgement recheck, bool after_timing) {
    if (recheck.verdict != KB_VERDICT_PASS)
        recheck.message = (after_timing ? "after timing, on fresh inputs: " : "on fresh inputs from a secret seed: ") +
                          recheck.message;
    return recheck;
}

std::vector<std::string> output_mismatches(const std::vector<ProgramOutputMeta>& reference,
                                           const std::vector<ProgramOutputMeta>& candidate, const ProgramRules& rules) {
    std::vector<std::string> out;
    if (reference.size() != candidate.size()) {
        out.push_back("the candidate returned " + std::to_string(candidate.size()) + " output" +
                      (candidate.size() == 1 ? "" : "s") + ", the reference returns " +
                      std::to_string(reference.size()));
        return out;
    }
    for (size_t i = 0; i < reference.size(); ++i) {
        const ProgramOutputMeta& r = reference[i];
        const ProgramOutputMeta& c = candidate[i];
        const std::string label = r.label.empty() ? "output " + std::to_string(i) : r.label;
        if (c.label != r.label && !c.label.empty() && !r.label.empty()) {
            out.push_back("the candidate's output " + std::to_string(i) + " is " + c.label + ", the reference's is " +
                          r.label + " (a different structure)");
            continue;
        }
        if (!c.is_tensor && !c.type.empty()) {
            out.push_back(label + " is a " + c.type + ", expected a tensor of " + r.dtype + " " + shape_text(r.shape));
            continue;
        }
        if (c.shape != r.shape) {
            out.push_back(label + " has shape " + shape_text(c.shape) + ", expected " + shape_text(r.shape));
            continue;
        }
        if (rules.check_dtype && c.dtype != r.dtype)
            out.push_back(label + " has dtype " + c.dtype + ", expected " + r.dtype);
        if (rules.check_device && c.device != r.device && r.is_tensor)
            out.push_back(label + " is on " + c.device + ", expected " + r.device);
    }
    return out;
}

Judgement judge_program_run(const ProgramRunObservation& run, const ProgramRules& rules) {
    const std::string at = " at case '" + rules.case_name + "'";
    Judgement j;
    if (run.error && run.error_stage == "build") {
        // A load_inline call of the model's construction did not compile:
        // the answer's compile error, as at its import.
        j.verdict = KB_VERDICT_COMPILE_ERROR;
        j.message = "building the candidate's extension failed while its model was made" + at + ": " + *run.error;
        return j;
    }
    if (run.error) {
        j.verdict = KB_VERDICT_RUNTIME_ERROR;
        const std::string stage = run.error_stage == "definition"     ? "the candidate's definitions are incomplete"
                                  : run.error_stage == "construction" ? "constructing the candidate's model failed"
                                                                      : "the candidate raised";
        j.message = stage + at + ": " + *run.error;
        j.context_lost = run.context_lost;
        return j;
    }
    std::vector<std::string> mm = output_mismatches(run.reference_outputs, run.candidate_outputs, rules);
    if (!mm.empty()) {
        j.verdict = KB_VERDICT_WRONG_ANSWER;
        j.message = list_text(mm, 3) + at;
        return j;
    }
    if (rules.check_inputs && !run.inputs_modified.empty()) {
        j.verdict = KB_VERDICT_INPUT_MODIFIED;
        j.message = "the candidate modified its input(s) " + list_text(run.inputs_modified) + at +
                    " (their checksums changed over the call); a model must leave its inputs as it found them";
        return j;
    }
    RunObservation obs;
    obs.outputs = run.outputs;
    JudgeRules jr;
    jr.case_name = rules.case_name;
    Judgement v = judge_run(obs, jr);
    if (v.verdict == KB_VERDICT_OUTPUT_NOT_WRITTEN)
        v.message += " (the output's memory still holds the pattern kbench filled free device memory with: the "
                     "candidate allocated it and never wrote it)";
    return v;
}

std::vector<ProgramFinding> program_findings(const ProgramAttribution& a, const ProgramIntegrity& integrity,
                                             const ProgramPolicyRules& rules) {
    std::vector<ProgramFinding> out;
    auto sev = [&](bool fails) { return fails && rules.enforce ? "fail" : "report"; };
    if (!integrity.patched.empty())
        out.push_back({"patched", sev(true),
                       "the candidate replaced " + list_text(integrity.patched) +
                           ": functions a measurement relies on must stay as the worker found them",
                       0});
    if (!integrity.threads_left.empty())
        out.push_back({"thread_left_running", sev(true),
                       "the candidate left " + std::to_string(integrity.threads_left.size()) +
                           " thread(s) running after its call (" + list_text(integrity.threads_left) +
                           "): work after the call returns escapes timing and checking",
                       0});
    std::vector<std::string> declared = a.triton_declared;
    declared.insert(declared.end(), a.cuda_declared.begin(), a.cuda_declared.end());
    if (a.decoy)
        out.push_back({"decoy", sev(rules.torch_compute != "allow"),
                       "the candidate defines " + list_text(declared) + " but none of them ran" +
                           (a.torch_compute_ops.empty() ? "" : "; the work was done by torch (" +
                                                                   list_text(a.torch_compute_ops) + ")"),
                       0});
    if (!a.torch_compute_ops.empty()) {
        std::string share;
        double s = 0;
        for (const char* o : {"torch", "cublas", "cudnn"}) {
            auto it = a.share.find(o);
            if (it != a.share.end()) s += it->second;
        }
        if (a.cupti) share = " (" + std::to_string(int(s * 100 + 0.5)) + "% of its kernel time in torch, cuBLAS or cuDNN)";
        const bool fails = rules.torch_compute == "forbid";
        out.push_back({"torch_compute", sev(fails),
                       "the candidate computes with torch: " + list_text(a.torch_compute_ops) + share +
                           (fails ? "; this task forbids torch compute in candidates" : ""),
                       0});
    }
    if (a.streams > 1)
        out.push_back({"several_streams", "report",
                       "its work ran on " + std::to_string(a.streams) +
                           " streams; the time of each call counts every kernel on every stream",
                       0});
    if (a.records_outside_calls > 0)
        out.push_back({"work_outside_calls", "report",
                       std::to_string(a.records_outside_calls) +
                           " device operations were recorded outside the candidate's calls",
                       0});
    std::stable_sort(out.begin(), out.end(),
                     [](const ProgramFinding& x, const ProgramFinding& y) { return x.severity == "fail" && y.severity != "fail"; });
    return out;
}

Judgement judge_policy(const std::vector<ProgramFinding>& findings) {
    Judgement j;
    for (const ProgramFinding& f : findings)
        if (f.severity == "fail") {
            j.verdict = KB_VERDICT_POLICY_VIOLATION;
            j.message = f.message;
            return j;
        }
    return j;
}

namespace {

const char* const kReplayTail =
    ": the timed calls, which all get the same inputs, did not do the call's work (an output cache keyed on the "
    "inputs' address or contents replays what the first call computed)";

ProgramFinding replay_finding(const std::string& what, bool enforce) {
    return ProgramFinding{"replayed_when_timed", enforce ? "fail" : "report", what + kReplayTail, 0};
}

std::string num(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", v);
    return b;
}

}  // namespace

std::optional<ProgramFinding> timed_replay(const CallWork& timed, const CallWork& fresh, bool enforce) {
    double total = 0, skipped = 0;
    std::vector<std::string> names;
    for (const auto& [name, ms] : fresh.ms) total += ms;
    for (const auto& [name, n] : fresh.launches) {
        auto it = timed.launches.find(name);
        const double t = it == timed.launches.end() ? 0.0 : it->second;
        if (n > 0 && t < n / 2) {
            auto m = fresh.ms.find(name);
            skipped += m == fresh.ms.end() ? 0.0 : m->second;
            names.push_back(name + " (" + num(n) + " launch" + (n == 1 ? "" : "es") + " fresh, " + num(t) +
                            " a timed call)");
        }
    }
    if (names.empty() || skipped < kReplayFloorDeviceMs || skipped < 0.5 * total) return std::nullopt;
    return replay_finding("the recheck's call on inputs it had not seen ran " + list_text(names, 3) + ", " +
                              num(skipped) + " ms of its " + num(total) + " ms of device work, which the timed calls "
                              "did not run",
                          enforce);
}

std::optional<ProgramFinding> timed_replay(double timed_ms, double fresh_ms, bool enforce) {
    if (!(timed_ms >= 0) || !(fresh_ms > 0)) return std::nullopt;
    if (fresh_ms < kReplayRatio * timed_ms || fresh_ms - timed_ms < kReplayFloorWallMs) return std::nullopt;
    return replay_finding("the timed calls took " + num(timed_ms) + " ms each (median) and the same call on inputs it "
                              "had not seen (the recheck) " + num(fresh_ms) + " ms",
                          enforce);
}

}  // namespace kb
