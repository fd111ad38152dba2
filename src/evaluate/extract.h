// From a model's raw answer to the code kbench scores.
//
// Models answer in every shape: fenced blocks with or without a language tag,
// prose around them, several blocks (a kernel, a launcher, a usage example,
// a "fixed" second version), chat end tokens, <think> sections, answers cut
// off mid-block, bare code. TritonBench's own split on the last ```python
// fence could read 0 of 166 answers of one model. This reads them all, and
// says which text it took and why: docs/batch.md ("Answer extraction")
// documents every rule, in the order applied.
#pragma once

#include <string>
#include <vector>

#include "evaluate/code_scan.h"
#include "util/json.h"

namespace kb::evaluate {

// The language the task wants the answer in.
enum class AnswerLanguage { detect, cuda, triton };
const char* answer_language_name(AnswerLanguage l);  // "detect", "cuda", "triton"
// "cuda" or "triton" (also "auto"/"detect"); false for anything else.
bool parse_answer_language(const std::string& s, AnswerLanguage* out);

struct ExtractOptions {
    AnswerLanguage language = AnswerLanguage::detect;
    // The names the task launches (its default plan's kernels; entry_base_name
    // form). Empty: unknown, and the kernels the answer defines stand in.
    std::vector<std::string> entries;
    // Score code found only inside a reasoning section (<think>...</think>).
    // Off by default: reasoning holds drafts the model did not submit.
    bool include_reasoning = false;
};

enum class ExtractOutcome {
    ok,         // `code` is what to score
    no_code,    // the answer holds nothing that reads as code of the wanted language
    ambiguous,  // several blocks define the entry differently and no rule decides
};
const char* extract_outcome_name(ExtractOutcome o);  // "ok", "no_code", "ambiguous"

// One code block of the answer: a fenced block, a run of unfenced code, or a
// triple-quoted string of a Python block holding CUDA source (load_inline).
struct CodeBlock {
    int index = 0;             // 1-based, fenced blocks and unfenced runs in order of appearance
    std::string source;        // "fence", "unfenced" or "python-string"
    std::string tag;           // the fence's language tag as written, lowercased ("" if none)
    CodeLanguage language = CodeLanguage::unknown;  // from the tag, or the content where they disagree
    bool triton = false;       // Python that uses Triton
    std::string code;
    int first_line = 0;        // 1-based lines of the code in the answer (fences excluded)
    int last_line = 0;
    bool closed = true;        // its closing fence was found
    bool in_reasoning = false; // inside <think>...</think> (or an unclosed <think>)
    std::string prose_before;  // the answer's text between the previous block and this one
    std::string string_name;   // python-string: the variable it is assigned to
    CodeFacts facts;

    int code_lines() const;    // non-blank lines
    std::string describe() const;  // "block 2 (```cuda, lines 12-40)"
};

struct Extraction {
    ExtractOutcome outcome = ExtractOutcome::no_code;
    std::string code;           // what to score (outcome ok), blocks joined by a blank line
    std::string language;       // "cuda", "triton", "python"; "" when there is no code
    int picked_block = 0;       // the block the choice started from (1-based); 0 when none
    std::vector<int> used_blocks;  // every block whose text is in `code`, in answer order
    int block_count = 0;        // blocks found (fenced, unfenced runs), reasoning included
    std::string reason;         // one sentence: why this code, or why none
    std::vector<std::string> notes;  // everything else worth knowing, one sentence each
    // A fixed vocabulary (docs/batch.md): crlf, chat_markup, end_token,
    // think_stripped, reasoning_unclosed, from_reasoning, truncated, unfenced,
    // joined, split_block_merged, from_python_string, retagged, entry_missing,
    // framework_include.
    std::vector<std::string> flags;
    std::vector<CodeBlock> blocks;   // every block found, for inspection

    bool has_flag(const std::string& f) const;
    // {"outcome", "language", "picked_block", "used_blocks", "blocks", "reason",
    //  "flags", "notes"} plus "code" and a per-block summary when asked.
    Json to_json(bool with_code, bool with_blocks) const;
};

Extraction extract_answer(const std::string& answer, const ExtractOptions& options);

}  // namespace kb::evaluate
