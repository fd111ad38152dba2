#include "task/expr.h"

#include <cctype>
#include <limits>

namespace kb {

struct Expr::Node {
    enum Kind { Const, Name, Neg, Add, Sub, Mul, Div, Mod, CeilDiv, Min, Max } kind;
    int64_t value = 0;
    std::string name;
    std::vector<std::shared_ptr<const Node>> kids;
};

namespace {

using NodeP = std::shared_ptr<const Expr::Node>;

NodeP make(Expr::Node::Kind k, std::vector<NodeP> kids = {}, int64_t v = 0, std::string name = "") {
    auto n = std::make_shared<Expr::Node>();
    n->kind = k;
    n->kids = std::move(kids);
    n->value = v;
    n->name = std::move(name);
    return n;
}

class Parser {
public:
    Parser(const std::string& s, uint32_t max_depth) : s_(s), max_depth_(max_depth) {}

    NodeP parse_all() {
        skip();
        if (pos_ == s_.size()) throw ExprError("empty expression: expected a number, a dim name or '('", pos_);
        NodeP n = expr();
        skip();
        if (pos_ != s_.size())
            throw ExprError(std::string("unexpected '") + s_[pos_] + "': expected an operator (+ - * / %) or the end",
                            pos_);
        return n;
    }

private:
    void skip() {
        while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    bool eat(char c) {
        skip();
        if (pos_ < s_.size() && s_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }

    NodeP expr() {
        NodeP left = term();
        for (;;) {
            if (eat('+')) left = make(Expr::Node::Add, {left, term()});
            else if (eat('-')) left = make(Expr::Node::Sub, {left, term()});
            else return left;
        }
    }
    NodeP term() {
        NodeP left = unary();
        for (;;) {
            if (eat('*')) left = make(Expr::Node::Mul, {left, unary()});
            else if (eat('/')) left = make(Expr::Node::Div, {left, unary()});
            else if (eat('%')) left = make(Expr::Node::Mod, {left, unary()});
            else return left;
        }
    }
    // Every recursion goes through here: one level per '(', function call or
    // unary sign.
    NodeP unary() {
        struct Level {
            Parser& p;
            explicit Level(Parser& parser) : p(parser) {
                if (++p.depth_ > p.max_depth_)
                    throw ExprError("the expression nests deeper than " + std::to_string(p.max_depth_) +
                                        " levels (parentheses, function calls and unary signs)",
                                    p.pos_);
            }
            ~Level() { --p.depth_; }
        } level(*this);
        if (eat('-')) return make(Expr::Node::Neg, {unary()});
        if (eat('+')) return unary();
        return primary();
    }
    NodeP primary() {
        skip();
        if (pos_ >= s_.size()) throw ExprError("expression ends early: expected a number, a dim name or '('", pos_);
        char c = s_[pos_];
        if (std::isdigit(static_cast<unsigned char>(c))) {
            size_t start = pos_;
            int64_t v = 0;
            while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
                int d = s_[pos_] - '0';
                if (v > (std::numeric_limits<int64_t>::max() - d) / 10)
                    throw ExprError("integer literal too large for 64 bits", start);
                v = v * 10 + d;
                ++pos_;
            }
            if (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.'))
                throw ExprError("expressions are integer-only: '" + s_.substr(start, pos_ - start + 1) + "...' is not an integer", start);
            return make(Expr::Node::Const, {}, v);
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            size_t start = pos_;
            while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
            std::string name = s_.substr(start, pos_ - start);
            skip();
            if (pos_ < s_.size() && s_[pos_] == '(') {
                ++pos_;
                Expr::Node::Kind kind;
                if (name == "ceil_div") kind = Expr::Node::CeilDiv;
                else if (name == "min") kind = Expr::Node::Min;
                else if (name == "max") kind = Expr::Node::Max;
                else throw ExprError("unknown function '" + name + "': the functions are ceil_div, min and max", start);
                std::vector<NodeP> args;
                args.push_back(expr());
                while (eat(',')) args.push_back(expr());
                if (!eat(')')) throw ExprError("expected ',' or ')' in the arguments of " + name, pos_);
                if (kind == Expr::Node::CeilDiv && args.size() != 2)
                    throw ExprError("ceil_div takes 2 arguments, got " + std::to_string(args.size()), start);
                if (kind != Expr::Node::CeilDiv && args.size() < 2)
                    throw ExprError(name + " takes 2 or more arguments, got " + std::to_string(args.size()), start);
                return make(kind, std::move(args));
            }
            return make(Expr::Node::Name, {}, 0, name);
        }
        if (c == '(') {
            size_t open = pos_++;
            NodeP n = expr();
            if (!eat(')')) throw ExprError("missing ')' for the '(' at column " + std::to_string(open + 1), pos_);
            return n;
        }
        throw ExprError(std::string("unexpected '") + c + "': expected a number, a dim name or '('", pos_);
    }

    const std::string& s_;
    size_t pos_ = 0;
    uint32_t depth_ = 0;
    const uint32_t max_depth_;
};

// Arithmetic with overflow detection. The operands are evaluated first, into
// locals: a call like f(__builtin_add_overflow(a, b, &r), r) would read r
// before the builtin writes it (argument order is unspecified).
template <class Op>
int64_t checked(Op op, int64_t a, int64_t b, const char* name) {
    int64_t r = 0;
    if (op(a, b, &r)) throw ExprError(std::string("integer overflow in '") + name + "'", 0);
    return r;
}

bool add_ovf(int64_t a, int64_t b, int64_t* r) { return __builtin_add_overflow(a, b, r); }
bool sub_ovf(int64_t a, int64_t b, int64_t* r) { return __builtin_sub_overflow(a, b, r); }
bool mul_ovf(int64_t a, int64_t b, int64_t* r) { return __builtin_mul_overflow(a, b, r); }

int64_t eval_node(const Expr::Node& n, const DimValues& dims) {
    using K = Expr::Node;
    switch (n.kind) {
        case K::Const: return n.value;
        case K::Name: {
            auto it = dims.find(n.name);
            if (it == dims.end()) throw ExprError("unknown dim '" + n.name + "'", 0);
            return it->second;
        }
        case K::Neg: return checked(sub_ovf, 0, eval_node(*n.kids[0], dims), "-");
        case K::Add: return checked(add_ovf, eval_node(*n.kids[0], dims), eval_node(*n.kids[1], dims), "+");
        case K::Sub: return checked(sub_ovf, eval_node(*n.kids[0], dims), eval_node(*n.kids[1], dims), "-");
        case K::Mul: return checked(mul_ovf, eval_node(*n.kids[0], dims), eval_node(*n.kids[1], dims), "*");
        case K::Div:
        case K::Mod:
        case K::CeilDiv: {
            int64_t a = eval_node(*n.kids[0], dims), b = eval_node(*n.kids[1], dims);
            const char* op = n.kind == K::Div ? "/" : n.kind == K::Mod ? "%" : "ceil_div";
            if (b == 0) throw ExprError(std::string("division by zero in '") + op + "'", 0);
            if (a == std::numeric_limits<int64_t>::min() && b == -1) throw ExprError(std::string("integer overflow in '") + op + "'", 0);
            if (n.kind == K::Div) return a / b;
            if (n.kind == K::Mod) return a % b;
            int64_t q = a / b;  // ceil for any signs: round the truncated quotient up when there is a remainder of b's sign
            if ((a % b != 0) && ((a < 0) == (b < 0))) ++q;
            return q;
        }
        case K::Min:
        case K::Max: {
            int64_t best = eval_node(*n.kids[0], dims);
            for (size_t i = 1; i < n.kids.size(); ++i) {
                int64_t v = eval_node(*n.kids[i], dims);
                best = n.kind == K::Min ? std::min(best, v) : std::max(best, v);
            }
            return best;
        }
    }
    return 0;
}

void collect(const Expr::Node& n, std::vector<std::string>& out) {
    if (n.kind == Expr::Node::Name) {
        for (const auto& s : out)
            if (s == n.name) return;
        out.push_back(n.name);
    }
    for (const auto& k : n.kids) collect(*k, out);
}

}  // namespace

Expr::Expr() : root_(make(Node::Const, {}, 0)), text_("0") {}

Expr Expr::constant(int64_t v) {
    Expr e;
    e.root_ = make(Node::Const, {}, v);
    e.text_ = std::to_string(v);
    return e;
}

Expr Expr::parse(const std::string& text, size_t max_chars, uint32_t max_depth) {
    if (text.size() > max_chars)
        throw ExprError("the expression is " + std::to_string(text.size()) + " characters long, more than " +
                            std::to_string(max_chars),
                        0);
    Expr e;
    e.root_ = Parser(text, max_depth).parse_all();
    e.text_ = text;
    return e;
}

int64_t Expr::eval(const DimValues& dims) const { return eval_node(*root_, dims); }

std::vector<std::string> Expr::names() const {
    std::vector<std::string> out;
    collect(*root_, out);
    return out;
}

bool Expr::is_constant() const { return names().empty(); }

}  // namespace kb
