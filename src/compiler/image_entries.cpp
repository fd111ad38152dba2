#include "compiler/image_entries.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "compiler/compile_types.h"
#include "compiler/kernel_params.h"

namespace kb {
namespace {

constexpr uint16_t kEmCuda = 190;
constexpr uint32_t kShtSymtab = 2;
constexpr uint8_t kSttFunc = 2;
constexpr uint8_t kStoCudaEntry = 0x10;

template <class T>
bool read_le(const std::string& b, size_t off, T& out) {
    if (off > b.size() || b.size() - off < sizeof(T)) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= uint64_t(static_cast<unsigned char>(b[off + i])) << (8 * i);
    out = static_cast<T>(v);
    return true;
}

struct Elf {
    bool is64 = true;
    uint64_t shoff = 0;
    uint16_t shentsize = 0, shnum = 0;
    uint32_t flags = 0;
    uint8_t abi_version = 0;
};

std::string parse_header(const std::string& b, Elf& e) {
    if (b.size() < 52 || b.compare(0, 4, "\x7f" "ELF") != 0) return "not an ELF file (a cubin starts with \\x7fELF)";
    uint8_t cls = static_cast<uint8_t>(b[4]), data = static_cast<uint8_t>(b[5]);
    if (cls != 1 && cls != 2) return "ELF file of unknown class";
    if (data != 1) return "big-endian ELF file (cubins are little-endian)";
    e.is64 = cls == 2;
    e.abi_version = static_cast<uint8_t>(b[8]);
    uint16_t machine = 0;
    read_le(b, 18, machine);
    if (machine != kEmCuda)
        return "ELF file for machine " + std::to_string(machine) + ", not a CUDA cubin (EM_CUDA = 190)";
    bool ok;
    if (e.is64) {
        ok = b.size() >= 64 && read_le(b, 0x28, e.shoff) && read_le(b, 0x30, e.flags) &&
             read_le(b, 0x3A, e.shentsize) && read_le(b, 0x3C, e.shnum);
    } else {
        uint32_t shoff = 0;
        ok = read_le(b, 0x20, shoff) && read_le(b, 0x24, e.flags) && read_le(b, 0x2E, e.shentsize) &&
             read_le(b, 0x30, e.shnum);
        e.shoff = shoff;
    }
    if (!ok) return "truncated ELF header";
    size_t want = e.is64 ? 64 : 40;
    if (e.shnum > 0 && e.shentsize < want) return "ELF section headers of unexpected size";
    if (e.shoff > b.size() || uint64_t(e.shnum) * e.shentsize > b.size() - e.shoff)
        return "ELF section headers lie outside the file (truncated cubin?)";
    return "";
}

struct Section {
    uint32_t type = 0, link = 0;
    uint64_t offset = 0, size = 0, entsize = 0;
};

bool section(const std::string& b, const Elf& e, uint32_t i, Section& s) {
    size_t base = e.shoff + size_t(i) * e.shentsize;
    if (e.is64) {
        return read_le(b, base + 4, s.type) && read_le(b, base + 0x18, s.offset) && read_le(b, base + 0x20, s.size) &&
               read_le(b, base + 0x28, s.link) && read_le(b, base + 0x38, s.entsize);
    }
    uint32_t off = 0, size = 0, ent = 0;
    bool ok = read_le(b, base + 4, s.type) && read_le(b, base + 0x10, off) && read_le(b, base + 0x14, size) &&
              read_le(b, base + 0x18, s.link) && read_le(b, base + 0x24, ent);
    s.offset = off;
    s.size = size;
    s.entsize = ent;
    return ok;
}

bool in_file(const std::string& b, uint64_t off, uint64_t size) { return off <= b.size() && size <= b.size() - off; }

// The section named `wanted` (".nv.info", ".nv.info.<entry>"), within the file.
bool named_section(const std::string& b, const Elf& e, const std::string& wanted, Section& out) {
    uint16_t shstrndx = 0;
    if (!read_le(b, e.is64 ? 0x3E : 0x32, shstrndx) || shstrndx >= e.shnum) return false;
    Section names;
    if (!section(b, e, shstrndx, names) || !in_file(b, names.offset, names.size)) return false;
    for (uint32_t i = 0; i < e.shnum; ++i) {
        uint32_t name = 0;
        size_t base = e.shoff + size_t(i) * e.shentsize;
        if (!section(b, e, i, out) || !read_le(b, base, name) || name >= names.size) continue;
        if (b.compare(names.offset + name, wanted.size() + 1, wanted.c_str(), wanted.size() + 1) != 0) continue;
        return in_file(b, out.offset, out.size);
    }
    return false;
}

// Calls fn(attribute, payload offset, payload size) for each attribute of an
// .nv.info section that carries a payload. Attributes: u8 format, u8
// attribute, u16 value or payload size; format 0x04 (EIFMT_SVAL) is followed
// by that many payload bytes. False when a payload runs past the section.
template <class Fn>
bool each_info_payload(const std::string& b, const Section& s, Fn fn) {
    for (uint64_t off = 0; off + 4 <= s.size;) {
        uint8_t format = 0, attr = 0;
        uint16_t value = 0;
        read_le(b, s.offset + off, format);
        read_le(b, s.offset + off + 1, attr);
        read_le(b, s.offset + off + 2, value);
        off += 4;
        if (format != 0x04) continue;
        if (off + value > s.size) return false;
        fn(attr, size_t(s.offset + off), size_t(value));
        off += value;
    }
    return true;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

std::string normalize_space(const std::string& s) {
    std::string out;
    bool pending = false;
    for (char c : s) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            pending = true;
            continue;
        }
        if (pending && !out.empty() && ident_char(out.back()) && ident_char(c)) out += ' ';
        pending = false;
        out += c;
    }
    return out;
}

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

// "a::b<c::d>::e" -> "e"
std::string last_component(const std::string& q) {
    int depth = 0;
    size_t cut = 0;
    for (size_t i = 0; i < q.size(); ++i) {
        char c = q[i];
        if (c == '<' || c == '(') ++depth;
        else if (c == '>' || c == ')') --depth;
        else if (depth == 0 && c == ':' && i + 1 < q.size() && q[i + 1] == ':') cut = i + 2;
    }
    return q.substr(cut);
}

bool ends_with_component(const std::string& full, const std::string& tail) {
    if (full == tail) return true;
    return full.size() > tail.size() + 2 && full.compare(full.size() - tail.size(), tail.size(), tail) == 0 &&
           full.compare(full.size() - tail.size() - 2, 2, "::") == 0;
}

}  // namespace

