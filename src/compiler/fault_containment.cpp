#include "compiler/fault_containment.h"

#include <cctype>
#include <cstdio>
#include <cstdint>
#include <set>
#include <sstream>
#include <vector>

#include "compiler/ptx_text.h"
#include "compiler/trap_containment.h"
#include "util/text.h"

namespace kb {
namespace {

std::string without_comment(const std::string& line) {
    size_t c = line.find("//");
    return c == std::string::npos ? line : line.substr(0, c);
}

bool has_word(const std::string& text, const std::string& word) {
    for (size_t p = text.find(word); p != std::string::npos; p = text.find(word, p + 1)) {
        size_t e = p + word.size();
        if ((p == 0 || !ptx_ident_char(text[p - 1])) && (e >= text.size() || !ptx_ident_char(text[e]))) return true;
    }
    return false;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    size_t a = 0;
    for (;;) {
        size_t b = s.find(sep, a);
        out.push_back(s.substr(a, b == std::string::npos ? std::string::npos : b - a));
        if (b == std::string::npos) return out;
        a = b + 1;
    }
}

// Bytes of a PTX fundamental type ("f32", "b128", "bf16x2"), 0 when unknown.
size_t type_bytes(const std::string& t) {
    static const std::pair<const char*, size_t> kTypes[] = {
        {"b8", 1},   {"u8", 1},   {"s8", 1},     {"b16", 2},    {"u16", 2}, {"s16", 2},  {"f16", 2},
        {"bf16", 2}, {"b32", 4},  {"u32", 4},    {"s32", 4},    {"f32", 4}, {"f16x2", 4}, {"bf16x2", 4},
        {"tf32", 4}, {"b64", 8},  {"u64", 8},    {"s64", 8},    {"f64", 8}, {"b128", 16}};
    for (const auto& [name, bytes] : kTypes)
        if (t == name) return bytes;
    return 0;
}

// A module-level `.global` or `.const` variable: its state space, name and size.
struct ModuleVar {
    bool is_const = false;
    std::string name;
    uint64_t bytes = 0;
};

// 1: `stmt` declares a variable `v` sized here; 0: not a global or const
// variable; -1: one whose size or place this cannot know.
int parse_module_var(const std::string& stmt, ModuleVar* v) {
    std::string head = stmt.substr(0, stmt.find_first_of("=;"));
    std::istringstream in(head);
    std::vector<std::string> tok;
    for (std::string t; in >> t;) tok.push_back(t);
    bool global = false, is_const = false, external = false;
    uint64_t elem = 0, vec = 1;
    for (const std::string& t : tok) {
        if (t == ".global") global = true;
        if (t == ".const") is_const = true;
        if (t == ".extern") external = true;
        if (t == ".texref" || t == ".surfref" || t == ".samplerref") return 0;  // handles, not memory
        if (t.size() > 1 && t[0] == '.' && type_bytes(t.substr(1))) elem = type_bytes(t.substr(1));
        if (t == ".v2") vec = 2;
        if (t == ".v4") vec = 4;
    }
    if (!global && !is_const) return 0;
    if (external || elem == 0 || tok.empty()) return -1;
    const std::string& decl = tok.back();
    size_t br = decl.find('[');
    v->is_const = is_const;
    v->name = decl.substr(0, br);
    v->bytes = elem * vec;
    while (br != std::string::npos) {
        size_t close = decl.find(']', br);
        if (close == std::string::npos || close == br + 1) return -1;  // `name[]`: sized by elsewhere
        try {
            v->bytes *= std::stoull(decl.substr(br + 1, close - br - 1));
        } catch (...) {
            return -1;
        }
        br = decl.find('[', close);
    }
    return v->name.empty() ? -1 : 1;
}

// One memory instruction's access: its bytes, whether the address is
// generic, and the address as a register plus an offset.
struct Access {
    size_t bytes = 0;
    bool generic = false;
    std::string reg, offset;
};

struct WideRegs {
    std::set<std::string> names;     // `.reg .b64 %x;`
    std::set<std::string> prefixes;  // `.reg .b64 %rd<24>;`
    bool holds(const std::string& r) const {
        if (names.count(r)) return true;
        size_t d = r.size();
        while (d > 0 && std::isdigit(static_cast<unsigned char>(r[d - 1]))) --d;
        return d < r.size() && prefixes.count(r.substr(0, d));
    }
    void declare(const std::string& stmt) {  // `.reg .b64 %rd<24>;` or `.reg .u64 %a, %b;`
        std::istringstream in(stmt.substr(0, stmt.find(';')));
        std::string reg, type, rest;
        in >> reg >> type;
        if (reg != ".reg" || (type != ".b64" && type != ".u64" && type != ".s64")) return;
        std::getline(in, rest);
        for (std::string n : split(rest, ',')) {
            n = trim(n);
            size_t lt = n.find('<');
            if (lt != std::string::npos) prefixes.insert(n.substr(0, lt));
            else if (!n.empty()) names.insert(n);
        }
    }
};

bool parse_access(const std::string& opcode, const std::string& operands, const WideRegs& wide, Access* a) {
    std::vector<std::string> parts = split(opcode, '.');
    const std::string& op = parts[0];
    if (op != "ld" && op != "ldu" && op != "st" && op != "atom" && op != "red") return false;
    bool global = false;
    size_t elem = 0, vec = 1;
    for (size_t i = 1; i < parts.size(); ++i) {
        const std::string& p = parts[i];
        if (p == "global") global = true;
        if (p.rfind("shared", 0) == 0 || p == "local" || p == "param" || p == "const" || p == "async") return false;
        if (p == "v2") vec = 2;
        if (p == "v4") vec = 4;
        if (p == "v8") vec = 8;
        if (type_bytes(p)) elem = type_bytes(p);
    }
    if (elem == 0) return false;
    size_t open = operands.find('['), close = operands.find(']');
    if (open == std::string::npos || close == std::string::npos || close < open) return false;
    std::string inner = trim(operands.substr(open + 1, close - open - 1));
    if (inner.empty() || inner[0] != '%') return false;  // a symbol: the module's own variable
    size_t e = 1;
    while (e < inner.size() && ptx_ident_char(inner[e])) ++e;
    std::string reg = inner.substr(0, e), off = trim(inner.substr(e));
    if (!wide.holds(reg)) return false;
    if (!off.empty()) {
        if (off[0] == '+') off = trim(off.substr(1));
        if (off.empty()) return false;
        size_t d = off[0] == '-' ? 1 : 0;
        if (d >= off.size()) return false;
        for (size_t i = d; i < off.size(); ++i)
            if (!std::isxdigit(static_cast<unsigned char>(off[i])) && off[i] != 'x' && off[i] != 'X') return false;
    }
    a->bytes = elem * vec;
    a->generic = !global;
    a->reg = reg;
    a->offset = off;
    return true;
}

struct Names {
    std::string flag, arm, reg;  // reg: prefix of the checks' registers
    // The module declares variables besides the flag's: its code may reach
    // them through a register, so their span is a second range an access may
    // lie in. Without any, that range holds kbench's state alone, which the
    // candidate's code has no business reaching, and the checks leave it out.
    bool own_vars = true;
};

// The checks' state lives in the trap flag's own variable, widened past the
// flag (TrapFlag, 16 bytes): the buffers' bounds [lo, hi) at +16, the span
// of the module's variables at +32, the deadline at +48. One symbol rather
// than three: ptxas's work on a checked copy grows with the module symbols
// its checks and the arming entry name (bench/contained_compile_cost.cpp).
constexpr int kBoundsAt = 16, kVarsAt = 32, kDeadlineAt = 48;
constexpr uint64_t kStateBytes = 64;

std::string at(const std::string& symbol, int offset) { return "[" + symbol + "+" + std::to_string(offset) + "]"; }

// The checks' registers in each checked function.
std::string check_registers(const Names& n) {
    const std::string& r = n.reg;
    return "\t.reg .b64 " + r + "a, " + r + "e, " + r + "l, " + r + "h;\n\t.reg .pred " + r + "p, " + r + "q, " + r + "g, " + r +
           "r;\n";
}

// The check before one access: outside every range, or misaligned, stores
// the kind and the address in the flag and ends the thread.
std::string access_check(const Access& a, const std::string& guard, const Names& n) {
    const std::string A = n.reg + "a", E = n.reg + "e", L = n.reg + "l", H = n.reg + "h";
    const std::string P = n.reg + "p", Q = n.reg + "q", G = n.reg + "g", R = n.reg + "r";
    std::string s;
    auto line = [&s](const std::string& x) { s += "\t" + x + ";\n"; };
    line(a.offset.empty() ? "mov.b64 " + A + ", " + a.reg : "add.s64 " + A + ", " + a.reg + ", " + a.offset);
    if (a.generic) {
        // A generic address into shared or local memory is not the buffers'
        // business; any other (a null pointer among them) must be in bounds.
        line("isspacep.shared " + G + ", " + A);
        line("isspacep.local " + R + ", " + A);
        line("or.pred " + G + ", " + G + ", " + R);
        line("not.pred " + G + ", " + G);
    }
    line("add.s64 " + E + ", " + A + ", " + std::to_string(a.bytes));
    line("ld.global.nc.v2.u64 {" + L + ", " + H + "}, " + at(n.flag, kBoundsAt));
    line("setp.ge.u64 " + P + ", " + A + ", " + L);
    line("setp.le.and.u64 " + P + ", " + E + ", " + H + ", " + P);
    if (n.own_vars) {
        line("ld.global.nc.v2.u64 {" + L + ", " + H + "}, " + at(n.flag, kVarsAt));
        line("setp.ge.u64 " + Q + ", " + A + ", " + L);
        line("setp.le.and.u64 " + Q + ", " + E + ", " + H + ", " + Q);
        line("or.pred " + P + ", " + P + ", " + Q);
    }
    line("not.pred " + P + ", " + P);  // P: outside
    const bool pow2 = (a.bytes & (a.bytes - 1)) == 0;
    line("and.b64 " + E + ", " + A + ", " + std::to_string(pow2 ? a.bytes - 1 : 0));
    line("setp.ne.and.u64 " + Q + ", " + E + ", 0, !" + P);  // Q: inside but misaligned
    if (a.generic) {
        line("and.pred " + P + ", " + P + ", " + G);
        line("and.pred " + Q + ", " + Q + ", " + G);
    }
    if (!guard.empty()) {
        // `@%p` or `@!%p`: only where the instruction itself runs.
        const bool negated = guard.size() > 1 && guard[1] == '!';
        std::string pred = guard.substr(negated ? 2 : 1);
        if (negated) {
            line("not.pred " + R + ", " + pred);
            pred = R;
        }
        line("and.pred " + P + ", " + P + ", " + pred);
        line("and.pred " + Q + ", " + Q + ", " + pred);
    }
    // One way out for both failures (P and Q never hold together): the kind
    // and the address in one 16-byte store (TrapFlag's line, unused by
    // faults, becomes 0), then exit. Two stores and an exit for each make
    // ptxas work a tenth more on vector_add's copies (callgrind over
    // bench/contained_compile_cost.cpp).
    line("selp.b64 " + E + ", " + std::to_string(kFaultOutOfBounds) + ", " + std::to_string(kFaultMisaligned) + ", " + P);
    line("or.pred " + P + ", " + P + ", " + Q);
    line("@" + P + " st.volatile.global.v2.u64 [" + n.flag + "], {" + E + ", " + A + "}");
    line("@" + P + " exit");
    return s;
}

// The check before a backward branch: past the deadline, the thread ends.
std::string loop_check(const Names& n) {
    const std::string A = n.reg + "a", L = n.reg + "l", P = n.reg + "p";
    return "\tmov.u64 " + A + ", %globaltimer;\n\tld.global.nc.u64 " + L + ", " + at(n.flag, kDeadlineAt) + ";\n\tsetp.gt.u64 " +
           P + ", " + A + ", " + L + ";\n\t@" + P + " st.volatile.global.u32 [" + n.flag + "], " +
           std::to_string(kFaultOverTime) + ";\n\t@" + P + " exit;\n";
}

// The arming entry: bounds [lo, hi) from the host, the module's variables'
// span from their own addresses (the state's variable among them), the
// deadline from %globaltimer, the flag cleared.
std::string arm_entry(const Names& n, const std::vector<ModuleVar>& vars) {
    const std::string p = n.arm + "_param_";
    std::string s = "\n.visible .entry " + n.arm + "(\n\t.param .u64 " + p + "0,\n\t.param .u64 " + p + "1,\n\t.param .u64 " +
                    p + "2\n)\n{\n\t.reg .b64 %kbarm<8>;\n\t.reg .b32 %kbzero;\n";
    s += "\tld.param.u64 %kbarm0, [" + p + "0];\n\tld.param.u64 %kbarm1, [" + p + "1];\n\tld.param.u64 %kbarm2, [" + p +
         "2];\n";
    s += "\tst.global.v2.u64 " + at(n.flag, kBoundsAt) + ", {%kbarm0, %kbarm1};\n";
    // The first variable sets the span, the others widen it (a module with
    // no variable of the candidate's names the state's alone).
    for (size_t i = 0; i < vars.size(); ++i) {
        const ModuleVar& v = vars[i];
        const std::string lo = i == 0 ? "%kbarm3" : "%kbarm5", hi = i == 0 ? "%kbarm4" : "%kbarm6";
        s += "\tmov.u64 " + lo + ", " + v.name + ";\n\tcvta." + (v.is_const ? "const" : "global") + ".u64 " + lo + ", " + lo +
             ";\n\tadd.s64 " + hi + ", " + lo + ", " + std::to_string(v.bytes) + ";\n";
        if (i > 0) s += "\tmin.u64 %kbarm3, %kbarm3, %kbarm5;\n\tmax.u64 %kbarm4, %kbarm4, %kbarm6;\n";
    }
    s += "\tst.global.v2.u64 " + at(n.flag, kVarsAt) + ", {%kbarm3, %kbarm4};\n";
    s += "\tmov.u64 %kbarm5, %globaltimer;\n\tadd.s64 %kbarm5, %kbarm5, %kbarm2;\n\tst.global.u64 " +
         at(n.flag, kDeadlineAt) + ", %kbarm5;\n";
    s += "\tmov.u32 %kbzero, 0;\n\tst.volatile.global.v4.u32 [" + n.flag + "], {%kbzero, %kbzero, %kbzero, %kbzero};\n";
    s += "\tret;\n}\n";
    return s;
}

// The checked PTX into `out` (its bounds_checked says whether accesses get
// checks; it turns false when a variable turns out unsizable).
void rewrite(const std::vector<std::string>& lines, const Names& n, CheckedForm form, CheckedPtx* out);

}  // namespace

CheckedPtx check_faults(const std::string& ptx, CheckedForm form) {
    CheckedPtx out;
    const std::string flag = trap_flag_symbol(ptx);
    if (flag.empty()) return out;
    const std::string hex = flag.substr(flag.rfind('_') + 1);
    Names n{flag, "__kb_arm_" + hex, "%kb" + hex + "_"};

    // Whether the module declares a variable besides the flag
    // (Names::own_vars). And code that reaches memory kbench did not hand
    // out (the device heap, the runtime's grid-sync workspace, a parameter's
    // address, another block's shared memory in a cluster) cannot be given
    // bounds: only its loops are checked.
    std::vector<std::string> lines = split(ptx, '\n');
    n.own_vars = false;
    for (const std::string& raw : lines) {
        std::string l = without_comment(raw);
        const std::string stmt = trim(l);
        ModuleVar v;
        if (!n.own_vars && !stmt.empty() && stmt[0] == '.' && l.find(flag) == std::string::npos &&
            (stmt.find(".global") != std::string::npos || stmt.find(".const") != std::string::npos) &&
            parse_module_var(stmt, &v) != 0)
            n.own_vars = true;
        if (l.find("%envreg") != std::string::npos || l.find("cvta.param") != std::string::npos ||
            l.find("shared::cluster") != std::string::npos || has_word(l, "mapa") ||
            (l.find(".extern") != std::string::npos && l.find(".func") != std::string::npos && !has_word(l, "vprintf")))
            out.bounds_checked = false;
    }

    // A variable found unsizable after accesses were checked: again, without bounds.
    for (int pass = 0; pass < 2; ++pass) {
        const bool bounds = out.bounds_checked;
        rewrite(lines, n, form, &out);
        if (bounds == out.bounds_checked) break;
    }
    return out;
}

namespace {

// Whole-word replacement of each defined function's name by its checked copy's.
std::string renamed(const std::string& text, const std::set<std::string>& functions) {
    std::string out;
    out.reserve(text.size() + 64);
    size_t i = 0;
    while (i < text.size()) {
        if (ptx_ident_char(text[i]) && (i == 0 || !ptx_ident_char(text[i - 1]))) {
            size_t e = i;
            while (e < text.size() && ptx_ident_char(text[e])) ++e;
            std::string word = text.substr(i, e - i);
            out += functions.count(word) ? word + kCheckedSuffix : word;
            i = e;
            continue;
        }
        out += text[i++];
    }
    return out;
}

// The name a function definition's header gives (`.entry NAME(`, `.func
// (RET) NAME(`), or "" when `header` declares none.
std::string defined_name(const std::string& header) {
    size_t p = header.find(".entry");
    size_t skip = 6;
    if (p == std::string::npos) p = header.find(".func"), skip = 5;
    if (p == std::string::npos || header.find(".extern") != std::string::npos) return "";
    p += skip;
    while (p < header.size() && std::isspace(static_cast<unsigned char>(header[p]))) ++p;
    if (p < header.size() && header[p] == '(') {  // a .func's return parameters
        p = header.find(')', p);
        if (p == std::string::npos) return "";
        ++p;
        while (p < header.size() && std::isspace(static_cast<unsigned char>(header[p]))) ++p;
    }
    size_t e = p;
    while (e < header.size() && ptx_ident_char(header[e])) ++e;
    return header.substr(p, e - p);
}

void rewrite(const std::vector<std::string>& lines, const Names& n, CheckedForm form, CheckedPtx* result) {
    CheckedPtx& out = *result;
    out.accesses = out.loops = 0;
    out.ptx.clear();
    const std::string& flag = n.flag;
    // Every function the module defines: its checked copy is renamed, and so
    // are the calls between checked copies.
    std::set<std::string> functions;
    {
        std::string header;
        int depth = 0;
        for (const std::string& raw : lines) {
            std::string l = trim(without_comment(raw));
            if (depth == 0 && (l.find(".entry") != std::string::npos || l.find(".func") != std::string::npos)) header.clear();
            if (depth == 0) header += l + "\n";
            for (char c : l) {
                if (c == '{' && depth++ == 0 && l.find('=') == std::string::npos) {
                    std::string name = defined_name(header);
                    if (!name.empty()) functions.insert(name);
                }
                if (c == '}') --depth;
            }
            if (depth == 0 && !l.empty() && l.back() == ';') header.clear();
        }
    }
    std::vector<ModuleVar> vars;
    std::string plain, checked, prototypes, header, fn;
    // For CheckedForm::copies_only: the module's lines outside every
    // function definition (directives, variables, extern declarations), and
    // the lines of a statement not yet ended: a function's header until its
    // body opens (then dropped) or a declaration until its ';'.
    std::string decls, held;
    auto keep_held = [&] {
        decls += held;
        held.clear();
    };
    bool is_func = false;
    int depth = 0, init_depth = 0;
    bool flag_seen = false;
    std::set<std::string> labels;
    WideRegs wide;
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string& raw = lines[i];
        std::string l = trim(without_comment(raw));
        int opens = 0, closes = 0;
        for (char c : l) opens += c == '{', closes += c == '}';
        if (depth == 0 && !flag_seen && l.find(flag) != std::string::npos) {
            // The flag's declaration (contain_traps puts it first), widened
            // to hold the checks' state.
            flag_seen = true;
            const std::string state =
                ".visible .global .align 16 .b32 " + flag + "[" + std::to_string(kStateBytes / 4) + "];\n";
            plain += state;
            held += state;
            keep_held();
            vars.push_back({false, flag, kStateBytes});
            continue;
        }
        if (depth == 0) {
            plain += raw + "\n";
            held += raw + "\n";
            if (init_depth > 0 || (l.find('=') != std::string::npos && opens > 0)) {
                keep_held();  // a variable's initializer
                // an initializer's braces, not a function body
                init_depth += opens - closes;
                if (l.find('=') != std::string::npos) {
                    ModuleVar v;
                    int r = parse_module_var(l, &v);
                    if (r > 0) vars.push_back(v);
                    if (r < 0) out.bounds_checked = false;
                }
                continue;
            }
            if (!l.empty() && l.back() == ';' && opens == 0) {
                ModuleVar v;
                int r = parse_module_var(l, &v);
                if (r > 0) vars.push_back(v);
                if (r < 0) out.bounds_checked = false;
            }
            if (l.find(".entry") != std::string::npos || l.find(".func") != std::string::npos) header.clear();
            if (opens > closes) {
                depth = opens - closes;
                labels.clear();
                wide = WideRegs{};
                const std::string name = defined_name(header);
                is_func = !name.empty() && header.find(".entry") == std::string::npos;
                fn = renamed(header, functions);
                if (is_func) prototypes += fn.substr(0, fn.find_last_not_of(" \t\n") + 1) + ";\n";
                fn += raw + "\n" + check_registers(n);
                if (name.empty()) fn.clear();  // not a function this can copy
                header.clear();
                held.clear();  // a definition: its copy stands in for it
                continue;
            }
            const bool names_function = held.find(".entry") != std::string::npos || held.find(".func") != std::string::npos;
            if (!l.empty() && l.back() == ';') {
                // A statement's end. A prototype of the input's own function
                // goes: the copies' prototypes stand in for it. An extern
                // one (vprintf, malloc) stays: the copies call it too.
                if (names_function && held.find(".extern") == std::string::npos) held.clear();
                else keep_held();
                header.clear();
            } else {
                if (!names_function) keep_held();  // a directive, a comment, a blank line
                if (!l.empty()) header += raw + "\n";
            }
            continue;
        }
        plain += raw + "\n";
        depth += opens - closes;
        if (l.rfind(".reg", 0) == 0) wide.declare(l);
        if (!l.empty() && l.back() == ':' && l.find(' ') == std::string::npos) labels.insert(l.substr(0, l.size() - 1));
        // One instruction on its own line (NVRTC's form; several statements
        // of inline asm on one line are left as they are).
        const bool single = !l.empty() && l.back() == ';' && l.find(';') == l.size() - 1 && opens == closes && l[0] != '{';
        if (single && !fn.empty()) {
            std::string guard, rest = l;
            if (rest[0] == '@') {
                size_t sp = rest.find_first_of(" \t");
                if (sp != std::string::npos) guard = rest.substr(0, sp), rest = trim(rest.substr(sp));
            }
            size_t sp = rest.find_first_of(" \t");
            std::string opcode = rest.substr(0, sp);
            std::string operands = sp == std::string::npos ? "" : trim(rest.substr(sp, rest.size() - 1 - sp));
            Access a;
            if (out.bounds_checked && parse_access(opcode, operands, wide, &a)) {
                fn += access_check(a, guard, n);
                ++out.accesses;
            } else if ((opcode == "bra" || opcode == "bra.uni") && labels.count(operands)) {
                fn += loop_check(n);
                ++out.loops;
            }
        }
        if (depth == 0 && !fn.empty()) {
            fn += renamed(raw, functions) + "\n";
            checked += fn;
            fn.clear();
        } else if (!fn.empty()) {
            fn += renamed(raw, functions) + "\n";
        }
    }
    if (!flag_seen) return;
    plain.pop_back();  // split() gave one line more than there were newlines
    keep_held();
    out.ptx = (form == CheckedForm::copies_only ? decls : plain) +
              "\n// kbench: the checked build (src/compiler/fault_containment.h)\n" + prototypes + checked +
              arm_entry(n, vars);
    out.arm_entry = n.arm;
    out.functions = functions;
}

}  // namespace
}  // namespace kb

namespace kb {

std::string describe_contained_fault(const TrapFlag& f, const std::string& case_name) {
    if (f.kind != kFaultOutOfBounds && f.kind != kFaultMisaligned) return describe_contained_trap(f, case_name);
    char addr[32];
    std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(f.address));
    const std::string tail =
        "; kbench's checked build of the kernel stopped the thread before the access, and the worker kept its "
        "context ($KBENCH_CONTAIN_TRAPS=0 runs it unchecked)";
    if (f.kind == kFaultOutOfBounds)
        return std::string("a thread accessed address ") + addr + ", outside every buffer of case '" + case_name +
               "' (CUDA_ERROR_ILLEGAL_ADDRESS, or memory that is not the kernel's): check index bounds against the "
               "sizes at this case" + tail;
    return std::string("a thread made a misaligned access at ") + addr + " at case '" + case_name +
           "' (CUDA_ERROR_MISALIGNED_ADDRESS): vector loads (float4, ...) need addresses aligned to their size" + tail;
}

}  // namespace kb
