// The launch-expression language (src/task/expr.h): grammar, C semantics of
// / and %, ceil_div for every sign, checked overflow, and error positions.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "task/expr.h"

namespace {

using kb::DimValues;
using kb::Expr;
using kb::ExprError;

int64_t eval(const std::string& text, const DimValues& dims = {}) { return Expr::parse(text).eval(dims); }

// The column (0-based) a parse error points at, or -1 when it parses.
long parse_error_position(const std::string& text) {
    try {
        Expr::parse(text);
    } catch (const ExprError& e) {
        return long(e.position());
    }
    return -1;
}

std::string parse_error_message(const std::string& text) {
    try {
        Expr::parse(text);
    } catch (const ExprError& e) {
        return e.what();
    }
    return "";
}

std::string eval_error_message(const std::string& text, const DimValues& dims = {}) {
    Expr e = Expr::parse(text);  // must parse: the error is at evaluation
    try {
        e.eval(dims);
    } catch (const ExprError& err) {
        return err.what();
    }
    return "";
}

TEST(ExprParse, IntegersAndNames) {
    EXPECT_EQ(eval("0"), 0);
    EXPECT_EQ(eval("42"), 42);
    EXPECT_EQ(eval("  7  "), 7);
    EXPECT_EQ(eval("n", {{"n", 1009}}), 1009);
    EXPECT_EQ(eval("block_size_2", {{"block_size_2", 64}}), 64);
    EXPECT_EQ(eval("_x", {{"_x", 3}}), 3);
    EXPECT_EQ(eval("9223372036854775807"), std::numeric_limits<int64_t>::max());
}

TEST(ExprParse, Precedence) {
    EXPECT_EQ(eval("2 + 3 * 4"), 14);
    EXPECT_EQ(eval("(2 + 3) * 4"), 20);
    EXPECT_EQ(eval("2 * 3 + 4"), 10);
    EXPECT_EQ(eval("10 - 4 - 3"), 3);    // left associative
    EXPECT_EQ(eval("100 / 10 / 5"), 2);  // left associative
    EXPECT_EQ(eval("2 * 3 % 4"), 2);     // (2*3)%4: * and % bind alike, left to right
    EXPECT_EQ(eval("20 % 7 * 2"), 12);
    EXPECT_EQ(eval("1 + 2 * 3 - 8 / 4"), 5);
    EXPECT_EQ(eval("((((1))))"), 1);
    EXPECT_EQ(eval("12 * n + 4", {{"n", 10}}), 124);
}

TEST(ExprParse, UnaryMinusAndPlus) {
    EXPECT_EQ(eval("-3"), -3);
    EXPECT_EQ(eval("--3"), 3);
    EXPECT_EQ(eval("- - - 3"), -3);
    EXPECT_EQ(eval("-2 * 3"), -6);
    EXPECT_EQ(eval("2 * -3"), -6);
    EXPECT_EQ(eval("2 - -3"), 5);
    EXPECT_EQ(eval("-(2 + 3)"), -5);
    EXPECT_EQ(eval("+5"), 5);
    EXPECT_EQ(eval("-n", {{"n", 4}}), -4);
    EXPECT_EQ(eval("-9223372036854775807 - 1"), std::numeric_limits<int64_t>::min());
}

TEST(ExprParse, DivisionAndModuloTruncateLikeC) {
    EXPECT_EQ(eval("7 / 2"), 3);
    EXPECT_EQ(eval("-7 / 2"), -3);
    EXPECT_EQ(eval("7 / -2"), -3);
    EXPECT_EQ(eval("-7 / -2"), 3);
    EXPECT_EQ(eval("7 % 3"), 1);
    EXPECT_EQ(eval("-7 % 3"), -1);
    EXPECT_EQ(eval("7 % -3"), 1);
    EXPECT_EQ(eval("-7 % -3"), -1);
}

TEST(ExprParse, CeilDivForEverySign) {
    EXPECT_EQ(eval("ceil_div(7, 2)"), 4);
    EXPECT_EQ(eval("ceil_div(8, 2)"), 4);
    EXPECT_EQ(eval("ceil_div(0, 5)"), 0);
    EXPECT_EQ(eval("ceil_div(1, 256)"), 1);
    EXPECT_EQ(eval("ceil_div(-7, 2)"), -3);  // ceil(-3.5)
    EXPECT_EQ(eval("ceil_div(7, -2)"), -3);  // ceil(-3.5)
    EXPECT_EQ(eval("ceil_div(-7, -2)"), 4);  // ceil(3.5)
    EXPECT_EQ(eval("ceil_div(-8, 2)"), -4);
    EXPECT_EQ(eval("ceil_div(-1, 256)"), 0);  // ceil(-0.0039)
    EXPECT_EQ(eval("ceil_div(n, 256)", {{"n", 100003}}), 391);
    EXPECT_EQ(eval("ceil_div(9223372036854775807, 2)"), 4611686018427387904);
}

TEST(ExprParse, MinMaxArity) {
    EXPECT_EQ(eval("min(3, 1)"), 1);
    EXPECT_EQ(eval("max(3, 1)"), 3);
    EXPECT_EQ(eval("min(3, 1, 2)"), 1);
    EXPECT_EQ(eval("max(1, 5, 3, -2)"), 5);
    EXPECT_EQ(eval("min(-1, -5)"), -5);
    EXPECT_EQ(eval("max(min(n, 1024), 32)", {{"n", 7}}), 32);
    EXPECT_EQ(eval("min(ceil_div(n, 256), 65535)", {{"n", 1 << 30}}), 65535);

    EXPECT_NE(parse_error_message("min(3)").find("min takes 2 or more arguments, got 1"), std::string::npos);
    EXPECT_NE(parse_error_message("max(3)").find("max takes 2 or more arguments"), std::string::npos);
    EXPECT_NE(parse_error_message("ceil_div(3)").find("ceil_div takes 2 arguments, got 1"), std::string::npos);
    EXPECT_NE(parse_error_message("ceil_div(1, 2, 3)").find("ceil_div takes 2 arguments, got 3"), std::string::npos);
    EXPECT_EQ(parse_error_position("min(3)"), 0);
    EXPECT_EQ(parse_error_position("1 + max(3)"), 4);
    EXPECT_GE(parse_error_position("min()"), 0);
}

TEST(ExprParse, UnknownFunction) {
    std::string msg = parse_error_message("foo(1, 2)");
    EXPECT_NE(msg.find("unknown function 'foo'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("ceil_div, min and max"), std::string::npos) << msg;
    EXPECT_EQ(parse_error_position("foo(1, 2)"), 0);
    EXPECT_EQ(parse_error_position("n * sqrt(n)"), 4);
}

TEST(ExprParse, ErrorColumns) {
    EXPECT_EQ(parse_error_position(""), 0);
    EXPECT_EQ(parse_error_position("   "), 3);
    EXPECT_EQ(parse_error_position("n +"), 3);      // ends early
    EXPECT_EQ(parse_error_position("n + * 2"), 4);  // '*' where an operand belongs
    EXPECT_EQ(parse_error_position("n 2"), 2);      // two operands in a row
    EXPECT_EQ(parse_error_position("(n + 1"), 6);   // missing ')'
    EXPECT_EQ(parse_error_position("ceil_div(n, 2"), 13);
    EXPECT_EQ(parse_error_position("n $ 2"), 2);
    EXPECT_EQ(parse_error_position("n)"), 1);
    EXPECT_EQ(parse_error_position("2.5 * n"), 0);  // integers only
    EXPECT_EQ(parse_error_position("n * 3x"), 4);

    EXPECT_NE(parse_error_message("(n + 1").find("missing ')'"), std::string::npos);
    EXPECT_NE(parse_error_message("2.5").find("integer-only"), std::string::npos);
    EXPECT_NE(parse_error_message("").find("empty expression"), std::string::npos);
}

TEST(ExprParse, IntegerLiteralTooLarge) {
    EXPECT_NE(parse_error_message("9223372036854775808").find("too large"), std::string::npos);
    EXPECT_EQ(parse_error_position("1 + 99999999999999999999"), 4);
}

TEST(ExprEval, OverflowIsAnError) {
    EXPECT_NE(eval_error_message("9223372036854775807 + 1").find("overflow"), std::string::npos);
    EXPECT_NE(eval_error_message("-9223372036854775807 - 2").find("overflow"), std::string::npos);
    EXPECT_NE(eval_error_message("4294967296 * 4294967296").find("overflow"), std::string::npos);
    EXPECT_NE(eval_error_message("-(-9223372036854775807 - 1)").find("overflow"), std::string::npos);
    EXPECT_NE(eval_error_message("(-9223372036854775807 - 1) / -1").find("overflow"), std::string::npos);
    EXPECT_NE(eval_error_message("(-9223372036854775807 - 1) % -1").find("overflow"), std::string::npos);
    EXPECT_NE(eval_error_message("n * n * n", {{"n", 1 << 22}}).find("overflow"), std::string::npos);
    // Just below the edge is fine.
    EXPECT_EQ(eval("n * n", {{"n", 3037000499}}), int64_t(3037000499) * 3037000499);
}

TEST(ExprEval, DivisionByZeroIsAnError) {
    EXPECT_NE(eval_error_message("1 / 0").find("division by zero"), std::string::npos);
    EXPECT_NE(eval_error_message("1 % 0").find("division by zero"), std::string::npos);
    EXPECT_NE(eval_error_message("ceil_div(1, 0)").find("division by zero"), std::string::npos);
    EXPECT_NE(eval_error_message("n / (n - n)", {{"n", 5}}).find("division by zero"), std::string::npos);
}

TEST(ExprEval, UnknownDimIsAnError) {
    EXPECT_NE(eval_error_message("n + m", {{"n", 1}}).find("unknown dim 'm'"), std::string::npos);
}

TEST(ExprParse, NamesTextAndConstants) {
    Expr e = Expr::parse("ceil_div(m, BLOCK) * m + k");
    EXPECT_EQ(e.names(), (std::vector<std::string>{"m", "BLOCK", "k"}));
    EXPECT_EQ(e.text(), "ceil_div(m, BLOCK) * m + k");
    EXPECT_FALSE(e.is_constant());

    Expr c = Expr::parse("ceil_div(1000, 256)");
    EXPECT_TRUE(c.is_constant());
    EXPECT_TRUE(c.names().empty());
    EXPECT_EQ(c.eval({}), 4);

    EXPECT_EQ(Expr::constant(-12).text(), "-12");
    EXPECT_EQ(Expr::constant(-12).eval({}), -12);
    EXPECT_EQ(Expr().eval({}), 0);
    EXPECT_TRUE(Expr().is_constant());
    // Function names are not dims even when a dim could be spelled alike.
    EXPECT_TRUE(Expr::parse("min(1, 2)").names().empty());
    EXPECT_EQ(Expr::parse("min + 1").names(), (std::vector<std::string>{"min"}));
}

}  // namespace
