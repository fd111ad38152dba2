// The compatibility corpus test (issue 4): every kernel in tests/compat/kernels
// is compiled by nvcc and by kbench (kb::Compiler), and the two must agree.
//
// For each kernel file:
//   (a) nvcc -cubin <flags> -o X.cubin file.cu                   -> accept / reject
//       where <flags> = kb::Compiler::nvcc_flags(request): the flags kbench's
//       own nvcc fallback uses, i.e. -arch=sm_90 -std=c++17 plus the policy
//       (today also --expt-relaxed-constexpr, as PyTorch extension builds use),
//       so "nvcc's verdict" is nvcc's under the same flags policy;
//   (b) kb::Compiler::compile with arch sm_90, the file's declared kernel
//       names and the default CompilePolicy                    -> accept / reject, path
//   (c) the test fails when
//       - the two verdicts differ (in either direction),
//       - the file's `expect=` disagrees with nvcc (the corpus itself is wrong),
//       - the entry points differ (the rule is below, at compare_entries),
//       - kbench's CompiledImage::entries disagree with the cubin it returned;
//   (d) it prints a table and a summary, and writes the summary as JSON
//       (compat_results.json in the build folder, or --json PATH).
//
// Each kernel file starts with two comment lines:
//   // kbench-compat: kernels=name1,name2<float, 4>,ns::name3
//   // kbench-compat: expect=accept|reject
// Names are split at commas outside <...>, so template arguments may hold commas.
// An optional third line, `// kbench-compat: expect-message=TEXT`, requires
// kbench's compile error (CompileError::what()) to contain TEXT.
//
// Exit status: 0 all agree, 1 any disagreement, 77 no nvcc (skipped), 2 usage/setup.
// Options: --filter SUBSTR (only files whose name contains it), --jobs N,
//          --json PATH, --kernels DIR, --work DIR, --verbose (print logs of failures).

#include <cxxabi.h>
#include <elf.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "compiler/compiler.h"
#include "util/json.h"

#ifndef KB_COMPAT_KERNEL_DIR
#define KB_COMPAT_KERNEL_DIR "tests/compat/kernels"
#endif
#ifndef KB_COMPAT_OUT_DIR
#define KB_COMPAT_OUT_DIR "."
#endif

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

bool file_exists(const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool read_file(const std::string& path, std::string& out) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    std::ostringstream ss;
    ss << f.rdbuf();
    out = ss.str();
    return true;
}

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

std::string shell_quote(const std::string& s) {
    std::string r = "'";
    for (char c : s) {
        if (c == '\'') r += "'\\''";
        else r += c;
    }
    return r + "'";
}