std::string cubin_problem(const std::string& bytes) {
    Elf e;
    std::string why = parse_header(bytes, e);
    if (!why.empty()) return why;
    bool symtab = false;
    for (uint32_t i = 0; i < e.shnum; ++i) {
        Section s;
        if (!section(bytes, e, i, s)) return "truncated ELF section header";
        if (s.type == kShtSymtab) {
            symtab = true;
            if (!in_file(bytes, s.offset, s.size)) return "ELF symbol table lies outside the file (truncated cubin?)";
        }
    }
    if (!symtab) return "ELF file without a symbol table";
    return "";
}

std::vector<std::string> cubin_entries(const std::string& bytes) {
    std::string why = cubin_problem(bytes);
    if (!why.empty()) throw CompileError("not a loadable cubin: " + why, why + "\n");
    Elf e;
    parse_header(bytes, e);
    std::vector<std::string> out;
    for (uint32_t i = 0; i < e.shnum; ++i) {
        Section s;
        section(bytes, e, i, s);
        if (s.type != kShtSymtab) continue;
        Section str;
        if (s.link >= e.shnum || !section(bytes, e, s.link, str) || !in_file(bytes, str.offset, str.size)) continue;
        size_t ent = e.is64 ? 24 : 16;
        if (s.entsize >= ent) ent = s.entsize;
        for (uint64_t off = 0; off + ent <= s.size; off += ent) {
            size_t p = s.offset + off;
            uint32_t name = 0;
            uint8_t info = 0, other = 0;
            read_le(bytes, p, name);
            if (e.is64) {
                read_le(bytes, p + 4, info);
                read_le(bytes, p + 5, other);
            } else {
                read_le(bytes, p + 12, info);
                read_le(bytes, p + 13, other);
            }
            if ((info & 0xf) != kSttFunc || !(other & kStoCudaEntry)) continue;
            if (name >= str.size) continue;
            size_t b = str.offset + name;
            size_t end = bytes.find('\0', b);
            if (end == std::string::npos || end > str.offset + str.size) continue;
            out.push_back(bytes.substr(b, end - b));
        }
    }
    return out;
}

