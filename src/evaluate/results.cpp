#include "evaluate/results.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>

#include "evaluate/jsonl.h"
#include "util/error.h"
#include "util/files.h"

namespace kb::evaluate {

namespace {

const std::vector<std::string> kKnown = {"task",     "task_name",  "family",  "id",         "sample",
                                         "model",    "verdict",    "message", "extraction", "compile_ms",
                                         "run_ms",   "candidate_median_us",   "baseline_median_us",
                                         "speedup",  "efficiency", "gbps",    "tflops",     "gpu",
                                         "device",   "meta"};

// A number, or kbench's spellings of non-finite ones ("nan", "inf", "-inf"; docs/c-api.md).
bool read_number(const Json& v, double* out) {
    if (v.is_number()) {
        *out = v.get<double>();
        return true;
    }
    if (v.is_string()) {
        const std::string& s = v.get_ref<const std::string&>();
        if (s == "nan") *out = std::nan("");
        else if (s == "inf") *out = INFINITY;
        else if (s == "-inf") *out = -INFINITY;
        else return false;
        return true;
    }
    return false;
}

Json number_json(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
}

std::string io_error(const std::string& path, const std::string& what) {
    return "results file " + path + ": " + what + ": " + std::strerror(errno);
}

}  // namespace

CandidateKey ResultRecord::key() const {
    CandidateKey k;
    k.task = task;
    k.id = id.is_string() ? id.get<std::string>() : id.dump();
    k.sample = sample;
    return k;
}

Json ResultRecord::to_json() const {
    Json j;
    j["task"] = task;
    if (!task_name.empty() && task_name != task) j["task_name"] = task_name;
    if (!family.empty()) j["family"] = family;
    j["id"] = id;
    if (sample) j["sample"] = *sample;
    if (!model.empty()) j["model"] = model;
    j["verdict"] = verdict;
    j["message"] = message;
    if (!extraction.is_null()) j["extraction"] = extraction;
    auto put = [&](const char* k, const std::optional<double>& v) {
        if (v) j[k] = number_json(*v);
    };
    put("compile_ms", compile_ms);
    put("run_ms", run_ms);
    put("candidate_median_us", candidate_median_us);
    put("baseline_median_us", baseline_median_us);
    put("speedup", speedup);
    put("efficiency", efficiency);
    put("gbps", gbps);
    put("tflops", tflops);
    if (gpu) j["gpu"] = *gpu;
    if (!device.empty()) j["device"] = device;
    if (!meta.is_null()) j["meta"] = meta;
    if (extra.is_object())
        for (const auto& kv : extra.items()) j[kv.key()] = kv.value();
    return j;
}

std::optional<ResultRecord> parse_result(const Json& j, std::string* why) {
    auto fail = [&](const std::string& w) -> std::optional<ResultRecord> {
        *why = w;
        return std::nullopt;
    };
    if (!j.is_object()) return fail("the line is " + describe_json(j) + "; expected a JSON object");
    ResultRecord r;
    auto str = [&](const char* k, std::string* out, bool required) -> bool {
        auto it = j.find(k);
        if (it == j.end()) {
            if (required) *why = std::string("\"") + k + "\" is missing; expected a string";
            return !required;
        }
        if (!it->is_string()) {
            *why = std::string("\"") + k + "\" is " + describe_json(*it) + "; expected a string";
            return false;
        }
        *out = it->get<std::string>();
        return true;
    };
    if (!str("task", &r.task, true) || !str("verdict", &r.verdict, true) || !str("task_name", &r.task_name, false) ||
        !str("family", &r.family, false) || !str("model", &r.model, false) || !str("message", &r.message, false) ||
        !str("device", &r.device, false))
        return std::nullopt;
    if (r.verdict.empty()) return fail("\"verdict\" is empty; expected a verdict name such as \"pass\"");
    auto id = j.find("id");
    if (id == j.end()) return fail("\"id\" is missing; expected a string or an integer");
    if (!(id->is_string() || id->is_number_integer()))
        return fail("\"id\" is " + describe_json(*id) + "; expected a string or an integer");
    r.id = *id;
    if (auto s = j.find("sample"); s != j.end() && !s->is_null()) {
        if (!s->is_number_integer()) return fail("\"sample\" is " + describe_json(*s) + "; expected an integer");
        r.sample = s->get<int64_t>();
    }
    if (auto g = j.find("gpu"); g != j.end() && !g->is_null()) {
        if (!g->is_number_integer()) return fail("\"gpu\" is " + describe_json(*g) + "; expected an integer");
        r.gpu = g->get<int>();
    }
    struct Num {
        const char* key;
        std::optional<double>* out;
    };
    for (const Num& n : {Num{"compile_ms", &r.compile_ms}, Num{"run_ms", &r.run_ms},
                         Num{"candidate_median_us", &r.candidate_median_us},
                         Num{"baseline_median_us", &r.baseline_median_us}, Num{"speedup", &r.speedup},
                         Num{"efficiency", &r.efficiency}, Num{"gbps", &r.gbps}, Num{"tflops", &r.tflops}}) {
        auto it = j.find(n.key);
        if (it == j.end() || it->is_null()) continue;
        double v = 0;
        if (!read_number(*it, &v))
            return fail(std::string("\"") + n.key + "\" is " + describe_json(*it) + "; expected a number");
        *n.out = v;
    }
    if (auto e = j.find("extraction"); e != j.end()) r.extraction = *e;
    if (auto m = j.find("meta"); m != j.end()) r.meta = *m;
    for (const auto& kv : j.items())
        if (std::find(kKnown.begin(), kKnown.end(), kv.key()) == kKnown.end()) {
            if (!r.extra.is_object()) r.extra = Json::object();
            r.extra[kv.key()] = kv.value();
        }
    return r;
}

ResultsFile parse_results(const std::string& text, const std::string& label) {
    ResultsFile f;
    f.exists = true;
    std::vector<TextLine> lines = split_text_lines(text);
    size_t last_content = lines.size();
    for (size_t i = lines.size(); i-- > 0;)
        if (lines[i].text.find_first_not_of(" \t") != std::string::npos) {
            last_content = i;
            break;
        }
    std::map<CandidateKey, size_t> index;
    for (size_t i = 0; i < lines.size(); ++i) {
        const TextLine& l = lines[i];
        if (l.text.find_first_not_of(" \t") == std::string::npos) continue;
        std::string why;
        std::optional<Json> doc = parse_json_line(l.text, &why);
        if (!doc && i == last_content) {
            // Cut short by an interrupted write: skipped (a resumed run redoes it).
            f.truncated_tail = std::make_pair(l.number, l.text.size());
            continue;
        }
        std::optional<ResultRecord> r;
        if (doc) r = parse_result(*doc, &why);
        if (!r) {
            f.errors.push_back({l.number, label + ":" + std::to_string(l.number) + ": " + why});
            continue;
        }
        CandidateKey k = r->key();
        auto it = index.find(k);
        if (it != index.end()) {
            ++f.duplicates;
            f.records[it->second] = std::move(*r);
            f.record_lines[it->second] = l.number;
            continue;
        }
        index.emplace(k, f.records.size());
        f.done.insert(k);
        f.records.push_back(std::move(*r));
        f.record_lines.push_back(l.number);
    }
    return f;
}

ResultsFile read_results(const std::string& path) {
    if (!file_exists(path)) return ResultsFile();
    return parse_results(read_file(path), path);
}

ResultWriter::ResultWriter(const std::string& path, bool sync_each) : path_(path), sync_each_(sync_each) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) fail(KB_ERR_IO, io_error(path, "cannot open for appending"));
    try {
        repair_tail();
    } catch (...) {
        ::close(fd_);
        fd_ = -1;
        throw;
    }
}