// ---------------------------------------------------------------------------
// nvcc discovery: $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin, PATH.
std::string find_nvcc() {
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
        const char* v = std::getenv(var);
        if (v && *v && file_exists(std::string(v) + "/bin/nvcc")) return std::string(v) + "/bin/nvcc";
    }
    if (file_exists("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
    if (const char* path = std::getenv("PATH")) {
        std::stringstream ss(path);
        std::string dir;
        while (std::getline(ss, dir, ':'))
            if (!dir.empty() && file_exists(dir + "/nvcc") && ::access((dir + "/nvcc").c_str(), X_OK) == 0)
                return dir + "/nvcc";
    }
    return "";
}

// Runs a shell command, returns its exit status and combined output.
int run_command(const std::string& cmd, std::string& output) {
    output.clear();
    FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
    if (!p) return -1;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, n);
    int st = ::pclose(p);
    if (st == -1) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

// ---------------------------------------------------------------------------
// Entry points of a cubin: FUNC symbols whose st_other has the CUDA entry bit
// (STO_CUDA_ENTRY, 0x10). Kernels with external linkage are GLOBAL; kernels
// with internal linkage (static __global__, anonymous namespaces) are LOCAL
// but still entries, so the binding is not filtered on. Device functions that
// are not inlined (__noinline__) are FUNC symbols without the entry bit.
bool cubin_entries(const std::string& elf, std::vector<std::string>& entries, std::string& err) {
    entries.clear();
    if (elf.size() < sizeof(Elf64_Ehdr) || std::memcmp(elf.data(), ELFMAG, SELFMAG) != 0) {
        err = "not an ELF file";
        return false;
    }
    if (static_cast<unsigned char>(elf[EI_CLASS]) != ELFCLASS64) {
        err = "not a 64-bit ELF file";
        return false;
    }
    Elf64_Ehdr eh;
    std::memcpy(&eh, elf.data(), sizeof eh);
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > elf.size()) {
        err = "bad section header table";
        return false;
    }
    auto shdr = [&](unsigned i) {
        Elf64_Shdr s;
        std::memcpy(&s, elf.data() + eh.e_shoff + (uint64_t)i * sizeof(Elf64_Shdr), sizeof s);
        return s;
    };
    for (unsigned i = 0; i < eh.e_shnum; ++i) {
        Elf64_Shdr sh = shdr(i);
        if (sh.sh_type != SHT_SYMTAB) continue;
        if (sh.sh_link >= eh.e_shnum || sh.sh_entsize != sizeof(Elf64_Sym) || sh.sh_offset + sh.sh_size > elf.size()) {
            err = "bad symbol table";
            return false;
        }
        Elf64_Shdr strtab = shdr(sh.sh_link);
        if (strtab.sh_offset + strtab.sh_size > elf.size()) {
            err = "bad string table";
            return false;
        }
        for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= sh.sh_size; off += sizeof(Elf64_Sym)) {
            Elf64_Sym sym;
            std::memcpy(&sym, elf.data() + sh.sh_offset + off, sizeof sym);
            if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || !(sym.st_other & 0x10)) continue;
            if (sym.st_name >= strtab.sh_size) continue;
            const char* name = elf.data() + strtab.sh_offset + sym.st_name;
            size_t maxlen = strtab.sh_size - sym.st_name;
            entries.emplace_back(name, strnlen(name, maxlen));
        }
    }
    std::sort(entries.begin(), entries.end());
    entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
    return true;
}

// ---------------------------------------------------------------------------
// Names. Entries are compared by their demangled form, because mangled names
// of internal-linkage kernels legitimately differ between compilers: a kernel
// in an anonymous namespace is mangled with a per-translation-unit id
// (_GLOBAL__N__<hash>_<file>_...), which nvcc and NVRTC compute differently.
// Normalisation: demangle; "(anonymous namespace)::" and any _GLOBAL__N_ id
// removed; whitespace removed; integer literal suffixes (4u, 8ul) dropped;
// common aliases spelled as the demangler does (int8_t -> signed char, ...).

std::string demangle(const std::string& sym) {
    int status = 0;
    char* d = abi::__cxa_demangle(sym.c_str(), nullptr, nullptr, &status);
    if (status != 0 || !d) return sym;  // extern "C" names are not mangled
    std::string r(d);
    std::free(d);
    return r;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    if (from.empty()) return;
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
}

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Replaces whole identifiers (not parts of longer ones).
void replace_ident(std::string& s, const std::string& from, const std::string& to) {
    size_t p = 0;
    while ((p = s.find(from, p)) != std::string::npos) {
        bool left = p == 0 || !is_ident(s[p - 1]);
        bool right = p + from.size() >= s.size() || !is_ident(s[p + from.size()]);
        if (left && right) {
            s.replace(p, from.size(), to);
            p += to.size();
        } else {
            p += from.size();
        }
    }
}

