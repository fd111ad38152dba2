#include "cli/validate_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "task/output_lint.h"
#include "task/task.h"

namespace kb::cli {
namespace {

OutputFinding::Kind kind_from_name(const std::string& n) {
    for (auto k : {OutputFinding::Kind::constant, OutputFinding::Kind::near_zero, OutputFinding::Kind::near_mean,
                   OutputFinding::Kind::nan})
        if (n == finding_kind_name(k)) return k;
    return OutputFinding::Kind::nan;  // an unknown kind never fails a task
}

uint64_t digest_from_hex(const Json& j) { return j.is_string() ? std::strtoull(j.get<std::string>().c_str(), nullptr, 16) : 0; }

}  // namespace

std::vector<std::string> reference_lint_on_device(kb_context* ctx, kb_task* task, const std::string& path,
                                                  Json* warnings, std::string* error) {
    // The lint works on the task model; the reference runs go through the
    // public API like everything else the tool does.
    TaskPtr model = load_task(path);
    std::vector<CheckedOutput> checked;
    for (int i = 0; i < kb_task_case_count(task); ++i) {
        Json runs[2];
        for (uint64_t seed : {0, 1}) {
            kb_result* r = nullptr;
            kb_status s = kb_run_reference(ctx, task, i, seed, &r);
            if (s != KB_OK) {
                *error = std::string(kb_status_string(s)) + ": " + kb_last_error();
                kb_result_destroy(r);
                return lint_failures(*model, checked);
            }
            runs[seed] = Json::parse(kb_result_json(r));
            kb_result_destroy(r);
        }
        for (const auto& w : runs[0]["warnings"]) warnings->push_back(w);
        const Json& outs = runs[0]["outputs"];
        const Json& outs2 = runs[1]["outputs"];
        for (size_t k = 0; k < outs.size(); ++k) {
            CheckedOutput co;
            co.case_index = i;
            co.output = outs[k]["name"].get<std::string>();
            co.summary.elements = outs[k].value("elements", uint64_t(0));
            co.summary.digest = digest_from_hex(outs[k]["digest"]);
            for (const auto& f : outs[k]["findings"])
                co.summary.findings.push_back({kind_from_name(f["kind"].get<std::string>()), f["message"].get<std::string>()});
            co.second_seed = k < outs2.size() && outs2[k].contains("digest");
            if (co.second_seed) co.second_digest = digest_from_hex(outs2[k]["digest"]);
            checked.push_back(std::move(co));
        }
    }
    return lint_failures(*model, checked);
}

Json oracle_check_json(const emulate::TaskOracleCheck& c) {
    Json cases = Json::array();
    for (const auto& cc : c.cases) {
        Json j = {{"case", cc.name}, {"perf", cc.perf}, {"emulated", cc.emulated}, {"elements", cc.elements},
                  {"threads", cc.threads}};
        if (!cc.emulated) j["skipped"] = cc.skipped;
        else j["run_ms"] = cc.run_ms;
        Json outs = Json::array();
        for (const auto& o : cc.outputs) {
            Json oj = {{"name", o.name},
                       {"elements", o.elements},
                       {"outside_bound", o.outside},
                       {"bound", {{"atol", o.bound_atol}, {"rtol", o.bound_rtol}}}};
            oj["worst_of_bound"] = std::isinf(o.worst) ? Json(nullptr) : Json(o.worst);
            if (o.outside) oj["first_outside"] = o.first_outside;
            outs.push_back(oj);
        }
        j["outputs"] = outs;
        cases.push_back(j);
    }
    return {{"ok", c.ok()},       {"failures", c.failures},           {"warnings", c.warnings},
            {"cases", cases},     {"compile_ms", c.compile_ms},       {"module_cached", c.module_cached}};
}

std::string oracle_check_summary(const emulate::TaskOracleCheck& c) {
    int emulated = 0;
    double worst = 0;
    bool outside = false, bounded = false;
    for (const auto& cc : c.cases) {
        emulated += cc.emulated;
        for (const auto& o : cc.outputs) {
            worst = std::max(worst, o.worst);
            outside = outside || o.outside > 0;
            bounded = bounded || o.bound_atol > 0 || o.bound_rtol > 0;
        }
    }
    if (emulated == 0) return "oracle: no case emulated";
    char buf[160];
    int n = std::snprintf(buf, sizeof buf, "oracle: %d of %zu cases emulated", emulated, c.cases.size());
    if (outside) std::snprintf(buf + n, sizeof buf - size_t(n), ", outside the oracle's bound");
    else if (!bounded) std::snprintf(buf + n, sizeof buf - size_t(n), ", exact");
    else std::snprintf(buf + n, sizeof buf - size_t(n), ", worst error %.2g of the bound", worst);
    return buf;
}

}  // namespace kb::cli