int cubin_sm(const std::string& bytes) {
    Elf e;
    if (!parse_header(bytes, e).empty()) return 0;
    // CUDA 12+ cubins (ELF ABI version >= 8) keep the SM in bits 8-15 of
    // e_flags; older ones in the low byte.
    return e.abi_version >= 8 ? int((e.flags >> 8) & 0xff) : int(e.flags & 0xff);
}

std::string ptx_problem(const std::string& text) {
    if (text.find('\0') != std::string::npos && text.find('\0') + 1 < text.size())
        return "binary data, not PTX text";
    bool version = false, target = false;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        std::string line = normalize_space(text.substr(pos, end - pos));
        if (line.compare(0, 9, ".version ") == 0) version = true;
        if (line.compare(0, 8, ".target ") == 0) target = true;
        pos = end + 1;
        if (version && target) break;
    }
    if (!version) return "no .version directive (is it PTX?)";
    if (!target) return "no .target directive (is it PTX?)";
    return "";
}

std::vector<std::string> ptx_entries(const std::string& text) {
    std::vector<std::string> out;
    size_t pos = 0;
    while ((pos = text.find(".entry", pos)) != std::string::npos) {
        size_t at = pos;
        pos += 6;
        if (at > 0 && !std::isspace(static_cast<unsigned char>(text[at - 1]))) continue;
        if (pos < text.size() && !std::isspace(static_cast<unsigned char>(text[pos]))) continue;
        // skip entries inside // comments
        size_t line_start = text.rfind('\n', at);
        line_start = line_start == std::string::npos ? 0 : line_start + 1;
        size_t slashes = text.find("//", line_start);
        if (slashes != std::string::npos && slashes < at) continue;
        while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
        size_t b = pos;
        while (pos < text.size() && (ident_char(text[pos]) || text[pos] == '%' || text[pos] == '.')) ++pos;
        if (pos > b) out.push_back(text.substr(b, pos - b));
    }
    return out;
}

bool ptx_entry_params(const std::string& text, const std::string& entry, std::vector<EntryParam>& out) {
    out.clear();
    // ".entry NAME(" ... ")": one ".param .TYPE [.ptr ...] [.align N] NAME[ [N]]" per parameter.
    size_t pos = 0;
    for (;;) {
        pos = text.find(".entry", pos);
        if (pos == std::string::npos) return false;
        pos += 6;
        size_t p = pos;
        while (p < text.size() && std::isspace(static_cast<unsigned char>(text[p]))) ++p;
        if (text.compare(p, entry.size(), entry) != 0) continue;
        p += entry.size();
        while (p < text.size() && std::isspace(static_cast<unsigned char>(text[p]))) ++p;
        if (p < text.size() && text[p] == '(') {
            pos = p + 1;
            break;
        }
        if (p < text.size() && (text[p] == '{' || text[p] == '\n')) {  // no parameters
            return true;
        }
    }
    size_t close = text.find(')', pos);
    if (close == std::string::npos) return false;
    std::string list = text.substr(pos, close - pos);
    size_t at = 0;
    while ((at = list.find(".param", at)) != std::string::npos) {
        size_t end = list.find(',', at);
        std::string decl = list.substr(at + 6, (end == std::string::npos ? list.size() : end) - at - 6);
        at = end == std::string::npos ? list.size() : end + 1;
        EntryParam prm;
        size_t elem = 0;
        for (const char* t : {".u64", ".s64", ".b64", ".f64", ".u32", ".s32", ".b32", ".f32", ".u16", ".s16", ".b16",
                              ".f16", ".u8", ".s8", ".b8"}) {
            size_t hit = decl.find(t);
            if (hit == std::string::npos) continue;
            size_t after = hit + std::strlen(t);
            if (after < decl.size() && std::isalnum(static_cast<unsigned char>(decl[after]))) continue;
            elem = size_t(std::atoi(t + 2)) / 8;
            prm.kind = t[1] == 'f' ? 'f' : (t[1] == 'b' ? '?' : 'i');
            break;
        }
        if (elem == 0) return false;  // a parameter type this reader does not know
        size_t count = 1;
        size_t br = decl.find('[');
        if (br != std::string::npos) {
            count = size_t(std::strtoull(decl.c_str() + br + 1, nullptr, 10));
            prm.kind = '?';  // an aggregate passed by value
        }
        prm.size = elem * count;
        out.push_back(prm);
    }
    return true;
}

