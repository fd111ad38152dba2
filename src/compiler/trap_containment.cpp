#include "compiler/trap_containment.h"

#include "compiler/ptx_text.h"
#include "util/text.h"

#include <cctype>
#include <cstdio>
#include <vector>

namespace kb {
namespace {

constexpr const char* kHeader = "// kbench: traps contained (src/compiler/trap_containment.h)\n";
constexpr const char* kFlagPrefix = "__kb_trap_flag_";

// The end of the `.address_size` line (where the header goes), or npos.
size_t after_address_size(const std::string& ptx) {
    size_t p = ptx.find(".address_size");
    if (p == std::string::npos) return p;
    size_t nl = ptx.find('\n', p);
    return nl == std::string::npos ? ptx.size() : nl + 1;
}

// Rewrites `[@[!]pred] trap;` and `brkpt;` instructions in text without the
// header. An instruction starts after whitespace, `{`, `;` or a line start.
std::string rewrite_instructions(const std::string& text, const std::string& flag, size_t* count) {
    std::string out;
    out.reserve(text.size() + 256);
    size_t i = 0;
    while (i < text.size()) {
        size_t hit = std::string::npos, len = 0;
        for (const char* op : {"trap", "brkpt"}) {
            size_t p = text.find(op, i);
            if (p < hit) hit = p, len = std::string(op).size();
        }
        if (hit == std::string::npos) break;
        size_t after = hit + len;
        while (after < text.size() && (text[after] == ' ' || text[after] == '\t')) ++after;
        const bool starts = hit == 0 || !ptx_ident_char(text[hit - 1]);
        const bool ends = after < text.size() && text[after] == ';';
        if (!starts || !ends) {
            out.append(text, i, hit + len - i);
            i = hit + len;
            continue;
        }
        // An optional guard predicate just before it: `@%p1 ` or `@!%p1 `.
        size_t start = hit;
        std::string guard;
        size_t q = hit;
        while (q > 0 && (text[q - 1] == ' ' || text[q - 1] == '\t')) --q;
        size_t id_end = q;
        while (q > 0 && ptx_ident_char(text[q - 1])) --q;
        if (q < id_end) {
            size_t at = q;
            if (at > 0 && text[at - 1] == '!') --at;
            if (at > 0 && text[at - 1] == '@') {
                guard = text.substr(at - 1, id_end - (at - 1)) + " ";
                start = at - 1;
            }
        }
        if (start < i) start = hit, guard.clear();  // never reach into what was already rewritten
        out.append(text, i, start - i);
        out += guard + "st.volatile.global.u32 [" + flag + "], " + std::to_string(kTrapInstruction) + "; " + guard + "exit";
        i = after;  // the ';' is kept
        if (count) ++*count;
    }
    out.append(text, i, std::string::npos);
    return out;
}

// `__assertfail` named as a call target or declaration (not the prefix of
// its parameters' names) becomes `replacement`.
std::string rename_assertfail(const std::string& text, const std::string& replacement, size_t* count) {
    static const std::string name = "__assertfail";
    std::string out;
    size_t i = 0;
    for (;;) {
        size_t p = text.find(name, i);
        if (p == std::string::npos) break;
        size_t e = p + name.size();
        const bool whole = (p == 0 || !ptx_ident_char(text[p - 1])) && (e >= text.size() || !ptx_ident_char(text[e]));
        out.append(text, i, p - i);
        out += whole ? replacement : name;
        if (whole && count) ++*count;
        i = e;
    }
    out.append(text, i, std::string::npos);
    return out;
}

// `.extern .func NAME (params) ;` becomes a definition that records the
// failed assert's line (its third parameter, `.b32`) and ends the thread.
std::string define_assert(const std::string& text, const std::string& fname, const std::string& flag) {
    const std::string decl = ".extern .func " + fname;
    size_t p = text.find(decl);
    if (p == std::string::npos) return text;
    size_t open = text.find('(', p), close = text.find(')', p), semi = text.find(';', p);
    if (open == std::string::npos || close == std::string::npos || semi == std::string::npos || !(open < close && close < semi))
        return text;
    std::vector<std::string> params;
    std::string list = text.substr(open + 1, close - open - 1);
    for (size_t a = 0;;) {
        size_t c = list.find(',', a);
        params.push_back(trim(list.substr(a, c == std::string::npos ? std::string::npos : c - a)));
        if (c == std::string::npos) break;
        a = c + 1;
    }
    std::string line_param;
    if (params.size() >= 3 && params[2].rfind(".param .b32 ", 0) == 0) line_param = trim(params[2].substr(12));
    std::string body = "\n{\n";
    if (!line_param.empty())
        body += "\t.reg .b32 %kb_line;\n\tld.param.b32 %kb_line, [" + line_param + "];\n\tst.volatile.global.u32 [" +
                flag + "+4], %kb_line;\n";
    body += "\tst.volatile.global.u32 [" + flag + "], " + std::to_string(kTrapAssert) + ";\n\texit;\n}\n";
    return text.substr(0, p) + ".func " + fname + text.substr(p + decl.size(), semi - (p + decl.size())) + body +
           text.substr(semi + 1);
}

}  // namespace

std::string contain_traps(const std::string& ptx, uint64_t nonce, size_t* rewritten) {
    if (rewritten) *rewritten = 0;
    size_t at = after_address_size(ptx);
    if (at == std::string::npos) return ptx;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(nonce));
    const std::string flag = kFlagPrefix + std::string(hex);
    const std::string assert_fn = "__kb_assertfail_" + std::string(hex);
    std::string body = ptx.substr(at);
    size_t count = 0;
    body = rewrite_instructions(body, flag, &count);
    size_t asserts = 0;
    body = rename_assertfail(body, assert_fn, &asserts);
    if (asserts) body = define_assert(body, assert_fn, flag);
    if (rewritten) *rewritten = count + (asserts ? asserts - 1 : 0);  // the declaration is not a call
    return ptx.substr(0, at) + kHeader + ".visible .global .align 16 .b32 " + flag + "[4];\n" + body;
}

std::string trap_flag_symbol(const std::string& ptx) {
    size_t at = after_address_size(ptx);
    if (at == std::string::npos || ptx.compare(at, std::string(kHeader).size(), kHeader) != 0) return "";
    size_t p = at + std::string(kHeader).size();
    const std::string decl = ".visible .global .align 16 .b32 ";
    if (ptx.compare(p, decl.size(), decl) != 0) return "";
    p += decl.size();
    size_t e = ptx.find('[', p);
    if (e == std::string::npos) return "";
    std::string sym = ptx.substr(p, e - p);
    return sym.rfind(kFlagPrefix, 0) == 0 ? sym : "";
}

std::string describe_contained_trap(const TrapFlag& f, const std::string& case_name) {
    std::string what = f.kind == kTrapAssert
                           ? "a device-side assert() failed" + (f.line ? " (line " + std::to_string(f.line) + ")" : std::string())
                           : std::string("a thread executed a trap instruction (__trap(), asm(\"trap;\"), or the compiler's trap for "
                                         "code that must not be reached)");
    return what + " at case '" + case_name +
           "'; CUDA would end the kernel with an unspecified launch failure (CUDA_ERROR_LAUNCH_FAILED). kbench contained it (the thread ended, "
           "the worker kept its context; kbench run --no-contain-traps or $KBENCH_CONTAIN_TRAPS=0 lets it end the kernel)";
}

}  // namespace kb