std::string normalize(std::string s) {
    // Function templates are demangled with their return type first
    // ("void k<float>(float*)"); kernels always return void.
    if (s.rfind("void ", 0) == 0 && s.find('(') != std::string::npos) s.erase(0, 5);
    // anonymous namespaces, both as demangled and as a raw id
    replace_all(s, "(anonymous namespace)::", "");
    for (size_t p; (p = s.find("_GLOBAL__N_")) != std::string::npos;) {
        size_t e = s.find("::", p);
        s.erase(p, e == std::string::npos ? std::string::npos : e + 2 - p);
    }
    static const std::pair<const char*, const char*> aliases[] = {
        {"std::int8_t", "signed char"}, {"std::uint8_t", "unsigned char"}, {"std::int16_t", "short"},
        {"std::uint16_t", "unsigned short"}, {"std::int32_t", "int"}, {"std::uint32_t", "unsigned int"},
        {"std::int64_t", "long"}, {"std::uint64_t", "unsigned long"}, {"std::size_t", "unsigned long"},
        {"int8_t", "signed char"}, {"uint8_t", "unsigned char"}, {"int16_t", "short"},
        {"uint16_t", "unsigned short"}, {"int32_t", "int"}, {"uint32_t", "unsigned int"},
        {"int64_t", "long"}, {"uint64_t", "unsigned long"}, {"size_t", "unsigned long"},
        {"nv_bfloat16", "__nv_bfloat16"}, {"half", "__half"}, {"nv_half", "__half"},
    };
    for (auto& a : aliases) replace_ident(s, a.first, a.second);
    // "unsigned" alone means "unsigned int"
    {
        std::string out;
        for (size_t i = 0; i < s.size();) {
            if (s.compare(i, 8, "unsigned") == 0 && (i == 0 || !is_ident(s[i - 1])) &&
                (i + 8 >= s.size() || !is_ident(s[i + 8]))) {
                size_t j = i + 8;
                while (j < s.size() && s[j] == ' ') ++j;
                bool has_type = false;
                for (const char* t : {"int", "char", "short", "long"})
                    if (s.compare(j, std::strlen(t), t) == 0 && (j + std::strlen(t) >= s.size() || !is_ident(s[j + std::strlen(t)])))
                        has_type = true;
                out += has_type ? "unsigned" : "unsigned int";
                i += 8;
            } else {
                out += s[i++];
            }
        }
        s = out;
    }
    // drop whitespace
    s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }), s.end());
    // integer literal suffixes: digits followed by [uUlL]+ and a non-identifier char
    std::string out;
    for (size_t i = 0; i < s.size();) {
        if (std::isdigit(static_cast<unsigned char>(s[i])) && (i == 0 || !is_ident(s[i - 1]))) {
            size_t j = i;
            while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
            size_t k = j;
            while (k < s.size() && std::strchr("uUlL", s[k])) ++k;
            if (k == s.size() || !is_ident(s[k])) {
                out.append(s, i, j - i);
                i = k;
                continue;
            }
            out.append(s, i, j - i);
            i = j;
        } else {
            out += s[i++];
        }
    }
    if (out.rfind("::", 0) == 0) out.erase(0, 2);
    return out;
}

