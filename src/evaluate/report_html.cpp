// The HTML report: one self-contained page (inline CSS, inline SVG, no
// scripts, nothing fetched), readable offline and attachable to an issue.
// Plots are drawn here as SVG so the page needs nothing but a browser.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "evaluate/report.h"
#include "kbench.h"

namespace kb::evaluate {

namespace {

std::string esc(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string pct(const std::optional<double>& v) { return v ? fmt("%.1f%%", 100.0 * *v) : "&ndash;"; }

// The verdict groups the per-task bars are coloured by.
struct Category {
    const char* name;
    const char* colour;
};
const std::vector<Category>& categories() {
    static const std::vector<Category> c = {
        {"pass", "#2e7d32"},         {"wrong output", "#f9a825"}, {"crash or hang", "#c62828"},
        {"compile error", "#6d4c41"}, {"no code", "#9e9e9e"},     {"other", "#455a64"}};
    return c;
}

size_t category_of(const std::string& verdict) {
    if (verdict == "pass") return 0;
    if (verdict == "wrong_answer" || verdict == "output_not_written" || verdict == "input_modified" ||
        verdict == "out_of_bounds_write" || verdict == "nondeterministic")
        return 1;
    if (verdict == "runtime_error" || verdict == "launch_error" || verdict == "timeout") return 2;
    if (verdict == "compile_error") return 3;
    if (verdict == "no_code") return 4;
    return 5;
}

// Speedups of passing candidates, on a log2 axis in quarter-octave bins,
// with the 1x line marked.
std::string speedup_histogram(const std::vector<ResultRecord>& records) {
    std::vector<double> l2;
    for (const ResultRecord& r : records)
        if (r.verdict == "pass" && r.speedup && std::isfinite(*r.speedup) && *r.speedup > 0)
            l2.push_back(std::log2(*r.speedup));
    if (l2.empty()) return "<p class=\"muted\">No correct candidate has a speedup (nothing was timed).</p>\n";
    const double bin = 0.25, lo_cap = -4, hi_cap = 4;  // 1/16x .. 16x; beyond that, the end bins
    double lo = std::max(lo_cap, std::floor(*std::min_element(l2.begin(), l2.end()) / bin) * bin);
    double hi = std::min(hi_cap, std::ceil(*std::max_element(l2.begin(), l2.end()) / bin) * bin);
    lo = std::min(lo, -1.0);  // always show 0.5x .. 2x around the 1x line
    hi = std::max(hi, 1.0);
    int nbins = int(std::lround((hi - lo) / bin));
    std::vector<int> counts(size_t(nbins), 0);
    for (double v : l2) {
        int b = int(std::floor((std::clamp(v, lo, hi - 1e-9) - lo) / bin));
        ++counts[size_t(std::clamp(b, 0, nbins - 1))];
    }
    int max_count = *std::max_element(counts.begin(), counts.end());
    const int W = 720, H = 264, left = 50, right = 12, top = 16, bottom = 40;
    const double pw = W - left - right, ph = H - top - bottom;
    auto x_of = [&](double v) { return left + (v - lo) / (hi - lo) * pw; };
    auto y_of = [&](double c) { return top + ph - c / max_count * ph; };
    std::ostringstream s;
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W
      << " " << H << "\" role=\"img\" aria-label=\"Histogram of the speedups of correct candidates\">\n";
    // y axis: about five integer ticks
    int step = std::max(1, int(std::ceil(max_count / 5.0)));
    for (int c = 0; c <= max_count; c += step) {
        double y = y_of(c);
        s << "<line x1=\"" << left << "\" y1=\"" << fmt("%.1f", y) << "\" x2=\"" << W - right << "\" y2=\""
          << fmt("%.1f", y) << "\" stroke=\"#eee\"/>"
          << "<text x=\"" << left - 6 << "\" y=\"" << fmt("%.1f", y + 4) << "\" text-anchor=\"end\">" << c << "</text>\n";
    }
    for (int b = 0; b < nbins; ++b) {
        if (!counts[size_t(b)]) continue;
        double a = lo + b * bin, e = a + bin;
        double x = x_of(a) + 1, w = x_of(e) - x_of(a) - 2, y = y_of(counts[size_t(b)]);
        s << "<rect x=\"" << fmt("%.1f", x) << "\" y=\"" << fmt("%.1f", y) << "\" width=\"" << fmt("%.1f", w)
          << "\" height=\"" << fmt("%.1f", top + ph - y) << "\" fill=\"#1565c0\"><title>" << counts[size_t(b)]
          << " candidate(s) with speedup " << fmt("%.2fx", std::exp2(a)) << " to " << fmt("%.2fx", std::exp2(e))
          << "</title></rect>\n";
    }
    // x axis: powers of two
    s << "<line x1=\"" << left << "\" y1=\"" << top + ph << "\" x2=\"" << W - right << "\" y2=\"" << top + ph
      << "\" stroke=\"#333\"/>\n";
    for (int p = int(std::ceil(lo)); p <= int(std::floor(hi)); ++p) {
        double x = x_of(p);
        std::string label = p >= 0 ? fmt("%.0fx", std::exp2(p)) : "1/" + fmt("%.0fx", std::exp2(-p));
        s << "<line x1=\"" << fmt("%.1f", x) << "\" y1=\"" << top + ph << "\" x2=\"" << fmt("%.1f", x) << "\" y2=\""
          << top + ph + 5 << "\" stroke=\"#333\"/><text x=\"" << fmt("%.1f", x) << "\" y=\"" << top + ph + 18
          << "\" text-anchor=\"middle\">" << label << "</text>\n";
    }
    s << "<line x1=\"" << fmt("%.1f", x_of(0)) << "\" y1=\"" << top << "\" x2=\"" << fmt("%.1f", x_of(0)) << "\" y2=\""
      << top + ph << "\" stroke=\"#c62828\" stroke-dasharray=\"4 3\"/>\n";
    s << "<text x=\"" << left + pw / 2 << "\" y=\"" << H - 6
      << "\" text-anchor=\"middle\">speedup over the baseline (log scale; dashed: 1x)</text>\n";
    s << "</svg>\n";
    return s.str();
}

// One horizontal bar per task: the share of each verdict group.
std::string task_bars(const std::vector<ResultRecord>& records) {
    auto groups = group_records(records, GroupBy::task);
    if (groups.empty()) return "";
    const int label_w = 220, bar_w = 420, row_h = 22, top = 34, W = label_w + bar_w + 150;
    const int H = top + int(groups.size()) * row_h + 8;
    std::ostringstream s;
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W
      << " " << H << "\" role=\"img\" aria-label=\"Results per task\">\n";
    int lx = 0;
    for (const Category& c : categories()) {
        s << "<rect x=\"" << lx << "\" y=\"6\" width=\"12\" height=\"12\" fill=\"" << c.colour << "\"/><text x=\""
          << lx + 16 << "\" y=\"16\">" << c.name << "</text>\n";
        lx += 16 + int(std::string(c.name).size()) * 7 + 18;
    }
    int row = 0;
    for (const auto& [task, recs] : groups) {
        std::vector<int> n(categories().size(), 0);
        for (const ResultRecord* r : recs) ++n[category_of(r->verdict)];
        double y = top + row * row_h;
        std::string label = task.size() > 30 ? task.substr(0, 29) + "\xE2\x80\xA6" : task;
        s << "<text x=\"" << label_w - 8 << "\" y=\"" << y + 14 << "\" text-anchor=\"end\">" << esc(label) << "</text>\n";
        double x = label_w;
        for (size_t c = 0; c < n.size(); ++c) {
            if (!n[c]) continue;
            double w = double(n[c]) / recs.size() * bar_w;
            s << "<rect x=\"" << fmt("%.1f", x) << "\" y=\"" << y + 2 << "\" width=\"" << fmt("%.1f", w)
              << "\" height=\"" << row_h - 6 << "\" fill=\"" << categories()[c].colour << "\"><title>" << esc(task)
              << ": " << n[c] << " " << categories()[c].name << "</title></rect>\n";
            x += w;
        }
        s << "<text x=\"" << label_w + bar_w + 8 << "\" y=\"" << y + 14 << "\">"
          << fmt("%.0f%%", 100.0 * n[0] / recs.size()) << " pass of " << recs.size() << "</text>\n";
        ++row;
    }
    s << "</svg>\n";
    return s.str();
}

void metrics_rows(std::ostringstream& o, const Metrics& m) {
    auto row = [&](const std::string& k, const std::string& v, const std::string& d = "") {
        o << "<tr><td>" << k << "</td><td>" << v << "</td><td class=\"muted\">" << d << "</td></tr>\n";
    };
    row("call accuracy", pct(m.call_accuracy), std::to_string(m.compiled) + " compiled");
    row("exec accuracy", pct(m.exec_accuracy), std::to_string(m.passed) + " pass");
    for (double p : fast_p_thresholds()) {
        std::optional<double> v;
        for (const auto& [t, val] : m.fast_p)
            if (t == p) v = val;
        row("fast<sub>" + threshold_name(p) + "</sub>", pct(v), "correct and more than " + threshold_name(p) + "x faster");
    }
    row("geomean speedup", m.geomean_speedup ? fmt("%.3fx", *m.geomean_speedup) : "&ndash;",
        std::to_string(m.speedups) + " correct candidate(s) with a speedup");
    for (int k : shown_ks(m))
        for (const PassAtK& p : m.pass_at_k)
            if (p.k == k) row("pass@" + std::to_string(k), pct(p.value), "over " + std::to_string(p.problems) + " problem(s)");
    row("efficiency (median)", pct(m.efficiency_median), std::to_string(m.efficiencies) + " figure(s)");
}

}  // namespace

std::string report_html(const Report& r) {
    Metrics m = r.overall();
    std::ostringstream o;
    o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<title>kbench report: " << esc(r.source) << "</title>\n<style>\n"
      << "body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em auto;max-width:1000px;color:#222;"
         "padding:0 1em}\n"
      << "h1{font-size:1.5em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}\n"
      << "table{border-collapse:collapse;margin:.5em 0}th,td{padding:3px 12px;border-bottom:1px solid #eee;"
         "text-align:right}\n"
      << "th:first-child,td:first-child{text-align:left}th{background:#f6f6f6}.muted{color:#777}\n"
      << "svg text{font-family:system-ui,-apple-system,Segoe UI,sans-serif;font-size:12px;fill:#333}\n"
      << ".warn{color:#a15c00}\n</style>\n</head>\n<body>\n";
    o << "<h1>kbench report</h1>\n<p class=\"muted\">" << esc(r.source) << " &middot; " << m.candidates
      << " candidate(s) &middot; " << m.problems << " problem(s) (task &times; model) &middot; kbench "
      << KB_VERSION_MAJOR << "." << KB_VERSION_MINOR << "." << KB_VERSION_PATCH
      << (m.run || !m.candidates ? "" : " &middot; compile-only results: nothing was run") << "</p>\n";
    for (const std::string& w : r.warnings) o << "<p class=\"warn\">warning: " << esc(w) << "</p>\n";

    o << "<h2>Headline</h2>\n<table>\n<tr><th>figure</th><th>value</th><th></th></tr>\n";
    metrics_rows(o, m);
    o << "</table>\n";

    o << "<h2>Verdicts</h2>\n<table>\n<tr><th>verdict</th><th>candidates</th><th>share</th></tr>\n";
    std::vector<std::pair<std::string, int>> v(m.verdicts.begin(), m.verdicts.end());
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [name, n] : v)
        o << "<tr><td>" << esc(name) << "</td><td>" << n << "</td><td>" << fmt("%.1f%%", 100.0 * n / m.candidates)
          << "</td></tr>\n";
    o << "</table>\n";

