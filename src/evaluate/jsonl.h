// Small pieces shared by the JSONL readers of src/evaluate: splitting a text
// into lines with their numbers, parsing one line with a message that names
// the file, line and column, and suggesting the field a misspelt key meant.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/json.h"

namespace kb::evaluate {

struct TextLine {
    int number = 0;      // 1-based
    std::string text;    // without its '\n' (and a '\r' before it)
    bool terminated = true;  // ended with '\n' (false only for the last line)
};

// Every line of `text`; an empty last piece after a final '\n' is not a line.
std::vector<TextLine> split_text_lines(const std::string& text);

// Parses one JSON value. On failure returns nullopt and sets *why to
// "not valid JSON (<detail> at column N)".
std::optional<Json> parse_json_line(const std::string& line, std::string* why);

// The known key nearest to `word` (edit distance at most 2, or a prefix), or "".
std::string nearest_key(const std::string& word, const std::vector<std::string>& known);

// A JSON value in a few words, for "got ..." messages: "a string", "the number 3.5".
std::string describe_json(const Json& v);

// Dumps one line of JSON: compact, invalid UTF-8 replaced (model text can hold any bytes).
std::string dump_json_line(const Json& v);

}  // namespace kb::evaluate
