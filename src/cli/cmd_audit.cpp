// kbench audit: the negative controls of tasks and problems (docs/tasks.md,
// "Negative controls"). Per task and case: which answers that must fail
// would pass (zeros, ones, the mean, an input passed through, the output at
// another seed, the output negated, the last row wrong), what strict does
// about it (an input transform, a magnitude-aware tolerance, the case left
// out, the task refused), whether the reference gives the same outputs twice
// at one seed, and the output's magnitude.
//
// A task whose reference is CUDA runs on the CPU emulator (src/emulate/, no
// GPU needed) at every case small enough to emulate; a Python reference (an
// imported problem) runs in kbench's importer with torch on the CPU, or its
// recorded controls (origin.controls, written at import) are shown.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "cli/cli.h"
#include "cli/commands.h"
#include "compare/controls.h"
#include "emulate/emulator.h"
#include "task/task.h"
#include "util/error.h"
#include "util/files.h"

namespace kb::cli {
namespace {

const char* kAuditUsage =
    "usage: kbench audit [--json] [--max-elements N] TASK|DIR|PROBLEM.py...\n"
    "\n"
    "Runs the negative controls of each task (a folder: every task under it) or\n"
    "KernelBench problem file: answers that must fail (all zeros, all ones, the\n"
    "output's mean, each input of the output's shape passed through, the output\n"
    "at another seed, the output negated, its last row wrong), compared with the\n"
    "reference's outputs by the task's own rule. A control that passes is a case\n"
    "that cannot tell right from wrong.\n"
    "\n"
    "A CUDA reference runs on the CPU emulator (no GPU needed) at each case of at\n"
    "most N elements (default 1048576); a Python reference runs in kbench's\n"
    "importer with torch on the CPU (or its controls recorded at import are shown).\n"
    "\n"
    "Exit 1 when a control passes at every checked case of a CUDA task, or at its\n"
    "perf case (a control passing at some cases only is reported, saying whether\n"
    "it passes at both seeds or at one), or when a Python task\n"
    "is refused under strict (no case can tell).\n"
    "\n"
    "  --json             print an array with one entry per task ({\"task\", \"ok\", \"cases\", ...})\n"
    "  --max-elements N   emulate CUDA references at cases of at most N buffer elements\n"
    "\n"
    "The importer runs with $KBENCH_PYTHON (default python3), which needs torch for Python references.\n"
    "\n"
    "examples:\n"
    "  kbench audit tasks                                     # every built-in task\n"
    "  kbench audit --json 23_Softmax.py                      # a KernelBench problem file\n"
    "\n"
    "exit codes: 0 every task discriminating, 1 a task that is not (or invalid), 2 usage error\n";

std::string fmt(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

HostTensor host(const emulate::EmulatedTensor& t) {
    HostTensor h;
    h.name = t.name;
    h.dtype = t.dtype;
    h.shape = t.shape;
    h.bytes = t.bytes;
    return h;
}

Json magnitude_json(const OutputMagnitude& m) {
    return {{"max_abs", m.max_abs}, {"rms", m.rms}, {"mean", m.mean}};
}

// A task whose reference is CUDA, on the emulator. A control that passes at
// a case fails the audit when it passes at every checked case (that wrong
// answer passes everywhere) or at the perf case (a candidate that detects
// the perf size could write it there, and time as fast as a memset), as
// task/output_lint.h judges the reference's statistics. At some cases only,
// it is reported, saying whether it passes at both seeds (mostly edge cases
// where the control's answer is the right one at that size: softmax over one
// column is all ones, attention over one key is its value) or at one (the
// draw's doing: ReLU of one positive number). An input passed through where the output
// is bit-identical to that input at every case and both seeds is no wrong
// answer: the task copies it (copy_f32).
Json audit_native(const std::string& path, const Task& task, uint64_t max_elements) {
    Json entry = {{"task", path}, {"name", task.name}, {"reference", "cuda"}, {"cases", Json::array()}};
    std::unique_ptr<emulate::EmulatedModule> module;
    try {
        module = emulate::EmulatedModule::build(task.reference, task.policy, "the reference of " + task.name);
    } catch (const Error& e) {
        entry["checked"] = false;
        entry["ok"] = true;
        entry["why"] = std::string("the reference cannot run on the CPU emulator: ") + e.what();
        return entry;
    }
    bool deterministic = true;
    int checked = 0;
    // Per input name: bit-identical to an output at both seeds at every
    // multi-element case so far (the task copies it).
    std::map<std::string, bool> copies;
    bool any_multi = false;
    for (size_t ci = 0; ci < task.cases.size(); ++ci) {
        const Case& c = task.cases[ci];
        Json cj = {{"case", c.name}, {"perf", c.perf}};
        emulate::CaseSize size = emulate::case_size(task, task.reference, int(ci));
        if (size.elements > max_elements || size.threads > max_elements) {
            cj["checked"] = false;
            cj["why"] = "too large to emulate (" + std::to_string(size.elements) + " elements, " +
                        std::to_string(size.threads) + " threads; --max-elements raises the limit)";
            entry["cases"].push_back(cj);
            continue;
        }
        emulate::EmulatedRun a, b, again;
        try {
            a = emulate::emulate_case(task, task.reference, *module, int(ci), 0);
            b = emulate::emulate_case(task, task.reference, *module, int(ci), 1);
            again = emulate::emulate_case(task, task.reference, *module, int(ci), 0);
        } catch (const Error& e) {
            cj["checked"] = false;
            cj["why"] = e.what();
            entry["cases"].push_back(cj);
            continue;
        }
        ++checked;
        cj["checked"] = true;
        std::vector<HostTensor> inputs;
        for (const emulate::EmulatedTensor& t : a.inputs) inputs.push_back(host(t));
        Json outs = Json::array();
        bool case_det = true, one_element = true;
        std::map<std::string, bool> copied_here;
        size_t k = 0;
        for (const Arg& arg : task.args) {
            if (!arg.is_output()) continue;
            if (k >= a.outputs.size()) break;
            const HostTensor ref = host(a.outputs[k]), other = host(b.outputs[k]), twice = host(again.outputs[k]);
            ++k;
            OutputControls oc = run_controls(ref, arg, inputs, &other);
            std::vector<HostTensor> inputs_b;
            for (const emulate::EmulatedTensor& t : b.inputs) inputs_b.push_back(host(t));
            const std::vector<std::string> at_b = run_controls(other, arg, inputs_b, &ref).passing();
            std::vector<std::string> both;
            for (const std::string& p : oc.passing())
                if (std::find(at_b.begin(), at_b.end(), p) != at_b.end()) both.push_back(p);
            one_element = one_element && oc.elements <= 1;
            for (size_t i = 0; i < a.inputs.size() && i < b.inputs.size(); ++i)
                if (a.inputs[i].bytes == a.outputs[k - 1].bytes && b.inputs[i].bytes == b.outputs[k - 1].bytes)
                    copied_here[a.inputs[i].name] = true;
            Json oj = {{"output", arg.name},
                       {"dtype", dtype_name(arg.dtype)},
                       {"elements", oc.elements},
                       {"magnitude", magnitude_json(oc.magnitude)},
                       {"tolerance", {{"atol", oc.tolerance.atol}, {"rtol", oc.tolerance.rtol}}},
                       {"passing", oc.passing()},
                       {"passing_at_both_seeds", both}};
            if (ref.bytes != twice.bytes) {
                case_det = false;
                oj["deterministic"] = false;
            }
            if (!oc.discriminating()) {
                // What the magnitude-aware tolerance would do (a kernel task's
                // rule is its own: reported, not applied).
                if (std::optional<Tolerance> t = magnitude_tolerance(ref, oc.tolerance)) {
                    OutputControls tight = run_controls(ref, arg, inputs, &other, t);
                    oj["magnitude_tolerance"] = {{"atol", t->atol}, {"rtol", t->rtol}, {"passing", tight.passing()}};
                }
            }
            outs.push_back(oj);
        }
        if (!one_element) {
            for (const emulate::EmulatedTensor& t : a.inputs)
                copies[t.name] = (any_multi ? copies[t.name] : true) && copied_here.count(t.name);
            any_multi = true;
        }
        cj["outputs"] = outs;
        cj["deterministic"] = case_det;
        cj["one_element"] = one_element;
        deterministic = deterministic && case_det;
        entry["cases"].push_back(cj);
    }
    std::vector<std::string> copied;
    for (const auto& [name, all] : copies)
        if (all && any_multi) copied.push_back(name);
    // Per case: the controls that pass ("output/control"), but for copies.
    auto passing_at = [&](const Json& cj, const char* key) {
        std::set<std::string> out;
        for (const Json& o : cj["outputs"])
            for (const Json& p : o[key]) {
                const std::string ctl = p.get<std::string>();
                bool copy = ctl.rfind("input:", 0) == 0 &&
                            std::find(copied.begin(), copied.end(), ctl.substr(6)) != copied.end();
                if (!copy) out.insert(o["output"].get<std::string>() + "/" + ctl);
            }
        return out;
    };
    std::map<std::string, int> cases_passing;  // "output/control" -> checked cases where it passes
    for (const Json& cj : entry["cases"])
        if (cj.value("checked", false))
            for (const std::string& p : passing_at(cj, "passing")) ++cases_passing[p];
    bool ok = true;
    std::vector<std::string> everywhere;
    for (const auto& [p, n] : cases_passing)
        if (n == checked) everywhere.push_back(p);
    for (Json& cj : entry["cases"]) {
        if (!cj.value("checked", false)) continue;
        const std::set<std::string> failing = passing_at(cj, "passing"), both = passing_at(cj, "passing_at_both_seeds");
        std::string action = "none";
        if (!failing.empty()) {
            bool fails = cj.value("perf", false);
            for (const std::string& p : failing)
                fails = fails || std::find(everywhere.begin(), everywhere.end(), p) != everywhere.end();
            if (fails) {
                action = cj.value("perf", false) ? "fails (perf case)" : "fails (every case)";
                ok = false;
            } else {
                action = both.size() == failing.size() ? "reported (both seeds)" : "reported (one seed)";
            }
        }
        cj["strict"] = {{"action", action}, {"passing", std::vector<std::string>(failing.begin(), failing.end())}};
    }
    if (!everywhere.empty()) entry["passing_at_every_case"] = everywhere;
    entry["checked"] = checked > 0;
    if (!checked) entry["why"] = "no case is small enough to emulate";
    if (!copied.empty()) entry["copies"] = copied;
    entry["deterministic"] = deterministic;
    entry["discriminating"] = ok;
    entry["ok"] = ok;
    return entry;
}

// A Python reference: the importer's audit (kbench_importer.py audit PATH).
Json audit_python(const std::string& path, const std::string& name) {
    Json entry = {{"task", path}, {"reference", "python"}};
    if (!name.empty()) entry["name"] = name;
    std::string out;
    int rc = run_importer({"audit", path}, &out);
    Json r;
    try {
        r = Json::parse(out);
    } catch (const std::exception&) {
        entry["checked"] = false;
        entry["why"] = "kbench's importer did not audit it (exit " + std::to_string(rc) + "; `kbench import` says why)";
        entry["ok"] = false;
        return entry;
    }
    for (auto it = r.begin(); it != r.end(); ++it) entry[it.key()] = it.value();
    return entry;
}

void print_entry(const Json& e) {
    const std::string name = e.value("name", e.value("task", std::string("?")));
    std::printf("%s  (%s reference)\n", name.c_str(), e.value("reference", std::string("?")).c_str());
    if (!e.value("checked", true)) {
        std::printf("  not checked: %s\n", e.value("why", std::string("")).c_str());
        return;
    }
    const Json& controls = e.contains("controls") ? e["controls"] : e;
    if (controls.contains("strict") && controls["strict"].contains("refused"))
        std::printf("  REFUSED under strict: %s\n", controls["strict"]["refused"].get<std::string>().c_str());
    std::printf("  %-14s %-10s %-14s %-10s %-10s %s\n", "case", "output", "controls pass", "strict", "determ.",
                "magnitude (rms, max|x|)");
    for (const Json& c : controls.value("cases", Json::array())) {
        if (!c.value("checked", true)) {
            std::printf("  %-14s not checked: %s\n", c.value("case", std::string("")).c_str(),
                        c.value("why", std::string("")).c_str());
            continue;
        }
        const Json& st = c.value("strict", Json::object());
        std::string action = st.value("action", std::string("none"));
        for (const Json& o : c.value("outputs", Json::array())) {
            std::string pass;
            for (const Json& p : o.value("passing", Json::array())) pass += (pass.empty() ? "" : ",") + p.get<std::string>();
            if (pass.empty()) pass = "none";
            const Json& m = o.value("magnitude", Json::object());
            std::printf("  %-14s %-10s %-14s %-10s %-10s %s, %s\n", c.value("case", std::string("")).c_str(),
                        o.value("output", std::string("")).substr(0, 10).c_str(), pass.c_str(), action.c_str(),
                        c.value("deterministic", true) ? "yes" : "NO", fmt(m.value("rms", 0.0)).c_str(),
                        fmt(m.value("max_abs", 0.0)).c_str());
        }
    }
    if (controls.contains("strict")) {
        const Json& st = controls["strict"];
        if (!st.value("input_transforms", Json::array()).empty())
            std::printf("  strict transforms the inputs: %s\n", st["input_transforms"].dump().c_str());
        if (!st.value("tolerance", Json::object()).empty())
            std::printf("  strict tolerance: %s\n", st["tolerance"].dump().c_str());
        if (!st.value("dropped_cases", Json::array()).empty())
            std::printf("  strict leaves out: %s\n", st["dropped_cases"].dump().c_str());
    }
    if (controls.contains("perf_case") && !controls["perf_case"].value("checked", true))
        std::printf("  perf case '%s' not checked: %s\n", controls["perf_case"].value("case", std::string("")).c_str(),
                    controls["perf_case"].value("why", std::string("")).c_str());
    if (e.contains("copies"))
        std::printf("  copies %s to its output at every case and seed: passing it through is the right answer\n",
                    e["copies"].dump().c_str());
    if (e.contains("note")) std::printf("  note: %s\n", e["note"].get<std::string>().c_str());
}

}  // namespace

int cmd_audit(int argc, char** argv) {
    bool json = false;
    for (int i = 1; i < argc; ++i) json = json || std::string(argv[i]) == "--json";
    // An error of the command itself: the one error document with --json
    // (README, "The command-line tool"), else a line on stderr.
    auto error = [&](int code, const std::string& status, const std::string& msg) {
        if (json) print_json(error_json(code == kExitUsage ? "usage" : "failure", status, msg));
        else std::fprintf(stderr, "kbench audit: %s\n%s", msg.c_str(), code == kExitUsage ? (std::string("\n") + kAuditUsage).c_str() : "");
        return code;
    };
    uint64_t max_elements = uint64_t(1) << 20;
    std::vector<std::string> paths;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            std::printf("%s", kAuditUsage);
            return kExitOk;
        } else if (a == "--json") {
        } else if (a == "--max-elements" && i + 1 < argc) {
            max_elements = std::strtoull(argv[++i], nullptr, 10);
        } else if (!a.empty() && a[0] == '-') {
            return error(kExitUsage, "usage", "unknown option '" + a + "'");
        } else {
            paths.push_back(a);
        }
    }
    if (paths.empty()) return error(kExitUsage, "usage", "name a task, a folder of tasks or a problem file");
    for (const std::string& p : paths)
        if (!kb::file_exists(p) && !std::filesystem::is_directory(p))
            return error(kExitFailed, "not found", p + ": no such file or folder");
    Json all = Json::array();
    int bad = 0;
    try {
        std::vector<std::string> problems, tasks;
        for (const std::string& p : paths) (is_problem_file(p) ? problems : tasks).push_back(p);
        if (!tasks.empty())
            for (const std::string& t : expand_task_args(tasks)) problems.push_back(t);
        for (const std::string& path : problems) {
            Json e;
            if (is_problem_file(path)) {
                e = audit_python(path, "");
            } else {
                TaskPtr task;
                try {
                    task = kb::load_task(path);
                } catch (const Error& err) {
                    e = {{"task", path}, {"checked", false}, {"ok", false}, {"why", err.what()}};
                    all.push_back(e);
                    ++bad;
                    if (!json) std::printf("%s\n  INVALID: %s\n", path.c_str(), err.what());
                    continue;
                }
                e = task->python ? audit_python(path, task->name) : audit_native(path, *task, max_elements);
            }
            if (!e.value("ok", true)) ++bad;
            all.push_back(e);
            if (!json) print_entry(e);
        }
    } catch (const Failure& f) {
        return error(kExitFailed, "failure", f.what());
    }
    if (json) print_json(all);
    return bad ? kExitFailed : kExitOk;
}

}  // namespace kb::cli
