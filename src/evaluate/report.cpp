#include "evaluate/report.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

namespace kb::evaluate {

Metrics Report::overall() const {
    std::vector<const ResultRecord*> all;
    for (const ResultRecord& rec : records) all.push_back(&rec);
    return compute_metrics(all);
}

std::vector<std::pair<std::string, Metrics>> Report::groups() const {
    std::vector<std::pair<std::string, Metrics>> out;
    if (by == GroupBy::none) return out;
    for (const auto& [key, recs] : group_records(records, by)) out.emplace_back(key, compute_metrics(recs));
    return out;
}

std::vector<int> shown_ks(const Metrics& m) {
    std::vector<int> ks;
    int max_k = m.pass_at_k.empty() ? 0 : m.pass_at_k.back().k;
    for (int k : {1, 5, 10, 20, 50, 100})
        if (k <= max_k) ks.push_back(k);
    if (max_k > 0 && std::find(ks.begin(), ks.end(), max_k) == ks.end()) ks.push_back(max_k);
    return ks;
}

namespace {

Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

std::string pct(const std::optional<double>& v) {
    if (!v) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * *v);
    return buf;
}

std::string fixed(double v, const char* fmt) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

const PassAtK* find_k(const Metrics& m, int k) {
    for (const PassAtK& p : m.pass_at_k)
        if (p.k == k) return &p;
    return nullptr;
}

std::optional<double> fast_at(const Metrics& m, double p) {
    for (const auto& [t, v] : m.fast_p)
        if (t == p) return v;
    return std::nullopt;
}

// Verdicts by count, most frequent first (ties by name).
std::vector<std::pair<std::string, int>> verdicts_by_count(const Metrics& m) {
    std::vector<std::pair<std::string, int>> v(m.verdicts.begin(), m.verdicts.end());
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return v;
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

}  // namespace

Json metrics_json(const Metrics& m) {
    Json j;
    j["candidates"] = m.candidates;
    j["problems"] = m.problems;
    j["call_accuracy"] = opt(m.call_accuracy);
    j["exec_accuracy"] = opt(m.exec_accuracy);
    if (m.fast_p.empty()) {
        j["fast_p"] = nullptr;
    } else {
        Json f = Json::object();
        for (const auto& [p, v] : m.fast_p) f[threshold_name(p)] = v;
        j["fast_p"] = f;
    }
    j["geomean_speedup"] = opt(m.geomean_speedup);
    Json pk = Json::object(), pkn = Json::object();
    for (const PassAtK& p : m.pass_at_k) {
        pk[std::to_string(p.k)] = p.value;
        pkn[std::to_string(p.k)] = p.problems;
    }
    j["pass_at_k"] = m.run ? pk : Json(nullptr);
    j["pass_at_k_problems"] = m.run ? pkn : Json(nullptr);
    j["efficiency_median"] = opt(m.efficiency_median);
    j["verdicts"] = m.verdicts;
    j["counts"] = {{"compiled", m.compiled},
                   {"passed", m.passed},
                   {"speedups", m.speedups},
                   {"passed_without_speedup", m.passed_without_speedup},
                   {"efficiencies", m.efficiencies}};
    j["run"] = m.run;
    return j;
}

Json report_json(const Report& r) {
    Json j = {{"file", r.source}};
    Json figures = metrics_json(r.overall());  // (named: items() of a temporary would dangle)
    for (const auto& kv : figures.items()) j[kv.key()] = kv.value();
    j["group_by"] = group_by_name(r.by);
    Json g = Json::object();
    for (const auto& [key, m] : r.groups()) g[key] = metrics_json(m);
    j["groups"] = g;
    j["warnings"] = r.warnings;
    return j;
}

std::string report_text(const Report& r) {
    Metrics m = r.overall();
    std::ostringstream o;
    o << r.source << ": " << m.candidates << " candidate(s), " << m.problems << " problem(s) (task x model)";
    if (!m.run && m.candidates > 0) o << "; compile-only results: nothing was run";
    o << "\n\n";
    auto row = [&](const std::string& name, const std::string& value, const std::string& detail = "") {
        char buf[64];
        std::snprintf(buf, sizeof buf, "  %-17s %9s", name.c_str(), value.c_str());
        o << buf << (detail.empty() ? "" : "  " + detail) << "\n";
    };
    row("call accuracy", pct(m.call_accuracy), std::to_string(m.compiled) + " compiled");
    row("exec accuracy", pct(m.exec_accuracy), std::to_string(m.passed) + " pass");
    for (double p : fast_p_thresholds()) row("fast_" + threshold_name(p), pct(fast_at(m, p)));
    row("geomean speedup", m.geomean_speedup ? fixed(*m.geomean_speedup, "%.3fx") : "-",
        m.speedups ? "over " + std::to_string(m.speedups) + " correct candidate(s) with a speedup" : "");
    for (int k : shown_ks(m)) {
        const PassAtK* p = find_k(m, k);
        row("pass@" + std::to_string(k), pct(p ? std::optional<double>(p->value) : std::nullopt),
            p ? "over " + std::to_string(p->problems) + " problem(s)" : "");
    }
    row("efficiency", m.efficiency_median ? pct(m.efficiency_median) : "-",
        m.efficiencies ? "median of " + std::to_string(m.efficiencies) + " (of the device's measured ceiling)" : "");
    if (m.passed_without_speedup)
        o << "  (" << m.passed_without_speedup << " passing candidate(s) have no speedup: not counted in fast_p)\n";
    o << "\n  verdicts\n";
    for (const auto& [v, n] : verdicts_by_count(m)) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "    %-22s %6d  %6.1f%%\n", v.c_str(), n, 100.0 * n / std::max(1, m.candidates));
        o << buf;
    }
    auto groups = r.groups();
    if (!groups.empty()) {
        std::vector<int> ks = shown_ks(m);
        size_t w = 12;
        for (const auto& g : groups) w = std::max(w, g.first.size());
        o << "\n  by " << group_by_name(r.by) << "\n";
        char buf[512];
        std::snprintf(buf, sizeof buf, "    %-*s %6s %7s %7s %7s %7s %8s", int(w), group_by_name(r.by), "n", "call", "exec",
                      "fast_1", "fast_2", "geomean");
        o << buf;
        for (int k : ks) o << " pass@" << k;
        o << "\n";
        for (const auto& [key, g] : groups) {
            std::snprintf(buf, sizeof buf, "    %-*s %6d %7s %7s %7s %7s %8s", int(w), key.c_str(), g.candidates,
                          pct(g.call_accuracy).c_str(), pct(g.exec_accuracy).c_str(), pct(fast_at(g, 1.0)).c_str(),
                          pct(fast_at(g, 2.0)).c_str(),
                          g.geomean_speedup ? fixed(*g.geomean_speedup, "%.3fx").c_str() : "-");
            o << buf;
            for (int k : ks) {
                const PassAtK* p = find_k(g, k);
                std::string label = " pass@" + std::to_string(k);
                std::snprintf(buf, sizeof buf, "%*s", int(label.size()),
                              pct(p ? std::optional<double>(p->value) : std::nullopt).c_str());
                o << buf;
            }
            o << "\n";
        }
    }
    for (const std::string& w : r.warnings) o << "\nwarning: " << w;
    if (!r.warnings.empty()) o << "\n";
    return o.str();
}

