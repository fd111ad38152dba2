// The launch-expression language: integer arithmetic over a task's named dims.
//
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/' | '%') unary)*
//   unary   := '-' unary | primary
//   primary := INTEGER | NAME | FUNC '(' expr (',' expr)* ')' | '(' expr ')'
//   FUNC    := ceil_div | min | max        (ceil_div takes 2 arguments, min/max 2 or more)
//
// Values are 64-bit signed integers; overflow and division by zero are errors,
// never wrapped or undefined. '/' and '%' truncate toward zero as in C.
// The parser recurses once per nesting level (parentheses, function calls,
// unary signs), so parse() refuses text longer or deeper than its limits
// before the stack could suffer; a chain of binary operators is a loop.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace kb {

using DimValues = std::map<std::string, int64_t>;

// Thrown by parse and eval; `position` is the 0-based column in the text
// (for parse errors) so messages can point at it.
class ExprError : public std::runtime_error {
public:
    ExprError(const std::string& msg, size_t position) : std::runtime_error(msg), position_(position) {}
    size_t position() const { return position_; }

private:
    size_t position_;
};

class Expr {
public:
    Expr();  // the constant 0
    static Expr constant(int64_t v);
    static constexpr size_t kDefaultMaxChars = 1024;
    static constexpr uint32_t kDefaultMaxDepth = 32;
    // Parses `text`; throws ExprError naming what was expected and where, or
    // that the text is longer than max_chars or nests deeper than max_depth.
    static Expr parse(const std::string& text, size_t max_chars = kDefaultMaxChars,
                      uint32_t max_depth = kDefaultMaxDepth);

    // Evaluates with the given dims; throws ExprError for an unknown name,
    // division by zero or overflow.
    int64_t eval(const DimValues& dims) const;
    // Every dim name the expression mentions, in order of first use.
    std::vector<std::string> names() const;
    const std::string& text() const { return text_; }
    bool is_constant() const;

    struct Node;

private:
    std::shared_ptr<const Node> root_;
    std::string text_;
};

}  // namespace kb
