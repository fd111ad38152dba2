// kbench report: the figures of a results file (docs/batch.md, "kbench
// report"): a text table, --json, --csv, and a self-contained --html page.
#include <cstdio>
#include <string>
#include <vector>

#include "evaluate/jsonl.h"
#include "evaluate/report.h"
#include "evaluate/results.h"
#include "evaluate/task_index.h"
#include "cli/commands.h"
#include "cli/subcommand.h"
#include "util/error.h"
#include "util/files.h"

namespace kb::cli {

namespace {

const char* kReportUsage =
    "usage: kbench report [options] RESULTS.jsonl\n"
    "\n"
    "The figures benchmarks publish, from a results file (docs/batch.md):\n"
    "call accuracy, execution accuracy, fast_p (p = 0, 1, 1.5, 2), geometric-mean\n"
    "speedup, pass@k, efficiency, and the verdicts.\n"
    "\n"
    "options:\n"
    "  --by task|family|model   the same figures per group\n"
    "  --json                   print JSON (valid JSON on errors too)\n"
    "  --csv                    print CSV: one row for all, one per group\n"
    "  --html FILE              also write one self-contained HTML page with plots\n"
    "  --tasks DIR|FILE         where to look up the family of results that lack one; repeatable\n"
    "\n"
    "exit status: 0 report produced; 1 unreadable or invalid results file; 2 usage error\n"
    "\n"
    "examples:\n"
    "  kbench report results.jsonl\n"
    "  kbench report --by model --html report.html results.jsonl\n"
    "  kbench report --json results.jsonl | jq '.fast_p[\"1\"]'\n";

const Subcommand kCommand{"report", kReportUsage};

struct Options {
    std::string file, html;
    std::vector<std::string> tasks;
    evaluate::GroupBy by = evaluate::GroupBy::none;
    bool json = false, csv = false;
};

Options parse(int argc, char** argv) {
    Options o;
    auto value = [&](int& i) -> std::string {
        if (i + 1 >= argc) throw UsageError{std::string(argv[i]) + " needs a value"};
        return argv[++i];
    };
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--json") o.json = true;
        else if (a == "--csv") o.csv = true;
        else if (a == "--html") o.html = value(i);
        else if (a == "--tasks") o.tasks.push_back(value(i));
        else if (a == "--by") {
            std::string b = value(i);
            if (!evaluate::parse_group_by(b, &o.by)) throw UsageError{"--by expects task, family or model, got '" + b + "'"};
        } else if (a.size() > 1 && a[0] == '-') throw UsageError{"unknown option '" + a + "'"};
        else if (o.file.empty()) o.file = a;
        else throw UsageError{"more than one results file given ('" + o.file + "' and '" + a + "')"};
    }
    if (o.file.empty()) throw UsageError{"no results file given"};
    if (o.json && o.csv) throw UsageError{"--json and --csv exclude each other"};
    return o;
}

}  // namespace

int cmd_report(int argc, char** argv) {
    return run_subcommand(kCommand, argc, argv, [&](bool) {
        Options o = parse(argc, argv);
        if (!kb::file_exists(o.file))
            return report_error(kCommand, o.json, 1, "results file " + o.file + ": no such file");
        evaluate::ResultsFile f = evaluate::read_results(o.file);
        if (!f.errors.empty())
            return report_error(kCommand, o.json, 1,
                                o.file + ": " + std::to_string(f.errors.size()) +
                                    " invalid line(s); expected one result object per line (docs/batch.md)",
                                f.errors);
        evaluate::Report r;
        r.source = o.file;
        r.by = o.by;
        r.records = std::move(f.records);
        if (f.truncated_tail)
            r.warnings.push_back("the last line (" + std::to_string(f.truncated_tail->first) + ", " +
                                 std::to_string(f.truncated_tail->second) +
                                 " bytes) was cut off by an interrupted run and is left out; resuming the run redoes it");
        if (f.duplicates)
            r.warnings.push_back(std::to_string(f.duplicates) +
                                 " result(s) repeat an earlier (task, id, sample); the later line is counted");
        if (!o.tasks.empty()) {
            evaluate::TaskIndex idx;
            for (const std::string& t : o.tasks) idx.add(t);
            for (evaluate::ResultRecord& rec : r.records) {
                if (!rec.family.empty()) continue;
                std::string why;
                if (auto e = idx.resolve(rec.display_task(), kb::dirname_of(o.file), &why)) rec.family = e->family;
            }
        }
        if (!o.html.empty()) kb::write_file_atomic(o.html, evaluate::report_html(r));
        if (o.json) {
            Json j = evaluate::report_json(r);
            if (!o.html.empty()) j["html"] = o.html;
            std::printf("%s\n", j.dump(2, ' ', false, Json::error_handler_t::replace).c_str());
        } else if (o.csv) {
            std::printf("%s", evaluate::report_csv(r).c_str());
        } else {
            std::printf("%s", evaluate::report_text(r).c_str());
            if (!o.html.empty()) std::printf("\nwrote %s\n", o.html.c_str());
        }
        return 0;
    });
}

}  // namespace kb::cli