std::string report_csv(const Report& r) {
    Metrics all = r.overall();
    std::vector<int> ks = shown_ks(all);
    std::set<std::string> verdict_names;
    for (const auto& kv : all.verdicts) verdict_names.insert(kv.first);
    std::ostringstream o;
    o << "group,candidates,problems,call_accuracy,exec_accuracy";
    for (double p : fast_p_thresholds()) o << ",fast_" << threshold_name(p);
    o << ",geomean_speedup";
    for (int k : ks) o << ",pass@" << k;
    o << ",efficiency_median";
    for (const std::string& v : verdict_names) o << "," << csv_field(v);
    o << "\n";
    auto num = [](const std::optional<double>& v) { return v ? fixed(*v, "%.6g") : std::string(); };
    auto line = [&](const std::string& key, const Metrics& m) {
        o << csv_field(key) << "," << m.candidates << "," << m.problems << "," << num(m.call_accuracy) << ","
          << num(m.exec_accuracy);
        for (double p : fast_p_thresholds()) o << "," << num(fast_at(m, p));
        o << "," << num(m.geomean_speedup);
        for (int k : ks) {
            const PassAtK* p = find_k(m, k);
            o << "," << (p ? num(p->value) : std::string());
        }
        o << "," << num(m.efficiency_median);
        for (const std::string& v : verdict_names) {
            auto it = m.verdicts.find(v);
            o << "," << (it == m.verdicts.end() ? 0 : it->second);
        }
        o << "\n";
    };
    line("all", all);
    for (const auto& [key, m] : r.groups()) line(key, m);
    return o.str();
}

}  // namespace kb::evaluate