bool cubin_entry_params(const std::string& bytes, const std::string& entry, std::vector<EntryParam>& out) {
    out.clear();
    Elf e;
    Section s;
    if (!parse_header(bytes, e).empty() || !named_section(bytes, e, ".nv.info." + entry, s)) return false;
    // EIATTR_KPARAM_INFO (0x17) describes one parameter: u32 index, u16
    // ordinal, u16 offset, u32 whose bits 18..31 are its size.
    std::vector<std::pair<uint16_t, size_t>> params;  // (ordinal, size)
    const bool whole = each_info_payload(bytes, s, [&](uint8_t attr, size_t at, size_t size) {
        if (attr != 0x17 || size < 12) return;
        uint16_t ordinal = 0;
        uint32_t info = 0;
        read_le(bytes, at + 4, ordinal);
        read_le(bytes, at + 8, info);
        params.emplace_back(ordinal, size_t((info >> 18) & 0x3fff));
    });
    if (!whole) return false;
    std::sort(params.begin(), params.end());
    for (size_t k = 0; k < params.size(); ++k) {
        if (params[k].first != k) return false;  // ordinals not 0..n-1: not what this reader expects
        EntryParam prm;
        prm.size = params[k].second;
        out.push_back(prm);
    }
    return true;
}

std::map<std::string, int> cubin_registers(const std::string& bytes) {
    std::map<std::string, int> out;
    Elf e;
    Section info;
    if (!parse_header(bytes, e).empty() || !named_section(bytes, e, ".nv.info", info)) return out;
    Section symtab, strtab;
    bool have_symtab = false;
    for (uint32_t i = 0; i < e.shnum && !have_symtab; ++i)
        have_symtab = section(bytes, e, i, symtab) && symtab.type == kShtSymtab && symtab.link < e.shnum &&
                      section(bytes, e, symtab.link, strtab) && in_file(bytes, strtab.offset, strtab.size) &&
                      in_file(bytes, symtab.offset, symtab.size);
    if (!have_symtab) return out;
    const size_t ent = std::max<size_t>(e.is64 ? 24 : 16, symtab.entsize);
    auto symbol_name = [&](uint32_t index) -> std::string {
        if (uint64_t(index) * ent + ent > symtab.size) return "";
        uint32_t name = 0;
        if (!read_le(bytes, symtab.offset + size_t(index) * ent, name) || name >= strtab.size) return "";
        size_t b = strtab.offset + name, end = bytes.find('\0', b);
        if (end == std::string::npos || end > strtab.offset + strtab.size) return "";
        return bytes.substr(b, end - b);
    };
    // The module-wide attributes: EIATTR_REGCOUNT (0x2f) is u32 symbol
    // index, u32 registers a thread.
    each_info_payload(bytes, info, [&](uint8_t attr, size_t at, size_t size) {
        if (attr != 0x2f || size < 8) return;
        uint32_t sym = 0, regs = 0;
        read_le(bytes, at, sym);
        read_le(bytes, at + 4, regs);
        std::string fn = symbol_name(sym);
        if (!fn.empty()) out[fn] = int(regs);
    });
    return out;
}

std::string demangle(const std::string& symbol) {
    if (symbol.compare(0, 2, "_Z") != 0) return symbol;
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
    if (status != 0 || !d) return symbol;
    return d.get();
}

