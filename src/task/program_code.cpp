// A program's code: its language and where the code comes from (inline text,
// a file next to the task, or base64 for binary images), read into a Program
// and written back self-contained for the normalised task.
#include <algorithm>

#include "task/task_json.h"
#include "util/files.h"

namespace kb {

const char* language_name(Language l) {
    switch (l) {
        case Language::cuda: return "cuda";
        case Language::ptx: return "ptx";
        case Language::cubin: return "cubin";
        case Language::triton: return "triton";
        case Language::python: return "python";
    }
    return "?";
}

namespace taskjson {

namespace {

constexpr Language kLanguages[] = {Language::cuda, Language::ptx, Language::cubin, Language::triton,
                                   Language::python};

bool is_binary(Language l) { return l == Language::cubin || l == Language::triton; }

const char* extension(Language l) {
    switch (l) {
        case Language::cuda: return ".cu";
        case Language::ptx: return ".ptx";
        case Language::python: return ".py";
        default: return ".cubin";
    }
}

std::string basename_of(const std::string& path) {
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Reads a file named by a task field; the error names the field and the
// folder relative paths resolve against, which is what a user gets wrong.
std::string read_field_file(const std::string& rel, const std::string& path, const std::string& base_dir) {
    try {
        return read_file(join_path(base_dir, rel));
    } catch (const Error& e) {
        std::string where = base_dir.empty() ? "the current directory" : "'" + base_dir + "'";
        fail(KB_ERR_IO,
             path + ": " + e.what() + "; expected a readable file (relative paths resolve against " + where + ")");
    }
}

Language read_language(const Json& obj, const std::string& path) {
    const Json* v = find(obj, "language");
    if (!v) return Language::cuda;
    const std::string p = child_path(path, "language");
    const std::string expected = "expected one of: cuda, ptx, cubin, triton, python";
    std::string name = as_string(*v, p, expected);
    for (Language l : kLanguages)
        if (name == language_name(l)) return l;
    std::string hint;
    if (auto near = closest(name, {"cuda", "ptx", "cubin", "triton", "python"})) hint = "did you mean '" + *near + "'? ";
    fail_at(p, "unknown language '" + name + "'", hint + expected);
}

}  // namespace

const std::vector<std::string>& program_code_keys() {
    static const std::vector<std::string> keys = {"language",    "source",   "source_file",  "source_base64",
                                                  "source_name", "metadata", "metadata_file"};
    return keys;
}

void read_program_code(const Json& obj, const std::string& path, const std::string& base_dir, const std::string& stem,
                       Program& p) {
    p.language = read_language(obj, path);
    const bool binary = is_binary(p.language);
    const std::string lang = language_name(p.language);

    const Json* text = find(obj, "source");
    const Json* file = find(obj, "source_file");
    const Json* b64 = find(obj, "source_base64");
    const std::string where_expected =
        binary ? "expected \"source_file\" (a path relative to the task's folder) or \"source_base64\"; a " + lang +
                     " program is a binary image"
               : "expected exactly one of \"source\" (the code inline) and \"source_file\" (a path relative to the "
                 "task's folder)";
    const int given = (text != nullptr) + (file != nullptr) + (b64 != nullptr);
    if (given == 0) fail_at(child_path(path, "source_file"), "the program gives no code", where_expected);
    if (given > 1) {
        std::vector<std::string> keys;
        for (const char* k : {"source", "source_file", "source_base64"})
            if (find(obj, k)) keys.push_back(k);
        fail_at(path, "the code is given more than once (" + join(keys) + ")", where_expected);
    }

    p.source_name = stem + extension(p.language);
    if (text) {
        const std::string sp = child_path(path, "source");
        if (binary)
            fail_at(sp, "a " + lang + " program is a binary image and cannot be given as inline text", where_expected);
        p.source = as_string(*text, sp, "expected the code as a string");
    } else if (file) {
        const std::string fp = child_path(path, "source_file");
        std::string rel = as_string(*file, fp, "expected a file path (relative to the task's folder)");
        if (rel.empty()) fail_at(fp, "the path is empty", "expected a file path (relative to the task's folder)");
        p.source = read_field_file(rel, fp, base_dir);
        p.source_name = basename_of(rel);
    } else {
        const std::string bp = child_path(path, "source_base64");
        auto bytes = base64_decode(as_string(*b64, bp, "expected the code encoded as base64"));
        if (!bytes) fail_at(bp, "not valid base64", "expected standard base64 (RFC 4648, with '=' padding)");
        p.source = std::move(*bytes);
    }
    if (p.source.empty()) fail_at(path, "the code is empty", "expected the program's code");
    // NVRTC and ptxas take text as C strings: a NUL would silently cut it short.
    if (!binary && p.source.find('\0') != std::string::npos)
        fail_at(path, "the " + lang + " code contains a NUL byte", "expected text");

    if (const Json* name = find(obj, "source_name")) {
        const std::string np = child_path(path, "source_name");
        p.source_name = as_string(*name, np, "expected a file name for logs, e.g. \"kernel.cu\"");
        bool ok = !p.source_name.empty() && p.source_name.find_first_of("/\\\n\r") == std::string::npos &&
                  p.source_name.find('\0') == std::string::npos;
        if (!ok)
            fail_at(np, "'" + p.source_name + "' is not a plain file name", "expected a name without '/' or newlines");
    }

    const Json* meta = find(obj, "metadata");
    const Json* meta_file = find(obj, "metadata_file");
    if (p.language != Language::triton) {
        if (meta || meta_file)
            fail_at(child_path(path, meta ? "metadata" : "metadata_file"), "metadata is only for Triton kernels",
                    "expected \"language\": \"triton\", or no metadata");
        return;
    }
    if (meta && meta_file)
        fail_at(path, "both \"metadata\" and \"metadata_file\" are given", "expected exactly one of them");
    if (!meta && !meta_file)
        fail_at(child_path(path, "metadata_file"), "a Triton kernel needs the metadata Triton wrote beside it",
                "expected \"metadata_file\" (the .json next to the cubin) or \"metadata\" (the object inline)");
    Json m;
    if (meta) {
        m = as_object(*meta, child_path(path, "metadata"), "expected Triton's metadata as a JSON object");
    } else {
        const std::string mp = child_path(path, "metadata_file");
        std::string rel = as_string(*meta_file, mp, "expected a file path (relative to the task's folder)");
        m = parse_document(read_field_file(rel, mp, base_dir), mp + " ('" + rel + "')");
        as_object(m, mp, "expected the file to hold Triton's metadata as a JSON object");
    }
    p.triton_metadata = m.dump();
}

void write_program_code(const Program& p, Json& out) {
    out["language"] = language_name(p.language);
    out["source_name"] = p.source_name;
    // Text that is not UTF-8 (a Latin-1 comment, say) cannot live in a JSON
    // string unchanged, so it travels as base64 like binary images do.
    if (!is_binary(p.language) && is_valid_utf8(p.source))
        out["source"] = p.source;
    else
        out["source_base64"] = base64_encode(p.source);
    if (p.language == Language::triton && !p.triton_metadata.empty()) out["metadata"] = Json::parse(p.triton_metadata);
}

}  // namespace taskjson
}  // namespace kb
