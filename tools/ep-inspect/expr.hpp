// The expression language of ep-inspect's scenario options (--color 'rank%3',
// --key '-rank', --group 'rank<size/2 ? 0 : 1', ...).
//
// A scenario is typed by a person and evaluated on every rank of a job, so the
// language is deliberately tiny and closed: integers, a fixed set of
// variables, + - * / % with C's truncating division, unary minus, comparisons
// (giving 0 or 1), the conditional `c ? a : b`, parentheses, and `undef`
// (MPI_UNDEFINED). There is no eval, no function call, nothing that reaches
// outside the evaluator. Every error carries the 1-based position in the text
// it concerns, so the message can point at it.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ep::inspect {

/// How deeply an expression may nest: parentheses, signs, the branches of
/// `?:` and the operands of a chain of operators each add a level. Parsing
/// and evaluating recurse once per level, so without a bound a long enough
/// expression ("((((...", "- - - ...") overflows the stack; real ones
/// nest a few levels.
inline constexpr int max_expr_depth = 256;

/// The variables an expression may name. Which of them an option accepts is
/// the option's business (see Expr::parse).
enum class Var { rank, size, process, local, group };

/// The name of a variable as written in expressions.
std::string_view var_name(Var v);

/// A malformed expression, or one that cannot be evaluated (division by
/// zero, undef in arithmetic, overflow). `position` is 1-based.
class ExprError : public std::runtime_error {
 public:
  ExprError(std::string message, int position)
      : std::runtime_error(std::move(message)), position_(position) {}
  int position() const { return position_; }

 private:
  int position_;
};

/// The value of an expression: an integer, or undef.
struct Value {
  bool undef = false;
  std::int64_t number = 0;
};

/// The values of the variables for one evaluation, indexed by Var.
struct Bindings {
  std::int64_t values[5] = {0, 0, 0, 0, 0};
  void set(Var v, std::int64_t value) { values[static_cast<int>(v)] = value; }
  std::int64_t get(Var v) const { return values[static_cast<int>(v)]; }
};

class Expr {
 public:
  /// Parses `text`, accepting only the variables in `allowed`. Throws
  /// ExprError for a malformed expression, an unknown variable, or one that
  /// nests deeper than max_expr_depth (at the token that goes too deep).
  static Expr parse(std::string_view text, std::span<const Var> allowed);

  /// Evaluates; throws ExprError (division by zero, undef in arithmetic or
  /// as a condition, a result or intermediate outside 64-bit integers).
  Value eval(const Bindings& b) const;

  const std::string& text() const { return text_; }

 private:
  enum class Kind { number, variable, undef, negate, binary, conditional };
  struct Node {
    Kind kind = Kind::number;
    std::string op;          // binary: "+", "<=", ...
    std::int64_t value = 0;  // number; variable: the Var
    int position = 0;        // 1-based, of the token that made the node
    int height = 1;          // levels of the subtree, at most max_expr_depth
    int a = -1, b = -1, c = -1;
  };
  friend class Parser;

  Value eval_node(int index, const Bindings& b) const;
  Value eval_binary(const Node& n, const Bindings& b) const;

  std::string text_;
  std::vector<Node> nodes_;
  int root_ = -1;
};

/// The option's error as people should see it: the option, the expression,
/// the position and the message, and a caret under that position.
std::string describe_error(std::string_view option, const std::string& text, const ExprError& e);

}  // namespace ep::inspect