KernelName split_demangled(const std::string& demangled) {
    KernelName k;
    std::string d = demangled;
    while (!d.empty() && std::isspace(static_cast<unsigned char>(d.back()))) d.pop_back();
    while (!d.empty() && std::isspace(static_cast<unsigned char>(d.front()))) d.erase(0, 1);
    size_t open = std::string::npos;
    if (!d.empty() && d.back() == ')') {
        int depth = 0;
        for (size_t i = d.size(); i-- > 0;) {
            char c = d[i];
            if (c == ')' || c == '>') ++depth;
            else if (c == '(' || c == '<') {
                if (--depth == 0 && c == '(') {
                    open = i;
                    break;
                }
            }
        }
    }
    std::string head = open == std::string::npos ? d : d.substr(0, open);
    std::string params = open == std::string::npos ? "" : d.substr(open);
    // Drop a return type (function templates demangle with one): the name is
    // what follows the last space outside <> and ().
    int depth = 0;
    size_t cut = 0;
    for (size_t i = 0; i < head.size(); ++i) {
        char c = head[i];
        if (c == '<' || c == '(') ++depth;
        else if (c == '>' || c == ')') --depth;
        else if (c == ' ' && depth == 0) cut = i + 1;
    }
    k.with_args = head.substr(cut);
    k.qualified = k.with_args;
    if (!k.qualified.empty() && k.qualified.back() == '>') {
        int dd = 0;
        for (size_t i = k.qualified.size(); i-- > 0;) {
            char c = k.qualified[i];
            if (c == '>') ++dd;
            else if (c == '<' && --dd == 0) {
                k.qualified = k.qualified.substr(0, i);
                break;
            }
        }
    }
    k.signature = k.with_args + params;
    return k;
}

std::string canonical_signature(const std::string& s) {
    std::string n = normalize_space(s);
    // word-level rewrites
    static const std::pair<const char*, const char*> words[] = {
        {"int64_t", "long"}, {"uint64_t", "unsigned long"}, {"int32_t", "int"}, {"uint32_t", "unsigned int"},
        {"int16_t", "short"}, {"uint16_t", "unsigned short"}, {"int8_t", "signed char"},
        {"uint8_t", "unsigned char"}, {"size_t", "unsigned long"}, {"ptrdiff_t", "long"},
        {"half", "__half"}, {"nv_bfloat16", "__nv_bfloat16"}, {"half2", "__half2"},
        {"nv_bfloat162", "__nv_bfloat162"}, {"uint", "unsigned int"}, {"signed int", "int"},
        {"long int", "long"}, {"long long int", "long"}, {"unsigned long long int", "unsigned long"}};
    std::string out;
    for (size_t i = 0; i < n.size();) {
        if (ident_char(n[i]) && (i == 0 || !ident_char(n[i - 1]))) {
            size_t j = i;
            while (j < n.size() && ident_char(n[j])) ++j;
            std::string w = n.substr(i, j - i);
            // std::size_t and friends
            if (out.size() >= 5 && out.compare(out.size() - 5, 5, "std::") == 0) {
                for (auto& p : words)
                    if (w == p.first && std::strchr(p.first, ' ') == nullptr) {
                        out.erase(out.size() - 5);
                        break;
                    }
            }
            bool done = false;
            for (auto& p : words)
                if (std::strchr(p.first, ' ') == nullptr && w == p.first) {
                    out += p.second;
                    done = true;
                    break;
                }
            if (!done) out += w;
            i = j;
        } else {
            out += n[i++];
        }
    }
    // multi-word forms
    auto replace_all = [](std::string& str, const std::string& from, const std::string& to) {
        size_t p = 0;
        while ((p = str.find(from, p)) != std::string::npos) {
            bool left = p == 0 || !ident_char(str[p - 1]);
            bool right = p + from.size() >= str.size() || !ident_char(str[p + from.size()]);
            if (left && right) {
                str.replace(p, from.size(), to);
                p += to.size();
            } else {
                p += from.size();
            }
        }
    };
    replace_all(out, "unsigned long long int", "unsigned long");
    replace_all(out, "unsigned long long", "unsigned long");
    replace_all(out, "long long int", "long");
    replace_all(out, "long long", "long");
    replace_all(out, "long int", "long");
    replace_all(out, "unsigned int int", "unsigned int");
    replace_all(out, "short int", "short");
    replace_all(out, "signed char", "__kb_schar");  // keep "signed char" apart from plain "signed"
    replace_all(out, "signed int", "int");
    // a bare `unsigned` is `unsigned int`, a bare `signed` is `int`
    {
        std::string r;
        for (size_t i = 0; i < out.size();) {
            bool at_word = (i == 0 || !ident_char(out[i - 1]));
            auto word_at = [&](const char* w) {
                size_t n = std::strlen(w);
                return at_word && out.compare(i, n, w) == 0 && (i + n >= out.size() || !ident_char(out[i + n]));
            };
            if (word_at("unsigned") || word_at("signed")) {
                bool uns = word_at("unsigned");
                size_t j = i + (uns ? 8 : 6);
                size_t k = j;
                while (k < out.size() && out[k] == ' ') ++k;
                size_t e = k;
                while (e < out.size() && ident_char(out[e])) ++e;
                std::string next = out.substr(k, e - k);
                if (next == "int" || next == "long" || next == "short" || next == "char") {
                    r += uns ? "unsigned" : "";
                    if (!uns) {  // "signed long" -> "long"
                        i = k;
                        continue;
                    }
                } else {
                    r += uns ? "unsigned int" : "int";
                }
                i = j;
                continue;
            }
            r += out[i++];
        }
        out = r;
    }
    replace_all(out, "__kb_schar", "signed char");
    // `const T` -> `T const` inside each top-level parameter (and template argument)
    std::string res;
    size_t seg = 0;
    auto flush = [&](size_t end) {
        std::string p = out.substr(seg, end - seg);
        std::string lead;
        while (!p.empty() && p[0] == ' ') {
            lead += ' ';
            p.erase(0, 1);
        }
        if (p.compare(0, 6, "const ") == 0) {
            std::string rest = p.substr(6);
            size_t stop = rest.find_first_of("*&[(");
            std::string base = stop == std::string::npos ? rest : rest.substr(0, stop);
            std::string tail = stop == std::string::npos ? "" : rest.substr(stop);
            p = base + " const" + tail;
        }
        res += lead + p;
    };
    for (size_t i = 0; i < out.size(); ++i) {
        char c = out[i];
        if (c == '(' || c == '<' || c == ',' || c == ')' || c == '>') {
            flush(i);
            res += c;
            seg = i + 1;
        }
    }
    flush(out.size());
    return normalize_space(res);
}

