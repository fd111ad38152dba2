// kbench extract: what answer extraction makes of a model's answer
// (docs/batch.md, sections 3 and 4), for one answer or every line of a
// candidates file. Nothing is compiled.
#include <cstdio>
#include <iostream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "evaluate/candidates.h"
#include "evaluate/extract.h"
#include "evaluate/jsonl.h"
#include "evaluate/prepare.h"
#include "evaluate/task_index.h"
#include "cli/commands.h"
#include "cli/subcommand.h"
#include "util/error.h"
#include "util/files.h"

namespace kb::cli {

namespace {

using evaluate::Extraction;
using evaluate::ExtractOptions;
using evaluate::ExtractOutcome;

const char* kExtractUsage =
    "usage: kbench extract [options] FILE|-\n"
    "       kbench extract --candidates FILE.jsonl [--tasks DIR|FILE]... [options]\n"
    "\n"
    "Shows the code kbench would score from a model's raw answer: which block it\n"
    "picked and why, and what it noticed (docs/batch.md, \"Answer extraction\").\n"
    "Nothing is compiled.\n"
    "\n"
    "options:\n"
    "  --task TASK              a task file or folder: its launch plan's kernels are the entries\n"
    "  --language L             cuda, triton or detect (default: detect)\n"
    "  --entry NAME             a kernel (or class) the code must define; repeatable\n"
    "  --include-reasoning      take code found only inside <think>...</think>\n"
    "  --code-only              print only the extracted code\n"
    "  --json                   print JSON (valid JSON on errors too)\n"
    "  --candidates FILE        extract every answer of a candidates JSONL file\n"
    "  --tasks DIR|FILE         where --candidates' task names are found; repeatable\n"
    "  --prepared               with --candidates: print one JSON line per candidate with\n"
    "                           what a run scores (task file, code, language, launch) and\n"
    "                           its result line pre-filled (kbench.ray reads this)\n"
    "\n"
    "exit status: 0 code extracted (--candidates: every line parsed and resolved);\n"
    "             1 no_code, ambiguous, or invalid input; 2 usage error\n"
    "\n"
    "examples:\n"
    "  kbench extract --task tasks/elementwise/vector_add_f32 answer.txt\n"
    "  kbench extract --candidates answers.jsonl --tasks tasks --json | jq .outcomes\n";

const Subcommand kCommand{"extract", kExtractUsage};

struct Options {
    std::string file, task, candidates;
    std::vector<std::string> tasks, entries;
    evaluate::AnswerLanguage language = evaluate::AnswerLanguage::detect;
    bool include_reasoning = false, json = false, code_only = false, prepared = false;
};

// Prints an error in the form the output mode asks for and returns `status`.
Options parse(int argc, char** argv, bool json) {
    Options o;
    o.json = json;
    auto value = [&](int& i) -> std::string {
        if (i + 1 >= argc) throw UsageError{std::string(argv[i]) + " needs a value"};
        return argv[++i];
    };
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--json") continue;
        if (a == "--task") o.task = value(i);
        else if (a == "--language") {
            std::string l = value(i);
            if (!evaluate::parse_answer_language(l, &o.language))
                throw UsageError{"--language expects cuda, triton or detect, got '" + l + "'"};
        } else if (a == "--entry") o.entries.push_back(value(i));
        else if (a == "--include-reasoning") o.include_reasoning = true;
        else if (a == "--code-only") o.code_only = true;
        else if (a == "--candidates") o.candidates = value(i);
        else if (a == "--tasks") o.tasks.push_back(value(i));
        else if (a == "--prepared") o.prepared = true;
        else if (a.size() > 1 && a[0] == '-') throw UsageError{"unknown option '" + a + "'"};
        else if (o.file.empty()) o.file = a;
        else throw UsageError{"more than one answer file given ('" + o.file + "' and '" + a + "')"};
    }
    if (o.candidates.empty() && o.file.empty()) throw UsageError{"no answer file given (use - for standard input)"};
    if (!o.candidates.empty() && !o.file.empty())
        throw UsageError{"give either an answer file or --candidates, not both"};
    if (o.code_only && o.json) throw UsageError{"--code-only and --json exclude each other"};
    if (o.prepared && o.candidates.empty()) throw UsageError{"--prepared applies to --candidates"};
    if (o.prepared && o.code_only) throw UsageError{"--prepared and --code-only exclude each other"};
    if (o.code_only && !o.candidates.empty()) throw UsageError{"--code-only shows one answer; it does not apply to --candidates"};
    return o;
}

std::string read_input(const std::string& path) {
    if (path == "-") return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return kb::read_file(path);
}

void print_text(const Extraction& x) {
    std::printf("outcome   %s\n", evaluate::extract_outcome_name(x.outcome));
    if (!x.language.empty()) std::printf("language  %s\n", x.language.c_str());
    if (x.picked_block > 0) {
        std::string used;
        for (int b : x.used_blocks) used += (used.empty() ? "" : ", ") + std::to_string(b);
        std::printf("block     %d of %d (code from block%s %s)\n", x.picked_block, x.block_count,
                    x.used_blocks.size() > 1 ? "s" : "", used.c_str());
    } else {
        std::printf("blocks    %d\n", x.block_count);
    }
    std::printf("reason    %s\n", x.reason.c_str());
    if (!x.flags.empty()) {
        std::string f;
        for (const std::string& s : x.flags) f += (f.empty() ? "" : ", ") + s;
        std::printf("flags     %s\n", f.c_str());
    }
    for (const std::string& n : x.notes) std::printf("note      %s\n", n.c_str());
    if (x.outcome == ExtractOutcome::ok) {
        int lines = int(std::count(x.code.begin(), x.code.end(), '\n'));
        std::printf("---- code (%d lines) ----\n%s", lines, x.code.c_str());
        if (!x.code.empty() && x.code.back() != '\n') std::printf("\n");
        std::printf("----\n");
    }
}

int extract_one(const Options& o) {
    ExtractOptions eo;
    eo.language = o.language;
    eo.include_reasoning = o.include_reasoning;
    if (!o.task.empty()) {
        evaluate::TaskIndex idx;
        std::string why;
        auto e = idx.resolve(o.task, "", &why);
        if (!e) return report_error(kCommand, o.json, 1, "--task " + o.task + ": " + why);
        try {
            eo.entries = evaluate::task_entries(*idx.load(*e));
        } catch (const kb::Error& err) {
            return report_error(kCommand, o.json, 1, err.what());
        }
    }
    for (const std::string& n : o.entries)
        if (std::find(eo.entries.begin(), eo.entries.end(), n) == eo.entries.end()) eo.entries.push_back(n);
    std::string answer;
    try {
        answer = read_input(o.file);
    } catch (const kb::Error& err) {
        return report_error(kCommand, o.json, 1, err.what());
    }
    Extraction x = evaluate::extract_answer(answer, eo);
    if (o.json) {
        Json j = x.to_json(true, true);
        j["entries"] = eo.entries;
        std::printf("%s\n", j.dump(2, ' ', false, Json::error_handler_t::replace).c_str());
    } else if (o.code_only) {
        if (x.outcome == ExtractOutcome::ok) std::fwrite(x.code.data(), 1, x.code.size(), stdout);
        else std::fprintf(stderr, "kbench extract: %s: %s\n", evaluate::extract_outcome_name(x.outcome), x.reason.c_str());
    } else {
        print_text(x);
    }
    return x.outcome == ExtractOutcome::ok ? 0 : 1;
}

// --prepared: what a batch run would hand its scorer, one JSON line per
// candidate, for runners outside this process (kbench.ray): the same
// prepare_candidate as `kbench run`, so there is one extractor. A bad line of
// the candidates file stops it (nothing is printed but the errors), as a
// run refuses such a file.
int extract_prepared(const Options& o, const evaluate::CandidatesFile& cf, const evaluate::TaskIndex& idx) {
    if (!cf.errors.empty()) {
        if (o.json) {
            Json errs = Json::array();
            for (const auto& e : cf.errors) errs.push_back({{"line", e.line}, {"message", e.message}});
            Json j = error_json("failure", "failed",
                                o.candidates + ": " + std::to_string(cf.errors.size()) + " bad line(s)");
            j["error"]["errors"] = errs;
            std::printf("%s\n", evaluate::dump_json_line(j).c_str());
        } else {
            std::fprintf(stderr, "kbench extract: %s\n", evaluate::format_errors(cf.errors).c_str());
        }
        return 1;
    }
    evaluate::PrepareOptions po;
    po.language = o.language;
    po.include_reasoning = o.include_reasoning;
    po.base_dir = o.candidates == "-" ? "" : kb::dirname_of(o.candidates);
    for (const evaluate::CandidateLine& c : cf.candidates) {
        evaluate::PreparedCandidate pc = evaluate::prepare_candidate(c, idx, po);
        Json j = {{"line", c.line}, {"ready", pc.ready}, {"result", pc.result.to_json()}};
        if (pc.ready) {
            j["task_path"] = pc.task.path;
            j["code"] = pc.code;
            j["language"] = pc.language;
            if (!pc.launch_json.empty()) j["launch_json"] = pc.launch_json;
        }
        std::printf("%s\n", evaluate::dump_json_line(j).c_str());
    }
    return 0;
}

int extract_candidates(const Options& o) {
    evaluate::CandidatesFile cf;
    try {
        cf = evaluate::read_candidates(o.candidates);
    } catch (const kb::Error& err) {
        return report_error(kCommand, o.json, 1, err.what());
    }
    evaluate::TaskIndex idx;
    try {
        for (const std::string& t : o.tasks) idx.add(t);
    } catch (const kb::Error& err) {
        return report_error(kCommand, o.json, 1, err.what());
    }
    if (o.prepared) return extract_prepared(o, cf, idx);
    std::vector<evaluate::LineError> errors = cf.errors;
    std::map<std::string, int> outcomes;
    Json lines = Json::array();
    const std::string base = o.candidates == "-" ? "" : kb::dirname_of(o.candidates);
    if (!o.json)
        std::printf("%-6s %-18s %-10s %-10s %-8s %-6s %s\n", "line", "task", "id", "outcome", "language", "block", "flags / reason");
    evaluate::PrepareOptions po;
    po.language = o.language;
    po.include_reasoning = o.include_reasoning;
    po.base_dir = base;
    for (const evaluate::CandidateLine& c : cf.candidates) {
        evaluate::PreparedCandidate pc = evaluate::prepare_candidate(c, idx, po);
        if (!pc.ready && pc.result.verdict == "error") {
            errors.push_back({c.line, o.candidates + ":" + std::to_string(c.line) + ": " + pc.result.message});
            continue;
        }
        Json row = {{"line", c.line}, {"task", c.key.task}, {"id", c.id}};
        if (c.key.sample) row["sample"] = *c.key.sample;
        std::string outcome = "document", language = pc.language, block = "-", detail;
        if (c.has_answer) {
            const Extraction& x = pc.extraction;
            for (const auto& kv : pc.result.extraction.items()) row[kv.key()] = kv.value();
            outcome = evaluate::extract_outcome_name(x.outcome);
            language = x.language;
            if (x.picked_block) block = std::to_string(x.picked_block) + "/" + std::to_string(x.block_count);
            for (const std::string& f : x.flags) detail += (detail.empty() ? "" : ",") + f;
            if (x.outcome != ExtractOutcome::ok) detail += (detail.empty() ? "" : "; ") + x.reason;
        }
        row["outcome"] = outcome;
        ++outcomes[outcome];
        lines.push_back(std::move(row));
        if (!o.json) {
            std::string id = c.key.id + (c.key.sample ? "#" + std::to_string(*c.key.sample) : "");
            std::printf("%-6d %-18s %-10s %-10s %-8s %-6s %s\n", c.line, c.key.task.substr(0, 18).c_str(),
                        id.substr(0, 10).c_str(), outcome.c_str(), language.c_str(), block.c_str(), detail.c_str());
        }
    }
    std::sort(errors.begin(), errors.end(), [](const auto& a, const auto& b) { return a.line < b.line; });
    if (o.json) {
        Json errs = Json::array();
        for (const auto& e : errors) errs.push_back({{"line", e.line}, {"message", e.message}});
        Json out = {{"file", o.candidates},
                    {"candidates", lines.size()},
                    {"outcomes", outcomes},
                    {"errors", errs},
                    {"task_problems", idx.problems()},
                    {"lines", lines}};
        std::printf("%s\n", out.dump(2, ' ', false, Json::error_handler_t::replace).c_str());
    } else {
        std::string summary;
        for (const auto& [k, n] : outcomes) summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " + k;
        std::printf("\n%zu candidate(s): %s; %zu bad line(s)\n", lines.size(), summary.empty() ? "none" : summary.c_str(),
                    errors.size());
        if (!errors.empty()) std::fprintf(stderr, "%s\n", evaluate::format_errors(errors).c_str());
        for (const std::string& p : idx.problems()) std::fprintf(stderr, "kbench extract: warning: %s\n", p.c_str());
    }
    return errors.empty() ? 0 : 1;
}

}  // namespace

int cmd_extract(int argc, char** argv) {
    return run_subcommand(kCommand, argc, argv, [&](bool json) {
        Options o = parse(argc, argv, json);
        return o.candidates.empty() ? extract_one(o) : extract_candidates(o);
    });
}

}  // namespace kb::cli
