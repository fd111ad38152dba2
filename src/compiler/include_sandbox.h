// What a candidate's code may read at compile time (docs/compilation.md,
// "The include sandbox").
//
// A candidate's #include may reach only: the headers kbench gives NVRTC in
// memory (its device-side standard headers), the toolkit's headers, the host
// compiler's standard headers (nvcc's preprocessor needs them), and the files
// the candidate brings beside its code ("headers" of a candidate document).
// Everything else is a compile error before any compiler runs, with a
// message that names the directive and never a byte of the file it named:
// absolute paths (/etc/passwd, /dev/zero, /proc/self/environ), ".." and
// symbolic links that lead out of those folders, files beside the candidate
// it did not name, and include names built by macros (#include MACRO), which
// no scan before preprocessing can judge.
//
// The same goes for the other directives that make a compiler open a file or
// print a line of one: #include_next, #import, #embed, __has_include,
// __has_embed, #line and GNU line markers with a file name (gcc echoes a
// line of the named file in its diagnostics), and #pragma GCC dependency.
//
// The scan reads the code as a preprocessor would: line splices, comments,
// string and raw-string literals, digraphs (%:include), and trigraphs both
// honoured and not (the union of both readings), so that no directive a
// compiler sees is missed. Text it cannot follow (an unterminated comment or
// raw string) is scanned as code: a false alarm costs a clear error, a miss
// would cost the host's files.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "task/task.h"

namespace kb {

// A directive (or __has_include) that names a file.
struct FileReference {
    std::string kind;     // "include", "include_next", "import", "embed", "__has_include", "line", "pragma dependency"
    std::string name;     // as written between <> or "", or the computed text
    bool angled = false;
    bool computed = false;  // the name is not a literal (#include MACRO)
    int line = 0;           // 1-based, in the file that holds it
};

// Every file reference in `text`, in order (both trigraph readings merged).
std::vector<FileReference> scan_file_references(const std::string& text);

struct IncludePolicy {
    // Folders an #include may resolve into (the toolkit's include folders, the
    // host compiler's standard header folders), symbolic links followed.
    std::vector<std::string> dirs;
    // Headers kbench provides in memory (device_headers()).
    std::function<bool(const std::string&)> is_builtin;
};

// Checks the code and every header beside it (`headers`, which the code and
// each other may include by their names). Throws CompileError naming the
// file, the line and the rule when a reference reaches outside the policy.
void check_file_references(const std::string& source_name, const std::string& code,
                           const std::vector<SourceFile>& headers, const IncludePolicy& policy);

// The headers as NVRTC's in-memory headers: NVRTC finds them by name only,
// so `#include "b.cuh"` from "detail/a.cuh" (which nvcc resolves to
// "detail/b.cuh") gets that file under the name "b.cuh" too, unless the name
// is taken or would mean different files.
std::vector<SourceFile> headers_for_nvrtc(const std::vector<SourceFile>& headers);

// The host C++ compiler's standard header folders (`g++ -E -v`), found once
// per process; empty when there is no g++ (then nvcc cannot run either).
const std::vector<std::string>& host_compiler_include_dirs();

}  // namespace kb