std::map<std::string, std::string> resolve_kernel_names(const std::vector<std::string>& names,
                                                        const std::vector<std::string>& entries,
                                                        const std::map<std::string, std::string>& lowered,
                                                        const std::string& source_name,
                                                        const LaunchExpectations* expect) {
    std::map<std::string, std::string> out;
    struct Entry {
        std::string symbol, demangled;
        KernelName k;
        std::string canon_sig, canon_args;
    };
    std::vector<Entry> es;
    for (const std::string& sym : entries) {
        Entry e;
        e.symbol = sym;
        e.demangled = demangle(sym);
        e.k = split_demangled(e.demangled);
        e.canon_sig = canonical_signature(e.k.signature);
        e.canon_args = canonical_signature(e.k.with_args);
        es.push_back(e);
    }
    auto listing = [&]() {
        std::string l;
        for (const Entry& e : es) l += "\n  " + e.k.signature + (e.symbol != e.k.signature ? "  [" + e.symbol + "]" : "");
        return l;
    };
    for (const std::string& name : names) {
        if (out.count(name)) continue;
        auto low = lowered.find(name);
        if (low != lowered.end()) {
            out[name] = low->second;
            continue;
        }
        std::vector<const Entry*> hits;
        for (const Entry& e : es)
            if (e.symbol == name) hits.push_back(&e);
        std::string wanted = normalize_space(name);
        if (hits.empty()) {
            std::string cn = canonical_signature(wanted);
            if (wanted.find('(') != std::string::npos) {
                for (const Entry& e : es)
                    if (ends_with_component(e.canon_sig, cn)) hits.push_back(&e);
            } else if (wanted.find('<') != std::string::npos) {
                for (const Entry& e : es)
                    if (ends_with_component(e.canon_args, cn)) hits.push_back(&e);
            } else {
                for (const Entry& e : es)
                    if (e.k.qualified == wanted) hits.push_back(&e);
                if (hits.empty() && wanted.find("::") == std::string::npos)
                    for (const Entry& e : es)
                        if (last_component(e.k.qualified) == wanted) hits.push_back(&e);
                if (hits.empty())
                    for (const Entry& e : es)
                        if (ends_with_component(e.k.qualified, wanted)) hits.push_back(&e);
            }
        }
        // What the plan passes to this name, for overloads and hints.
        const std::vector<KernelSpec>* specs = nullptr;
        if (expect) {
            auto it = expect->kernels.find(name);
            if (it != expect->kernels.end() && !it->second.empty()) specs = &it->second;
        }
        std::string where = specs ? " (" + specs->front().where + ")" : "";
        std::vector<std::string> why_not;  // per overload that does not fit
        if (hits.size() > 1 && specs) {
            // Overloads: the one whose parameters take what the plan passes.
            std::vector<const Entry*> fitting;
            for (const Entry* e : hits) {
                std::vector<std::string> types;
                std::string why = demangled_parameter_types(e->demangled, types) ? "" : "its parameters are unknown";
                for (const KernelSpec& spec : *specs)
                    if (why.empty()) why = parameter_mismatch(types, spec);
                if (why.empty()) fitting.push_back(e);
                else why_not.push_back(e->k.signature + ": " + why);
            }
            if (fitting.size() == 1) {
                out[name] = fitting[0]->symbol;
                continue;
            }
            if (!fitting.empty()) hits = fitting;
        }
        if (hits.size() == 1 && why_not.empty()) {
            out[name] = hits[0]->symbol;
            continue;
        }
        if (!why_not.empty() && why_not.size() == hits.size()) {
            std::string msg = source_name + ": kernel '" + name + "' has " + std::to_string(hits.size()) +
                              " overloads, and none takes what the launch plan passes" + where + ":";
            for (const std::string& w : why_not) msg += "\n  " + w;
            msg += "\nThe plan launches it as " + name + "(" + c_parameter_list(specs->front()) + ").";
            throw CompileError(msg, "");
        }
        if (hits.empty()) {
            std::string msg;
            if (es.empty()) {
                msg = source_name + ": kernel '" + name + "' not found: the code defines no __global__ kernel";
                if (specs && expect->plan_from_task)
                    msg += "; the task launches it as " + name + "(" + c_parameter_list(specs->front()) + ")";
                throw CompileError(msg, "");
            }
            if (expect && expect->plan_from_task) {
                // The task's plan is fixed: the code's kernel is what to rename.
                msg = source_name + ": the task launches kernel '" + name + "'" + where + ", but " + source_name +
                      " defines no kernel of that name; it defines:" + listing() + "\nName your kernel '" +
                      last_component(split_demangled(wanted).qualified) + "'";
                if (specs) msg += ": the task launches it as " + name + "(" + c_parameter_list(specs->front()) + ")";
                msg += ".";
                throw CompileError(msg, "");
            }
            const Entry* best = nullptr;
            size_t best_d = ~size_t(0);
            std::string key = last_component(split_demangled(wanted).qualified);
            for (const Entry& e : es) {
                size_t d = std::min(edit_distance(wanted, e.k.qualified), edit_distance(key, last_component(e.k.qualified)));
                if (d < best_d) {
                    best_d = d;
                    best = &e;
                }
            }
            msg = source_name + ": the launch plan names kernel '" + name + "'" + where + ", which " + source_name +
                  " does not define; it defines:" + listing();
            if (best) msg += "\nDid you mean '" + best->k.with_args + "'?";
            throw CompileError(msg, "");
        }
        std::string msg = source_name + ": kernel name '" + name + "' is ambiguous; it matches " +
                          std::to_string(hits.size()) + " kernels:";
        for (const Entry* e : hits) msg += "\n  " + e->k.signature;
        msg += "\nName one by its signature in the launch plan, e.g. '" + hits[0]->k.signature + "'.";
        throw CompileError(msg, "");
    }
    return out;
}

}  // namespace kb
