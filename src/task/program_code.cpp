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
        case Language::triton_binary: return "triton_binary";
        case Language::python: return "python";
    }
    return "?";
}

namespace taskjson {

namespace {

constexpr Language kLanguages[] = {Language::cuda, Language::ptx, Language::cubin, Language::triton,
                                   Language::triton_binary, Language::python};

bool is_binary(Language l) { return l == Language::cubin || l == Language::triton_binary; }

const char* extension(Language l) {
    switch (l) {
        case Language::cuda: return ".cu";
        case Language::ptx: return ".ptx";
        case Language::triton:
        case Language::python: return ".py";
        default: return ".cubin";
    }
}

std::string basename_of(const std::string& path) {
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Reads a file named by a document field; the error names the field and the
// folder relative paths resolve against, which is what a user gets wrong.
std::string read_field_file(const std::string& rel, const std::string& path, const std::string& base_dir,
                            const Limits& limits, FileScope scope) {
    std::string where = base_dir.empty() ? "the current directory" : "'" + base_dir + "'";
    std::string file = join_path(base_dir, rel);
    if (scope == FileScope::inside_folder) {
        std::string why;
        file = path_inside(base_dir, rel, &why);
        if (file.empty())
            fail_at(path, "'" + rel + "' cannot be read: " + why,
                    "expected a file inside the document's folder (" + where + "), named by a relative path");
    }
    FileRead r;
    try {
        r = read_regular_file(file, limits.max_source_bytes);
    } catch (const Error& e) {
        fail(KB_ERR_IO,
             path + ": " + e.what() + "; expected a readable file (relative paths resolve against " + where + ")");
    }
    if (r.too_large)
        fail_at(path, "'" + rel + "' is " + std::to_string(r.size) + " bytes long",
                "expected at most " + format_bytes(limits.max_source_bytes) + "; " + raise_hint("max_source_bytes"));
    return std::move(r.data);
}

void check_code_size(const std::string& code, const std::string& path, const Limits& limits) {
    if (code.size() > limits.max_source_bytes)
        fail_at(path, "the code is " + std::to_string(code.size()) + " bytes long",
                "expected at most " + format_bytes(limits.max_source_bytes) + "; " + raise_hint("max_source_bytes"));
}

// A header's name as an #include spells it: a relative path inside the
// code's folder, without "." or ".." components.
std::string header_name(const std::string& raw, const std::string& path) {
    const std::string expected =
        "expected a relative path inside the code's folder, as the #include spells it (e.g. \"common.cuh\" or "
        "\"detail/math.cuh\")";
    if (raw.empty() || raw.find_first_of(std::string("\n\r\\\0", 4)) != std::string::npos)
        fail_at(path, "'" + raw + "' is not a header name", expected);
    if (raw[0] == '/') fail_at(path, "'" + raw + "' is an absolute path", expected);
    std::string name;
    for (size_t b = 0; b <= raw.size();) {
        size_t e = raw.find('/', b);
        if (e == std::string::npos) e = raw.size();
        std::string part = raw.substr(b, e - b);
        if (part == "..") fail_at(path, "'" + raw + "' has a '..' component", expected);
        if (!part.empty() && part != ".") name += (name.empty() ? "" : "/") + part;
        b = e + 1;
    }
    if (name.empty()) fail_at(path, "'" + raw + "' is not a header name", expected);
    return name;
}

void read_headers(const Json& v, const std::string& path, const std::string& base_dir, Program& p,
                  const Limits& limits, FileScope scope) {
    const std::string expected =
        "expected an array of header files: paths relative to the document's folder (\"common.cuh\"), or "
        "{\"name\": \"common.cuh\", \"source\": \"...\"}";
    as_array(v, path, expected);
    check_count(v.size(), limits.max_headers, path, "headers", "max_headers");
    if (p.language != Language::cuda && !v.empty())
        fail_at(path, "a " + std::string(language_name(p.language)) + " program includes no files",
                "expected headers only beside CUDA C++ code");
    for (size_t i = 0; i < v.size(); ++i) {
        const std::string hp = index_path(path, i);
        SourceFile f;
        if (v[i].is_string()) {
            std::string rel = v[i].get<std::string>();
            f.name = header_name(rel, hp);
            f.text = read_field_file(rel, hp, base_dir, limits, scope);
        } else {
            check_object(v[i], hp, {"name", "source", "source_base64"}, "a header {\"name\", \"source\"}");
            f.name = header_name(as_string(require(v[i], hp, "name", expected), child_path(hp, "name")),
                                 child_path(hp, "name"));
            const Json* text = find(v[i], "source");
            const Json* b64 = find(v[i], "source_base64");
            if (bool(text) == bool(b64))
                fail_at(hp, "the header gives its text " + std::string(text ? "twice" : "nowhere"),
                        "expected exactly one of \"source\" and \"source_base64\"");
            if (text) {
                f.text = as_string(*text, child_path(hp, "source"));
            } else {
                auto bytes = base64_decode(as_string(*b64, child_path(hp, "source_base64")));
                if (!bytes) fail_at(child_path(hp, "source_base64"), "not valid base64", "expected standard base64");
                f.text = std::move(*bytes);
            }
            check_code_size(f.text, hp, limits);
        }
        if (f.text.find('\0') != std::string::npos)
            fail_at(hp, "the header '" + f.name + "' contains a NUL byte", "expected text");
        for (const SourceFile& other : p.headers)
            if (other.name == f.name) fail_at(hp, "the header '" + f.name + "' is named twice", "expected each once");
        p.headers.push_back(std::move(f));
    }
}

Language read_language(const Json& obj, const std::string& path) {
    const Json* v = find(obj, "language");
    if (!v) return Language::cuda;
    const std::string p = child_path(path, "language");
    const std::string expected = "expected one of: cuda, ptx, cubin, triton (Python source), triton_binary (a cubin "
                                 "Triton compiled, with its metadata), python (a program candidate)";
    std::string name = as_string(*v, p, expected);
    for (Language l : kLanguages)
        if (name == language_name(l)) return l;
    std::string hint;
    if (auto near = closest(name, {"cuda", "ptx", "cubin", "triton", "triton_binary", "python"}))
        hint = "did you mean '" + *near + "'? ";
    fail_at(p, "unknown language '" + name + "'", hint + expected);
}

}  // namespace

const std::vector<std::string>& program_code_keys() {
    static const std::vector<std::string> keys = {"language", "source",   "source_file",  "source_base64",
                                                  "source_name", "headers", "metadata", "metadata_file"};
    return keys;
}

void read_program_code(const Json& obj, const std::string& path, const std::string& base_dir, const std::string& stem,
                       Program& p, const Limits& limits, FileScope scope) {
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
        check_code_size(p.source, sp, limits);
    } else if (file) {
        const std::string fp = child_path(path, "source_file");
        std::string rel = as_string(*file, fp, "expected a file path (relative to the task's folder)");
        if (rel.empty()) fail_at(fp, "the path is empty", "expected a file path (relative to the task's folder)");
        p.source = read_field_file(rel, fp, base_dir, limits, scope);
        p.source_name = basename_of(rel);
    } else {
        const std::string bp = child_path(path, "source_base64");
        const std::string& encoded = as_string(*b64, bp, "expected the code encoded as base64");
        if (encoded.size() / 4 * 3 > limits.max_source_bytes + 2)
            fail_at(bp, "the code is about " + std::to_string(encoded.size() / 4 * 3) + " bytes long",
                    "expected at most " + format_bytes(limits.max_source_bytes) + "; " +
                        raise_hint("max_source_bytes"));
        auto bytes = base64_decode(encoded);
        if (!bytes) fail_at(bp, "not valid base64", "expected standard base64 (RFC 4648, with '=' padding)");
        p.source = std::move(*bytes);
        check_code_size(p.source, bp, limits);
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

    if (const Json* h = find(obj, "headers")) read_headers(*h, child_path(path, "headers"), base_dir, p, limits, scope);

    const Json* meta = find(obj, "metadata");
    const Json* meta_file = find(obj, "metadata_file");
    if (p.language != Language::triton_binary) {
        if ((meta || meta_file) && p.language == Language::triton)
            fail_at(child_path(path, meta ? "metadata" : "metadata_file"),
                    "metadata belongs to a precompiled Triton kernel, and \"language\": \"triton\" means Python "
                    "source that kbench compiles",
                    "expected \"language\": \"triton_binary\" for a cubin with Triton's metadata, or no metadata");
        if (meta || meta_file)
            fail_at(child_path(path, meta ? "metadata" : "metadata_file"), "metadata is only for Triton kernels",
                    "expected \"language\": \"triton_binary\", or no metadata");
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
        m = parse_document(read_field_file(rel, mp, base_dir, limits, scope), mp + " ('" + rel + "')", limits);
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
    if (!p.headers.empty()) {
        Json headers = Json::array();
        for (const SourceFile& h : p.headers) {
            Json j{{"name", h.name}};
            if (is_valid_utf8(h.text)) j["source"] = h.text;
            else j["source_base64"] = base64_encode(h.text);
            headers.push_back(std::move(j));
        }
        out["headers"] = std::move(headers);
    }
    if (p.language == Language::triton_binary && !p.triton_metadata.empty())
        out["metadata"] = Json::parse(p.triton_metadata);
}

}  // namespace taskjson
}  // namespace kb
