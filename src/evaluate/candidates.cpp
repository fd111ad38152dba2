#include "evaluate/candidates.h"

#include <algorithm>
#include <iostream>
#include <iterator>
#include <map>

#include "evaluate/jsonl.h"
#include "util/error.h"
#include "util/files.h"

namespace kb::evaluate {

bool CandidateKey::operator<(const CandidateKey& o) const {
    if (task != o.task) return task < o.task;
    if (id != o.id) return id < o.id;
    return sample < o.sample;
}

bool CandidateKey::operator==(const CandidateKey& o) const {
    return task == o.task && id == o.id && sample == o.sample;
}

std::string CandidateKey::describe() const {
    std::string s = "task '" + task + "', id " + id;
    if (sample) s += ", sample " + std::to_string(*sample);
    return s;
}

namespace {

const std::vector<std::string> kKeys = {"task", "id", "sample", "model", "answer", "candidate", "language", "meta"};

class LineParser {
public:
    LineParser(const std::string& label, int line, std::vector<LineError>& errors)
        : label_(label), line_(line), errors_(errors) {}

    // False (with an error recorded) when the line is not a valid candidate.
    bool parse(const std::string& text, CandidateLine& out) {
        std::string why;
        std::optional<Json> doc = parse_json_line(text, &why);
        if (!doc) return fail(why, "one JSON object per line");
        if (!doc->is_object())
            return fail("the line is " + describe_json(*doc), "a JSON object such as {\"task\": ..., \"id\": ..., \"answer\": ...}");
        const Json& j = *doc;
        for (const auto& kv : j.items()) {
            if (std::find(kKeys.begin(), kKeys.end(), kv.key()) != kKeys.end()) continue;
            std::string near = nearest_key(kv.key(), kKeys);
            return fail("unknown field \"" + kv.key() + "\"" + (near.empty() ? "" : " (did you mean \"" + near + "\"?)"),
                        "only task, id, sample, model, answer, candidate, language and meta");
        }
        out.line = line_;
        // task
        auto task = j.find("task");
        if (task == j.end()) return fail("\"task\" is missing", "the name of a task under --tasks, or a task file's path");
        if (!task->is_string() || task->get<std::string>().empty())
            return fail("\"task\" is " + describe_json(*task), "a non-empty string: a task name or a task file's path");
        out.key.task = task->get<std::string>();
        // id
        auto id = j.find("id");
        if (id == j.end()) return fail("\"id\" is missing", "a string or an integer that identifies the candidate");
        if (id->is_string() && !id->get<std::string>().empty()) {
            out.key.id = id->get<std::string>();
        } else if (id->is_number_integer()) {
            out.key.id = id->dump();
        } else {
            return fail("\"id\" is " + describe_json(*id), "a non-empty string or an integer");
        }
        out.id = *id;
        // sample
        if (auto s = j.find("sample"); s != j.end()) {
            if (!s->is_number_integer() || s->get<int64_t>() < 0)
                return fail("\"sample\" is " + describe_json(*s), "an integer >= 0 (the sample's number for its problem)");
            out.key.sample = s->get<int64_t>();
        }
        // model
        if (auto m = j.find("model"); m != j.end()) {
            if (!m->is_string()) return fail("\"model\" is " + describe_json(*m), "a string naming the model");
            out.model = m->get<std::string>();
        }
        // language
        if (auto l = j.find("language"); l != j.end()) {
            if (!l->is_string() || (l->get<std::string>() != "cuda" && l->get<std::string>() != "triton"))
                return fail("\"language\" is " + (l->is_string() ? "'" + l->get<std::string>() + "'" : describe_json(*l)),
                            "\"cuda\" or \"triton\" (the language the answer should be in)");
            out.language = l->get<std::string>();
        }
        // meta
        if (auto m = j.find("meta"); m != j.end()) {
            if (!m->is_object()) return fail("\"meta\" is " + describe_json(*m), "a JSON object (copied into the result)");
            out.meta = *m;
        }
        // answer | candidate
        auto answer = j.find("answer");
        auto cand = j.find("candidate");
        if (answer != j.end() && cand != j.end())
            return fail("both \"answer\" and \"candidate\" are given",
                        "exactly one: \"answer\" (a model's raw text) or \"candidate\" (a kbench-candidate/1 document)");
        if (answer == j.end() && cand == j.end())
            return fail("neither \"answer\" nor \"candidate\" is given",
                        "\"answer\" (a model's raw text) or \"candidate\" (a kbench-candidate/1 document)");
        if (answer != j.end()) {
            if (!answer->is_string())
                return fail("\"answer\" is " + describe_json(*answer), "a string: the model's whole answer");
            out.has_answer = true;
            out.answer = answer->get<std::string>();
        } else {
            if (!cand->is_object())
                return fail("\"candidate\" is " + describe_json(*cand),
                            "a kbench-candidate/1 document object (docs/task-format.md, section 15)");
            auto f = cand->find("format");
            if (f == cand->end() || !f->is_string() || f->get<std::string>() != "kbench-candidate/1")
                return fail("\"candidate\" has no \"format\": \"kbench-candidate/1\"",
                            "a kbench-candidate/1 document object (docs/task-format.md, section 15)");
            out.candidate = *cand;
        }
        return true;
    }

private:
    bool fail(const std::string& what, const std::string& expected) {
        errors_.push_back({line_, label_ + ":" + std::to_string(line_) + ": " + what + "; expected " + expected});
        return false;
    }

    const std::string& label_;
    int line_;
    std::vector<LineError>& errors_;
};

}  // namespace

CandidatesFile parse_candidates(const std::string& text, const std::string& label) {
    CandidatesFile f;
    std::map<CandidateKey, int> seen;
    for (const TextLine& l : split_text_lines(text)) {
        if (l.text.find_first_not_of(" \t") == std::string::npos) {
            ++f.blank_lines;
            continue;
        }
        CandidateLine c;
        if (!LineParser(label, l.number, f.errors).parse(l.text, c)) continue;
        auto [it, fresh] = seen.emplace(c.key, l.number);
        if (!fresh) {
            f.errors.push_back({l.number, label + ":" + std::to_string(l.number) + ": " + c.key.describe() +
                                              " appears again (first at line " + std::to_string(it->second) +
                                              "); expected (task, id, sample) to be unique"});
            continue;
        }
        f.candidates.push_back(std::move(c));
    }
    return f;
}

CandidatesFile read_candidates(const std::string& path) {
    std::string text;
    if (path == "-") {
        text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else {
        text = read_file(path);
    }
    return parse_candidates(text, path == "-" ? "<stdin>" : path);
}

std::string format_errors(const std::vector<LineError>& errors, size_t max) {
    std::string out;
    for (size_t i = 0; i < errors.size() && i < max; ++i) out += (i ? "\n" : "") + errors[i].message;
    if (errors.size() > max) out += "\n... and " + std::to_string(errors.size() - max) + " more";
    return out;
}

}  // namespace kb::evaluate