// Splits at commas outside <...> and (...).
std::vector<std::string> split_top(const std::string& s, char sep) {
    std::vector<std::string> parts;
    int depth = 0;
    std::string cur;
    for (char c : s) {
        if (c == '<' || c == '(') ++depth;
        if (c == '>' || c == ')') --depth;
        if (c == sep && depth == 0) {
            parts.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!trim(cur).empty() || !parts.empty()) parts.push_back(trim(cur));
    return parts;
}

struct QualName {
    std::string base;               // qualified name without template arguments
    std::vector<std::string> targs; // normalised template arguments
    bool templated = false;
};

// From a normalised demangled entry "voidns::k<float,256>(float*,int)" or a
// normalised requested name "ns::k<float>" to (base, template args).
QualName parse_name(std::string s, bool demangled) {
    if (demangled && !s.empty() && s.back() == ')') {
        // drop the parameter list: the last top-level (...)
        int depth = 0;
        size_t i = s.size();
        while (i-- > 0) {
            if (s[i] == ')') ++depth;
            else if (s[i] == '(' && --depth == 0) break;
        }
        if (i != std::string::npos) s.erase(i);
    }
    QualName q;
    size_t lt = s.find('<');
    if (lt == std::string::npos) {
        q.base = s;
        return q;
    }
    q.templated = true;
    q.base = s.substr(0, lt);
    size_t gt = s.rfind('>');
    std::string inner = gt != std::string::npos && gt > lt ? s.substr(lt + 1, gt - lt - 1) : s.substr(lt + 1);
    q.targs = split_top(inner, ',');
    return q;
}

// Does a nvcc/kbench entry (demangled, normalised) correspond to a requested
// launch-plan name? The bases must be equal (anonymous namespaces removed).
// A requested name with template arguments matches an instantiation whose
// arguments start with them (default template arguments fill the rest:
// "k<float>" matches "k<float, 32, 8>"). A plain requested name matches the
// plain kernel of that name or any instantiation of a kernel template of that
// name (the corpus only does so where exactly one instantiation exists).
bool name_matches(const std::string& norm_entry, const std::string& requested) {
    QualName e = parse_name(norm_entry, true);
    QualName r = parse_name(normalize(requested), false);
    if (e.base != r.base) return false;
    if (!r.templated) return true;
    if (!e.templated || r.targs.size() > e.targs.size()) return false;
    for (size_t i = 0; i < r.targs.size(); ++i)
        if (r.targs[i] != e.targs[i]) return false;
    return true;
}

bool is_template_instance(const std::string& norm_entry) { return parse_name(norm_entry, true).templated; }

// ---------------------------------------------------------------------------

struct Case {
    std::string file;  // file name
    std::string path;
    std::vector<std::string> kernels;
    std::string expect;  // "accept" | "reject"
    std::string expect_message;  // optional: kbench's rejection must mention this text
    std::string header_error;

    // nvcc
    bool nvcc_ok = false;
    double nvcc_ms = 0;
    std::string nvcc_log;
    std::vector<std::string> nvcc_entries;

    // kbench
    bool kb_ok = false;
    bool kb_internal_error = false;  // kb::Error that is not a CompileError
    double kb_ms = 0, kb_nvrtc_ms = 0, kb_nvcc_ms = 0;
    std::string kb_path, kb_msg, kb_log;
    std::vector<std::string> kb_entries;
    std::map<std::string, std::string> kb_symbols;

    std::string fallback_reason;  // kbench compiled with nvcc: NVRTC's first error
    std::vector<std::string> problems;
    bool failed() const { return !problems.empty(); }
};

bool parse_header(Case& c, const std::string& text) {
    std::istringstream in(text);
    std::string line;
    bool have_k = false, have_e = false;
    for (int n = 0; n < 8 && std::getline(in, line); ++n) {
        const std::string tag = "// kbench-compat:";
        size_t p = line.find(tag);
        if (p == std::string::npos) continue;
        std::string kv = trim(line.substr(p + tag.size()));
        if (kv.rfind("kernels=", 0) == 0) {
            c.kernels = split_top(kv.substr(8), ',');
            c.kernels.erase(std::remove(c.kernels.begin(), c.kernels.end(), std::string()), c.kernels.end());
            have_k = !c.kernels.empty();
        } else if (kv.rfind("expect-message=", 0) == 0) {
            c.expect_message = trim(kv.substr(15));
        } else if (kv.rfind("expect=", 0) == 0) {
            c.expect = trim(kv.substr(7));
            have_e = c.expect == "accept" || c.expect == "reject";
        }
    }
    if (!have_k) c.header_error = "missing '// kbench-compat: kernels=...' header";
    else if (!have_e) c.header_error = "missing '// kbench-compat: expect=accept|reject' header";
    return c.header_error.empty();
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
    std::string r;
    for (size_t i = 0; i < v.size(); ++i) r += (i ? sep : "") + v[i];
    return r;
}

std::string first_error_line(const std::string& log) {
    std::istringstream in(log);
    std::string line;
    while (std::getline(in, line))
        if (line.find("error") != std::string::npos) return trim(line);
    return trim(log.substr(0, log.find('\n')));
}

// Entry comparison (the rule). Let N be nvcc's entries and K kbench's, both
// demangled and normalised.
//  1. K must be a subset of N: kbench never produces an entry nvcc would not.
//  2. Every entry in N that is not a template instantiation must be in K:
//     all plain kernels of the file are compiled by both.
//  3. A template instantiation in N may be missing from K only when no
//     requested name matches it. nvcc instantiates everything the host code
//     uses (launchers, explicit instantiations of host function templates),
//     while kbench's NVRTC path keeps host code out of the device compilation
//     and instantiates the kernels that are explicitly instantiated in the
//     source or requested by name; instantiations only host code needed are
//     not launched by kbench and may be absent.
//  4. For every requested name: the entries of N that match it are the same
//     as those of K that match it, there is at least one, and
//     CompiledImage::symbols[name] is one of them.
void compare_entries(Case& c) {
    std::map<std::string, std::string> N, K;  // normalised -> mangled
    for (auto& s : c.nvcc_entries) N[normalize(demangle(s))] = s;
    for (auto& s : c.kb_entries) K[normalize(demangle(s))] = s;
    for (auto& [n, m] : K)
        if (!N.count(n)) c.problems.push_back("kbench entry not produced by nvcc: " + m + " (" + demangle(m) + ")");
    for (auto& [n, m] : N) {
        if (K.count(n)) continue;
        bool requested = false;
        for (auto& r : c.kernels) requested = requested || name_matches(n, r);
        if (!is_template_instance(n) || requested)
            c.problems.push_back("nvcc entry missing from kbench: " + m + " (" + demangle(m) + ")");
    }
    for (auto& r : c.kernels) {
        std::set<std::string> mn, mk;
        for (auto& [n, m] : N)
            if (name_matches(n, r)) mn.insert(n);
        for (auto& [n, m] : K)
            if (name_matches(n, r)) mk.insert(n);
        if (mn.empty()) {
            c.problems.push_back("corpus: requested kernel '" + r + "' matches no nvcc entry (nvcc entries: " +
                                 join(c.nvcc_entries, ", ") + ")");
            continue;
        }
        if (mn != mk)
            c.problems.push_back("entries for '" + r + "' differ: nvcc {" + join({mn.begin(), mn.end()}, "; ") +
                                 "} kbench {" + join({mk.begin(), mk.end()}, "; ") + "}");
        auto it = c.kb_symbols.find(r);
        if (it == c.kb_symbols.end()) {
            c.problems.push_back("CompiledImage::symbols has no entry for '" + r + "'");
        } else if (!mn.count(normalize(demangle(it->second)))) {
            c.problems.push_back("symbols['" + r + "'] = " + it->second + " (" + demangle(it->second) +
                                 ") is not an nvcc entry for that name");
        }
    }
}

void run_case(Case& c, kb::Compiler& compiler, const std::string& nvcc, const std::string& work) {
    std::string text;
    if (!read_file(c.path, text)) {
        c.problems.push_back("cannot read " + c.path);
        return;
    }
    if (!parse_header(c, text)) {
        c.problems.push_back("corpus: " + c.header_error);
        return;
    }

    kb::CompileRequest req;
    req.code = text;
    req.source_name = c.file;
    req.kernel_names = c.kernels;
    req.arch = "sm_90";

    // (a) nvcc, with the flags kbench's own nvcc fallback uses for this request
    std::string cubin = work + "/" + c.file + ".cubin";
    std::remove(cubin.c_str());
    std::string cmd = shell_quote(nvcc) + " -cubin";
    for (const std::string& f : kb::Compiler::nvcc_flags(req)) cmd += " " + shell_quote(f);
    cmd += " -o " + shell_quote(cubin) + " " + shell_quote(c.path);
    auto t0 = Clock::now();
    int rc = run_command(cmd, c.nvcc_log);
    c.nvcc_ms = ms_since(t0);
    c.nvcc_ok = rc == 0 && file_exists(cubin);
    if (c.nvcc_ok) {
        std::string elf, err;
        if (!read_file(cubin, elf) || !cubin_entries(elf, c.nvcc_entries, err))
            c.problems.push_back("cannot read nvcc's cubin: " + err);
    }

    // (b) kbench
    t0 = Clock::now();
    try {
        kb::CompiledImage img = compiler.compile(req);
        c.kb_ok = true;
        c.kb_path = img.path;
        c.kb_entries = img.entries;
        c.kb_symbols = img.symbols;
        c.kb_log = img.log;
        c.kb_nvrtc_ms = img.nvrtc_ms;
        c.kb_nvcc_ms = img.nvcc_ms;
        if (img.path == "nvcc") c.fallback_reason = first_error_line(img.log);
        if (img.kind == kb::ImageKind::cubin) {
            std::vector<std::string> from_elf;
            std::string err;
            if (!cubin_entries(img.bytes, from_elf, err)) {
                c.problems.push_back("kbench's image is not a readable cubin: " + err);
            } else {
                std::vector<std::string> listed = img.entries;
                std::sort(listed.begin(), listed.end());
                listed.erase(std::unique(listed.begin(), listed.end()), listed.end());
                if (listed != from_elf)
                    c.problems.push_back("CompiledImage::entries {" + join(listed, ", ") +
                                         "} differ from the entry symbols of its cubin {" + join(from_elf, ", ") + "}");
            }
        } else {
            c.problems.push_back("kbench returned PTX for a cubin request");
        }
    } catch (const kb::CompileError& e) {
        c.kb_ok = false;
        c.kb_msg = e.what();
        c.kb_log = e.log();
    } catch (const kb::Error& e) {
        c.kb_ok = false;
        c.kb_internal_error = true;
        c.kb_msg = e.what();
    } catch (const std::exception& e) {
        c.kb_ok = false;
        c.kb_internal_error = true;
        c.kb_msg = std::string("unexpected exception: ") + e.what();
    }
    c.kb_ms = ms_since(t0);

    // (c) verdicts and entries
    if ((c.expect == "accept") != c.nvcc_ok)
        c.problems.push_back("corpus: expect=" + c.expect + " but nvcc " + (c.nvcc_ok ? "accepts" : "rejects") +
                             (c.nvcc_ok ? "" : ": " + first_error_line(c.nvcc_log)));
    if (c.kb_internal_error)
        c.problems.push_back("kbench failed with an error that is not a compile error: " + c.kb_msg);
    else if (c.nvcc_ok && !c.kb_ok)
        c.problems.push_back("nvcc accepts, kbench rejects: " + c.kb_msg);
    else if (!c.nvcc_ok && c.kb_ok)
        c.problems.push_back("nvcc rejects (" + first_error_line(c.nvcc_log) + "), kbench accepts via " + c.kb_path);
    if (!c.kb_ok && !c.expect_message.empty() && c.kb_msg.find(c.expect_message) == std::string::npos)
        c.problems.push_back("kbench's error should mention '" + c.expect_message + "': " + c.kb_msg);
    if (c.nvcc_ok && c.kb_ok) compare_entries(c);
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}


std::string fmt(double v, int prec = 1) {
    std::ostringstream o;
    o << std::fixed << std::setprecision(prec) << v;
    return o.str();
}

}  // namespace

