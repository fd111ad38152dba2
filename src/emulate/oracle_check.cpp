#include "emulate/oracle_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "task/output_lint.h"
#include "util/error.h"

namespace kb::emulate {
namespace {

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string index_text(const std::vector<int64_t>& shape, uint64_t flat) {
    if (shape.empty()) return "[]";
    std::vector<int64_t> idx(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
        int64_t s = std::max<int64_t>(shape[d], 1);
        idx[d] = int64_t(flat % uint64_t(s));
        flat /= uint64_t(s);
    }
    std::string out = "[";
    for (size_t d = 0; d < idx.size(); ++d) out += (d ? ", " : "") + std::to_string(idx[d]);
    return out + "]";
}

std::string case_label(const Case& c) { return std::string(c.perf ? "the perf case '" : "case '") + c.name + "'"; }

// |value - truth| within atol + rtol |truth| (NaN never; equal infinities do).
bool within(double value, double truth, double atol, double rtol) {
    if (std::isnan(value) || std::isnan(truth)) return false;
    if (std::isinf(value) || std::isinf(truth)) return value == truth;
    return std::fabs(value - truth) <= atol + rtol * std::fabs(truth);
}

}  // namespace

TaskOracleCheck check_task_with_oracle(const std::string& task_path, const OraclePlugin& oracles,
                                       const OracleCheckOptions& options) {
    TaskOracleCheck r;
    r.path = task_path;
    TaskPtr task;
    try {
        task = load_task(task_path);
    } catch (const Error& e) {
        r.failures.push_back(e.what());
        return r;
    }
    r.name = task->name;
    if (!oracles.has(task->name)) {
        r.failures.push_back("task " + task->name + " has no float64 oracle in " + oracles.path() +
                             "; register one (tests/oracles/<family>.cpp, KB_REGISTER_ORACLE) so its reference can "
                             "be checked");
        return r;
    }

    std::unique_ptr<EmulatedModule> module;
    try {
        module = EmulatedModule::build(task->reference, task->policy, "the reference of " + task->name, options.module);
    } catch (const Error& e) {
        if (e.status() == KB_ERR_NOT_FOUND) throw;  // the machine, not the task
        r.failures.push_back(e.what());
        return r;
    }
    r.compile_ms = module->compile_ms();
    r.module_cached = module->from_cache();

    std::vector<CheckedOutput> lint;
    std::set<std::string> loose_bound_reported;  // once per output, at the first case
    for (size_t ci = 0; ci < task->cases.size(); ++ci) {
        const Case& c = task->cases[ci];
        CaseCheck cc;
        cc.name = c.name;
        cc.perf = c.perf;
        CaseSize size = case_size(*task, task->reference, int(ci));
        cc.elements = size.elements;
        cc.threads = size.threads;
        if (size.elements > options.max_elements || size.threads > options.max_threads) {
            cc.skipped = "too large to emulate (" + std::to_string(size.elements) + " elements, " +
                         std::to_string(size.threads) + " threads)";
            r.cases.push_back(cc);
            continue;
        }
        cc.emulated = true;
        const std::string where = "task " + task->name + ", " + case_label(c);
        EmulatedRun run, second;
        try {
            run = emulate_case(*task, task->reference, *module, int(ci), options.seed, options.emulate);
            second = emulate_case(*task, task->reference, *module, int(ci), options.second_seed, options.emulate);
        } catch (const Error& e) {
            r.failures.push_back(e.what());
            r.cases.push_back(cc);
            continue;
        }
        cc.run_ms = run.run_ms;
        for (const std::string& name : run.written_out_of_bounds)
            r.failures.push_back(where + ": the reference wrote past the end (or before the start) of '" + name +
                                 "'; check its indices against the sizes at this case");
        for (const std::string& name : run.inputs_modified)
            r.failures.push_back(where + ": the reference modified its input '" + name +
                                 "'; an `in` buffer must be left as it was (make it `inout` if the kernel writes it)");

        // Float64 truth from the same inputs.
        std::map<std::string, int64_t> dims(c.dims.begin(), c.dims.end());
        std::map<std::string, std::vector<double>> inputs;
        for (const EmulatedTensor& t : run.inputs) {
            std::vector<double>& v = inputs[t.name];
            v.resize(t.count());
            for (uint64_t i = 0; i < t.count(); ++i) v[i] = t.at(i);
        }
        std::map<std::string, std::vector<double>> truth;
        try {
            truth = oracles.compute(task->name, dims, inputs);
        } catch (const Error& e) {
            r.failures.push_back(where + ": " + e.what());
            r.cases.push_back(cc);
            continue;
        }

        size_t k = 0;
        for (const Arg& a : task->args) {
            if (!a.is_output()) continue;
            const EmulatedTensor& got = run.outputs[k];
            const uint64_t unwritten = run.unwritten[k];
            const uint64_t second_digest =
                summarize_output(*task, c, a, second.outputs[k].bytes.data(), second.outputs[k].count()).digest;
            ++k;
            const std::string out_where = where + ", output '" + a.name + "'";
            OutputCheck oc;
            oc.name = a.name;
            oc.elements = got.count();
            if (unwritten)
                r.failures.push_back(out_where + ": the reference left " + std::to_string(unwritten) + " of " +
                                     std::to_string(got.count()) +
                                     " elements unwritten (still kbench's poison); the reference must write every "
                                     "element of every output");

            CheckedOutput co;
            co.case_index = int(ci);
            co.output = a.name;
            co.summary = summarize_output(*task, c, a, got.bytes.data(), got.count());
            co.second_seed = true;
            co.second_digest = second_digest;
            lint.push_back(co);

            auto t = truth.find(a.name);
            if (t == truth.end()) {
                r.failures.push_back(out_where + ": the oracle computed no output of that name");
                cc.outputs.push_back(oc);
                continue;
            }
            if (t->second.size() != got.count()) {
                r.failures.push_back(out_where + ": the oracle computed " + std::to_string(t->second.size()) +
                                     " elements, the task's shape has " + std::to_string(got.count()));
                cc.outputs.push_back(oc);
                continue;
            }
            double atol = 0, rtol = 0;
            try {
                std::tie(atol, rtol) = oracles.bound(task->name, a.name, dims);
            } catch (const Error& e) {
                r.failures.push_back(out_where + ": " + e.what());
                cc.outputs.push_back(oc);
                continue;
            }
            oc.bound_atol = atol;
            oc.bound_rtol = rtol;
            // The bound must leave a candidate as accurate as the reference
            // room to pass: at most half the task's tolerance.
            const Tolerance tol = dtype_is_float(a.dtype) && a.tolerance ? *a.tolerance : Tolerance{};
            if ((atol > tol.atol / 2 * (1 + 1e-12) || rtol > tol.rtol / 2 * (1 + 1e-12)) &&
                loose_bound_reported.insert(a.name).second)
                r.failures.push_back(out_where + ": the oracle's bound (atol " + num(atol) + ", rtol " + num(rtol) +
                                     ") is more than half the task's tolerance (atol " + num(tol.atol) + ", rtol " +
                                     num(tol.rtol) +
                                     "), so a candidate as accurate as the reference could fail; tighten the bound's "
                                     "derivation or widen the tolerance (and say why in the description)");
            for (uint64_t i = 0; i < got.count(); ++i) {
                const double v = got.at(i), w = t->second[i];
                if (!within(v, w, atol, rtol)) {
                    if (oc.outside++ == 0)
                        oc.first_outside = index_text(got.shape, i) + ": reference " + num(v) + " vs truth " + num(w);
                    oc.worst = INFINITY;
                } else if (atol + rtol * std::fabs(w) > 0 && oc.worst != INFINITY) {
                    oc.worst = std::max(oc.worst, std::fabs(v - w) / (atol + rtol * std::fabs(w)));
                }
            }
            if (oc.outside)
                r.failures.push_back(out_where + ": " + std::to_string(oc.outside) + " of " + std::to_string(oc.elements) +
                                     " elements are outside the oracle's bound (atol " + num(atol) + ", rtol " +
                                     num(rtol) + "), first at " + oc.first_outside +
                                     "; the reference (or the oracle, or its bound) is wrong");
            cc.outputs.push_back(oc);
        }
        r.cases.push_back(cc);
    }

    bool any = false;
    for (const CaseCheck& cc : r.cases) any = any || cc.emulated;
    if (!any)
        r.failures.push_back("task " + task->name + ": no case is small enough to emulate (at most " +
                             std::to_string(options.max_elements) + " buffer elements and " +
                             std::to_string(options.max_threads) +
                             " threads); add a small case (sizes 1, a prime, ...) so the reference can be checked "
                             "without a GPU");
    for (std::string& m : lint_failures(*task, lint)) r.failures.push_back(std::move(m));
    for (const CheckedOutput& co : lint)
        for (const OutputFinding& f : co.summary.findings) r.warnings.push_back(f.message);
    return r;
}

}  // namespace kb::emulate