void ResultWriter::repair_tail() {
    const std::string& path = path_;
    struct stat st;
    if (::fstat(fd_, &st) != 0) fail(KB_ERR_IO, io_error(path, "cannot stat"));
    off_t size = st.st_size;
    if (size == 0) return;
    // Find the start of the last line.
    char last = 0;
    if (::pread(fd_, &last, 1, size - 1) != 1) fail(KB_ERR_IO, io_error(path, "cannot read"));
    if (last == '\n') return;
    off_t start = size;
    std::string tail;
    const off_t chunk = 65536;
    while (start > 0) {
        off_t from = start > chunk ? start - chunk : 0;
        std::string buf(size_t(start - from), '\0');
        if (::pread(fd_, buf.data(), buf.size(), from) != ssize_t(buf.size())) fail(KB_ERR_IO, io_error(path, "cannot read"));
        size_t nl = buf.rfind('\n');
        if (nl != std::string::npos) {
            tail = buf.substr(nl + 1) + tail;
            start = from + off_t(nl) + 1;
            break;
        }
        tail = buf + tail;
        start = from;
    }
    std::string why;
    std::optional<Json> doc = parse_json_line(tail, &why);
    if (doc && doc->is_object()) {
        // A complete record that only lacks its newline.
        if (::write(fd_, "\n", 1) != 1) fail(KB_ERR_IO, io_error(path, "cannot write"));
        return;
    }
    if (::ftruncate(fd_, start) != 0) fail(KB_ERR_IO, io_error(path, "cannot remove a cut-off last line"));
    repaired_ = size_t(size - start);
}

ResultWriter::~ResultWriter() {
    if (fd_ >= 0) ::close(fd_);
}

void ResultWriter::append(const Json& line) {
    std::string text = dump_json_line(line);
    text += '\n';
    std::lock_guard<std::mutex> lock(mu_);
    size_t done = 0;
    while (done < text.size()) {
        ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail(KB_ERR_IO, io_error(path_, "cannot append a result"));
        }
        done += size_t(n);
    }
    if (sync_each_ && ::fdatasync(fd_) != 0) fail(KB_ERR_IO, io_error(path_, "cannot sync"));
}

}  // namespace kb::evaluate
