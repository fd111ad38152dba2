// Rendering a results file's figures (metrics.h): a text table, JSON, CSV,
// and one self-contained HTML page with inline SVG plots (report_html.cpp).
// docs/batch.md ("kbench report") documents every field.
#pragma once

#include <string>
#include <vector>

#include "evaluate/metrics.h"
#include "evaluate/results.h"
#include "util/json.h"

namespace kb::evaluate {

struct Report {
    std::string source;                 // the results file, for titles
    std::vector<ResultRecord> records;  // one per candidate
    GroupBy by = GroupBy::none;
    std::vector<std::string> warnings;  // about the input (cut-off last line, duplicates, ...)

    Metrics overall() const;
    std::vector<std::pair<std::string, Metrics>> groups() const;  // empty when by == none
};

// The figures of one set of records as JSON: call_accuracy, exec_accuracy,
// fast_p {"0": .., "1": .., "1.5": .., "2": ..}, geomean_speedup,
// pass_at_k {"1": ..}, verdicts {...}, plus counts. Unknown figures are null.
Json metrics_json(const Metrics& m);
// The whole report: the figures at the top level, "groups" {key: figures}.
Json report_json(const Report& r);
std::string report_text(const Report& r);
// One row per set: "all", then each group.
std::string report_csv(const Report& r);
// One HTML page, no network: tables, a speedup histogram and per-task result
// bars as inline SVG.
std::string report_html(const Report& r);

// The k values tables show: 1, 5, 10, 20, 50, 100 up to the largest n, and
// the largest n itself.
std::vector<int> shown_ks(const Metrics& m);

}  // namespace kb::evaluate