int main(int argc, char** argv) {
    std::string kernel_dir = KB_COMPAT_KERNEL_DIR;
    std::string out_dir = KB_COMPAT_OUT_DIR;
    std::string json_path, filter, work;
    unsigned jobs = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
    bool verbose = false;
    if (const char* j = std::getenv("KB_COMPAT_JOBS")) jobs = std::max(1, std::atoi(j));
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::cerr << a << " needs a value\n";
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--filter") filter = next();
        else if (a == "--jobs") jobs = std::max(1, std::atoi(next().c_str()));
        else if (a == "--json") json_path = next();
        else if (a == "--kernels") kernel_dir = next();
        else if (a == "--work") work = next();
        else if (a == "--verbose" || a == "-v") verbose = true;
        else {
            std::cerr << "usage: " << argv[0] << " [--filter SUBSTR] [--jobs N] [--json PATH] [--kernels DIR] [--work DIR] [-v]\n";
            return 2;
        }
    }
    if (json_path.empty()) json_path = out_dir + "/compat_results.json";
    if (work.empty()) work = out_dir + "/compat_work";
    ::mkdir(work.c_str(), 0755);

    std::string nvcc = find_nvcc();
    if (nvcc.empty()) {
        std::cout << "compat: no nvcc found ($CUDA_HOME/bin, /usr/local/cuda/bin, PATH); skipped\n";
        return 77;
    }

    std::vector<Case> cases;
    if (DIR* d = ::opendir(kernel_dir.c_str())) {
        while (dirent* e = ::readdir(d)) {
            std::string n = e->d_name;
            if (n.size() > 3 && n.compare(n.size() - 3, 3, ".cu") == 0 && n.find(filter) != std::string::npos) {
                Case c;
                c.file = n;
                c.path = kernel_dir + "/" + n;
                cases.push_back(std::move(c));
            }
        }
        ::closedir(d);
    }
    std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.file < b.file; });
    if (cases.empty()) {
        std::cerr << "compat: no kernel files in " << kernel_dir << (filter.empty() ? "" : " matching " + filter) << "\n";
        return 2;
    }

    kb::CompilerConfig cfg;
    cfg.cuda_home = kb::default_cuda_home();
    cfg.cache_dir = "";  // memory-only: every file is compiled for real
    std::unique_ptr<kb::Compiler> compiler;
    try {
        compiler = std::make_unique<kb::Compiler>(cfg);
    } catch (const std::exception& e) {
        std::cerr << "compat: cannot create kb::Compiler: " << e.what() << "\n";
        return 1;
    }

    std::string flags;
    {
        kb::CompileRequest probe;
        probe.arch = "sm_90";
        for (const std::string& f : kb::Compiler::nvcc_flags(probe)) flags += " " + f;
    }
    std::cout << "compat: " << cases.size() << " kernel files, nvcc " << nvcc << " -cubin" << flags << ", NVRTC "
              << kb::Compiler::nvrtc_version() << ", " << jobs << " jobs\n";

    auto t_all = Clock::now();
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (unsigned j = 0; j < std::min<size_t>(jobs, cases.size()); ++j)
        pool.emplace_back([&] {
            for (size_t i; (i = next++) < cases.size();) run_case(cases[i], *compiler, nvcc, work);
        });
    for (auto& t : pool) t.join();
    double total_ms = ms_since(t_all);

    // (d) table
    size_t w = 10;
    for (auto& c : cases) w = std::max(w, c.file.size());
    std::cout << "\n" << std::left << std::setw(w + 2) << "file" << std::setw(8) << "nvcc" << std::setw(8) << "kbench"
              << std::setw(7) << "path" << std::right << std::setw(9) << "nvcc_ms" << std::setw(9) << "kb_ms"
              << std::setw(10) << "nvrtc_ms" << "  result\n";
    size_t agree = 0, nvcc_accepts = 0, kb_nvrtc = 0, kb_accepts = 0, failed = 0;
    std::vector<double> nvrtc_times, nvrtc_only_times, kb_times, nvcc_times;
    for (auto& c : cases) {
        bool verdict_agree = !c.kb_internal_error && c.header_error.empty() && c.nvcc_ok == c.kb_ok;
        agree += verdict_agree;
        nvcc_accepts += c.nvcc_ok;
        kb_accepts += c.kb_ok;
        if (c.kb_ok && c.kb_path == "nvrtc") {
            ++kb_nvrtc;
            nvrtc_times.push_back(c.kb_ms);
            nvrtc_only_times.push_back(c.kb_nvrtc_ms);
        }
        kb_times.push_back(c.kb_ms);
        nvcc_times.push_back(c.nvcc_ms);
        failed += c.failed();
        std::cout << std::left << std::setw(w + 2) << c.file << std::setw(8) << (c.nvcc_ok ? "accept" : "reject")
                  << std::setw(8) << (c.kb_internal_error ? "ERROR" : c.kb_ok ? "accept" : "reject") << std::setw(7)
                  << (c.kb_ok ? c.kb_path : "-") << std::right << std::setw(9) << fmt(c.nvcc_ms, 0) << std::setw(9)
                  << fmt(c.kb_ms, 1) << std::setw(10) << fmt(c.kb_nvrtc_ms, 1) << "  "
                  << (c.failed() ? "FAIL" : "ok") << "\n";
        for (auto& p : c.problems) std::cout << "    - " << p << "\n";
        if (!c.fallback_reason.empty()) std::cout << "    (nvcc fallback; NVRTC: " << c.fallback_reason << ")\n";
        if (c.failed() && verbose) {
            std::cout << "    nvcc log:\n" << c.nvcc_log << "\n    kbench log:\n" << c.kb_log << "\n";
        }
    }

    double agreement_pct = 100.0 * agree / cases.size();
    double nvrtc_share_pct = nvcc_accepts ? 100.0 * kb_nvrtc / nvcc_accepts : 0.0;
    std::cout << "\ncompat summary: " << cases.size() << " files (" << nvcc_accepts << " accepted by nvcc, "
              << cases.size() - nvcc_accepts << " rejected)\n"
              << "  verdict agreement with nvcc: " << agree << "/" << cases.size() << " = " << fmt(agreement_pct)
              << "%\n"
              << "  compiled by the NVRTC fast path: " << kb_nvrtc << "/" << nvcc_accepts << " = "
              << fmt(nvrtc_share_pct) << "% of the files nvcc accepts\n"
              << "  median kbench compile on the NVRTC path: " << fmt(median(nvrtc_times)) << " ms; median nvcc: "
              << fmt(median(nvcc_times)) << " ms\n"
              << "  files failing (verdict, entries or corpus): " << failed << "\n"
              << "  total wall time: " << fmt(total_ms / 1000.0, 1) << " s with " << jobs << " jobs\n";

    // Two decimals are enough for times and shares; the JSON stays readable.
    auto r2 = [](double v) { return std::round(v * 100.0) / 100.0; };
    kb::Json doc = {{"nvrtc_version", kb::Compiler::nvrtc_version()},
                    {"arch", "sm_90"},
                    {"nvcc_flags", trim(flags)},
                    {"files", cases.size()},
                    {"nvcc_accepts", nvcc_accepts},
                    {"nvcc_rejects", cases.size() - nvcc_accepts},
                    {"kbench_accepts", kb_accepts},
                    {"verdict_agreement", agree},
                    {"verdict_agreement_pct", r2(agreement_pct)},
                    {"nvrtc_path", kb_nvrtc},
                    {"nvrtc_share_pct", r2(nvrtc_share_pct)},
                    {"median_nvrtc_path_compile_ms", r2(median(nvrtc_times))},
                    {"median_nvrtc_ms", r2(median(nvrtc_only_times))},
                    {"median_kbench_compile_ms", r2(median(kb_times))},
                    {"median_nvcc_ms", r2(median(nvcc_times))},
                    {"failed_files", failed},
                    {"total_wall_s", r2(total_ms / 1000.0)},
                    {"jobs", jobs}};
    kb::Json rows = kb::Json::array();
    for (const Case& c : cases)
        rows.push_back({{"file", c.file},
                        {"expect", c.expect},
                        {"nvcc", c.nvcc_ok ? "accept" : "reject"},
                        {"kbench", c.kb_internal_error ? "error" : c.kb_ok ? "accept" : "reject"},
                        {"path", c.kb_ok ? c.kb_path : ""},
                        {"nvcc_ms", r2(c.nvcc_ms)},
                        {"kbench_ms", r2(c.kb_ms)},
                        {"kbench_nvrtc_ms", r2(c.kb_nvrtc_ms)},
                        {"kbench_nvcc_ms", r2(c.kb_nvcc_ms)},
                        {"ok", !c.failed()},
                        {"fallback_reason", c.fallback_reason},
                        {"problems", c.problems}});
    doc["cases"] = rows;
    std::ofstream js(json_path);
    if (js << doc.dump(2) << "\n") {
        std::cout << "  results: " << json_path << "\n";
    } else {
        std::cerr << "compat: cannot write " << json_path << "\n";
    }
    return failed ? 1 : 0;
}
