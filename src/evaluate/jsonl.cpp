#include "evaluate/jsonl.h"

#include <algorithm>

namespace kb::evaluate {

std::vector<TextLine> split_text_lines(const std::string& text) {
    std::vector<TextLine> lines;
    size_t p = 0;
    int number = 1;
    while (p < text.size()) {
        size_t e = text.find('\n', p);
        bool terminated = e != std::string::npos;
        TextLine l;
        l.number = number++;
        l.terminated = terminated;
        l.text = text.substr(p, (terminated ? e : text.size()) - p);
        if (!l.text.empty() && l.text.back() == '\r') l.text.pop_back();
        lines.push_back(std::move(l));
        p = terminated ? e + 1 : text.size();
    }
    return lines;
}

std::optional<Json> parse_json_line(const std::string& line, std::string* why) {
    try {
        return Json::parse(line);
    } catch (const Json::parse_error& e) {
        // nlohmann's text is "[json.exception.parse_error.101] parse error at line 1, column 7: <detail>".
        std::string detail = e.what();
        size_t colon = detail.find(": ", detail.find("column"));
        detail = colon == std::string::npos ? detail : detail.substr(colon + 2);
        *why = "not valid JSON (" + detail + ", at column " + std::to_string(e.byte) + ")";
        return std::nullopt;
    }
}

namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

}  // namespace

std::string nearest_key(const std::string& word, const std::vector<std::string>& known) {
    std::string best;
    size_t best_d = 3;
    for (const std::string& k : known) {
        size_t d = edit_distance(word, k);
        if (word.size() >= 3 && (k.rfind(word, 0) == 0 || word.rfind(k, 0) == 0)) d = std::min<size_t>(d, 1);
        if (d < best_d) {
            best_d = d;
            best = k;
        }
    }
    return best;
}

std::string describe_json(const Json& v) {
    switch (v.type()) {
        case Json::value_t::null: return "null";
        case Json::value_t::boolean: return std::string("the boolean ") + (v.get<bool>() ? "true" : "false");
        case Json::value_t::string: return "a string";
        case Json::value_t::number_integer:
        case Json::value_t::number_unsigned: return "the integer " + v.dump();
        case Json::value_t::number_float: return "the number " + v.dump();
        case Json::value_t::array: return "an array";
        case Json::value_t::object: return "an object";
        default: return "a " + std::string(v.type_name());
    }
}

std::string dump_json_line(const Json& v) { return v.dump(-1, ' ', false, Json::error_handler_t::replace); }

}  // namespace kb::evaluate