    o << "<h2>Speedup distribution</h2>\n" << speedup_histogram(r.records);
    o << "<h2>Results per task</h2>\n" << task_bars(r.records);

    auto groups = r.groups();
    if (!groups.empty()) {
        std::vector<int> ks = shown_ks(m);
        o << "<h2>By " << group_by_name(r.by) << "</h2>\n<table>\n<tr><th>" << group_by_name(r.by)
          << "</th><th>n</th><th>call</th><th>exec</th>";
        for (double p : fast_p_thresholds()) o << "<th>fast<sub>" << threshold_name(p) << "</sub></th>";
        o << "<th>geomean</th>";
        for (int k : ks) o << "<th>pass@" << k << "</th>";
        o << "</tr>\n";
        for (const auto& [key, g] : groups) {
            o << "<tr><td>" << esc(key) << "</td><td>" << g.candidates << "</td><td>" << pct(g.call_accuracy)
              << "</td><td>" << pct(g.exec_accuracy) << "</td>";
            for (double p : fast_p_thresholds()) {
                std::optional<double> val;
                for (const auto& [t, x] : g.fast_p)
                    if (t == p) val = x;
                o << "<td>" << pct(val) << "</td>";
            }
            o << "<td>" << (g.geomean_speedup ? fmt("%.3fx", *g.geomean_speedup) : "&ndash;") << "</td>";
            for (int k : ks) {
                std::optional<double> val;
                for (const PassAtK& p : g.pass_at_k)
                    if (p.k == k) val = p.value;
                o << "<td>" << pct(val) << "</td>";
            }
            o << "</tr>\n";
        }
        o << "</table>\n";
    }
    o << "<p class=\"muted\">fast<sub>p</sub>: share of all candidates that pass and are more than p times faster "
         "than the baseline (KernelBench). pass@k: unbiased estimator over the samples of each problem, averaged over "
         "problems with at least k samples. Efficiency: fraction of the device's measured ceiling.</p>\n";
    o << "</body>\n</html>\n";
    return o.str();
}

}  // namespace kb::evaluate
