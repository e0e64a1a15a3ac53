#include "expr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>

namespace ep::inspect {

// Named rather than anonymous: Parser (a friend of Expr, so in this
// namespace) holds tokens, and a class with external linkage should not have
// a member of an internal type (GCC says so when this file is compiled inside
// a unity batch).
namespace lexer {
struct Token {
  enum class Type { number, name, op, end } type = Type::end;
  std::string text;
  std::int64_t number = 0;
  int position = 0;  // 1-based
};
}  // namespace lexer

namespace {

using lexer::Token;

constexpr std::array<Var, 5> all_vars{Var::rank, Var::size, Var::process, Var::local, Var::group};

// Operators longest first, so that "<=" is not read as "<" then "=".
constexpr std::array<std::string_view, 16> operators{"<=", ">=", "==", "!=", "<", ">", "+", "-",
                                                     "*",  "/",  "%",  "(",  ")", "?", ":", "="};

std::vector<Token> tokenize(std::string_view text) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    const char ch = text[i];
    const int position = static_cast<int>(i) + 1;
    if (std::isspace(static_cast<unsigned char>(ch))) {
      ++i;
    } else if (std::isdigit(static_cast<unsigned char>(ch))) {
      std::int64_t value = 0;
      const std::size_t start = i;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
        const int digit = text[i] - '0';
        if (value > (std::numeric_limits<std::int64_t>::max() - digit) / 10)
          throw ExprError("integer too large", position);
        value = value * 10 + digit;
        ++i;
      }
      // "1.5", "2x": a number glued to something that is not an operator.
      const auto glued = [&](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_';
      };
      if (i < text.size() && glued(text[i])) {
        while (i < text.size() && glued(text[i])) ++i;
        throw ExprError(fmt::format("'{}' is not an integer", text.substr(start, i - start)),
                        position);
      }
      tokens.push_back(
          {Token::Type::number, std::string(text.substr(start, i - start)), value, position});
    } else if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '_') {
      const std::size_t start = i;
      while (i < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'))
        ++i;
      tokens.push_back(
          {Token::Type::name, std::string(text.substr(start, i - start)), 0, position});
    } else {
      const auto match = std::find_if(operators.begin(), operators.end(), [&](std::string_view op) {
        return text.substr(i).starts_with(op);
      });
      if (match == operators.end() || *match == "=")
        throw ExprError(match == operators.end() ? fmt::format("unexpected character '{}'", ch)
                                                 : std::string("'=' is not an operator (use '==')"),
                        position);
      tokens.push_back({Token::Type::op, std::string(*match), 0, position});
      i += match->size();
    }
  }
  tokens.push_back({Token::Type::end, "", 0, static_cast<int>(text.size()) + 1});
  return tokens;
}

std::string known_names(std::span<const Var> allowed) {
  std::string names;
  for (Var v : allowed) names += fmt::format("{}{}", names.empty() ? "" : ", ", var_name(v));
  return names + ", undef";
}

}  // namespace

std::string_view var_name(Var v) {
  switch (v) {
    case Var::rank:
      return "rank";
    case Var::size:
      return "size";
    case Var::process:
      return "process";
    case Var::local:
      return "local";
    case Var::group:
      return "group";
  }
  return "?";
}

// Recursive descent, one function per precedence level, lowest first:
//   conditional := comparison ('?' conditional ':' conditional)?
//   comparison  := additive (('<' | '<=' | '>' | '>=' | '==' | '!=') additive)?
//   additive    := term (('+' | '-') term)*
//   term        := unary (('*' | '/' | '%') unary)*
//   unary       := ('-' | '+') unary | primary
//   primary     := INTEGER | VARIABLE | 'undef' | '(' conditional ')'
// The recursion goes one level deeper at each '(', sign and '?' branch; the
// tree the evaluator recurses over grows one level per operator. Both are
// bounded by max_expr_depth, and the error points at the token that went
// past it.
class Parser {
 public:
  Parser(Expr& expr, std::vector<Token> tokens, std::span<const Var> allowed)
      : expr_(expr), tokens_(std::move(tokens)), allowed_(allowed) {}

  int parse_all() {
    const int root = conditional();
    if (peek().type != Token::Type::end)
      throw ExprError(fmt::format("unexpected '{}'", peek().text), peek().position);
    return root;
  }

 private:
  const Token& peek() const { return tokens_[next_]; }
  bool at(std::string_view op) const { return peek().type == Token::Type::op && peek().text == op; }
  const Token& take() { return tokens_[next_++]; }

  static ExprError too_deep(int position) {
    return ExprError(fmt::format("nested too deeply: more than {} levels of parentheses, signs, "
                                 "'?' branches or operators",
                                 max_expr_depth),
                     position);
  }

  // One level of the parser's recursion, for as long as the guard lives.
  class Nested {
   public:
    Nested(Parser& parser, int position) : parser_(parser) {
      if (++parser_.depth_ > max_expr_depth) {
        --parser_.depth_;
        throw too_deep(position);
      }
    }
    ~Nested() { --parser_.depth_; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;

   private:
    Parser& parser_;
  };

  int add(Expr::Node node) {
    for (const int child : {node.a, node.b, node.c})
      if (child >= 0)
        node.height =
            std::max(node.height, expr_.nodes_[static_cast<std::size_t>(child)].height + 1);
    if (node.height > max_expr_depth) throw too_deep(node.position);
    expr_.nodes_.push_back(std::move(node));
    return static_cast<int>(expr_.nodes_.size()) - 1;
  }
  int binary(const Token& op, int a, int b) {
    return add({Expr::Kind::binary, op.text, 0, op.position, 1, a, b, -1});
  }

  int conditional() {
    const int condition = comparison();
    if (!at("?")) return condition;
    const Token question = take();
    const Nested nested(*this, question.position);
    const int then = conditional();
    if (!at(":"))
      throw ExprError(fmt::format("expected ':' of the '?' at position {}", question.position),
                      peek().position);
    take();
    const int otherwise = conditional();
    return add({Expr::Kind::conditional, "?", 0, question.position, 1, condition, then, otherwise});
  }

  int comparison() {
    const int left = additive();
    for (std::string_view op : {"<", "<=", ">", ">=", "==", "!="}) {
      if (at(op)) {
        const Token token = take();
        return binary(token, left, additive());
      }
    }
    return left;
  }

  int additive() {
    int left = term();
    while (at("+") || at("-")) {
      const Token op = take();
      left = binary(op, left, term());
    }
    return left;
  }

  int term() {
    int left = unary();
    while (at("*") || at("/") || at("%")) {
      const Token op = take();
      left = binary(op, left, unary());
    }
    return left;
  }

  int unary() {
    if (at("-")) {
      const Token op = take();
      const Nested nested(*this, op.position);
      return add({Expr::Kind::negate, "-", 0, op.position, 1, unary(), -1, -1});
    }
    if (at("+")) {
      const Nested nested(*this, take().position);
      return unary();
    }
    return primary();
  }

  int primary() {
    const Token& token = peek();
    if (token.type == Token::Type::number) {
      take();
      return add({Expr::Kind::number, "", token.number, token.position});
    }
    if (token.type == Token::Type::name) {
      take();
      if (token.text == "undef") return add({Expr::Kind::undef, "", 0, token.position});
      for (Var v : all_vars) {
        if (var_name(v) != token.text) continue;
        if (std::find(allowed_.begin(), allowed_.end(), v) == allowed_.end()) break;
        return add({Expr::Kind::variable, "", static_cast<int>(v), token.position});
      }
      throw ExprError(
          fmt::format("unknown variable '{}' (known here: {})", token.text, known_names(allowed_)),
          token.position);
    }
    if (at("(")) {
      const Token open = take();
      const Nested nested(*this, open.position);
      const int inner = conditional();
      if (!at(")"))
        throw ExprError(fmt::format("expected ')' to close the '(' at position {}", open.position),
                        peek().position);
      take();
      return inner;
    }
    if (token.type == Token::Type::end)
      throw ExprError("unexpected end of expression", token.position);
    throw ExprError(fmt::format("unexpected '{}'", token.text), token.position);
  }

  Expr& expr_;
  std::vector<Token> tokens_;
  std::size_t next_ = 0;
  int depth_ = 0;
  std::span<const Var> allowed_;
};

Expr Expr::parse(std::string_view text, std::span<const Var> allowed) {
  Expr expr;
  expr.text_ = std::string(text);
  Parser parser(expr, tokenize(text), allowed);
  expr.root_ = parser.parse_all();
  return expr;
}

Value Expr::eval(const Bindings& b) const { return eval_node(root_, b); }

Value Expr::eval_node(int index, const Bindings& b) const {
  const Node& n = nodes_[static_cast<std::size_t>(index)];
  switch (n.kind) {
    case Kind::number:
      return {false, n.value};
    case Kind::variable:
      return {false, b.get(static_cast<Var>(n.value))};
    case Kind::undef:
      return {true, 0};
    case Kind::negate: {
      const Value v = eval_node(n.a, b);
      if (v.undef) throw ExprError("undef cannot be negated", n.position);
      if (v.number == std::numeric_limits<std::int64_t>::min())
        throw ExprError("integer overflow", n.position);
      return {false, -v.number};
    }
    case Kind::conditional: {
      const Value condition = eval_node(n.a, b);
      if (condition.undef) throw ExprError("undef cannot be a condition", n.position);
      return eval_node(condition.number != 0 ? n.b : n.c, b);
    }
    case Kind::binary:
      return eval_binary(n, b);
  }
  return {};
}

Value Expr::eval_binary(const Node& n, const Bindings& b) const {
  const Value l = eval_node(n.a, b);
  const Value r = eval_node(n.b, b);
  if (l.undef || r.undef)
    throw ExprError(fmt::format("undef cannot be an operand of '{}'", n.op), n.position);
  const std::int64_t x = l.number;
  const std::int64_t y = r.number;
  std::int64_t out = 0;
  const auto overflow = [&] { return ExprError("integer overflow", n.position); };
  if (n.op == "+") {
    if (__builtin_add_overflow(x, y, &out)) throw overflow();
  } else if (n.op == "-") {
    if (__builtin_sub_overflow(x, y, &out)) throw overflow();
  } else if (n.op == "*") {
    if (__builtin_mul_overflow(x, y, &out)) throw overflow();
  } else if (n.op == "/" || n.op == "%") {
    if (y == 0) throw ExprError(n.op == "/" ? "division by zero" : "modulo by zero", n.position);
    if (x == std::numeric_limits<std::int64_t>::min() && y == -1) throw overflow();
    out = n.op == "/" ? x / y : x % y;
  } else if (n.op == "<") {
    out = x < y;
  } else if (n.op == "<=") {
    out = x <= y;
  } else if (n.op == ">") {
    out = x > y;
  } else if (n.op == ">=") {
    out = x >= y;
  } else if (n.op == "==") {
    out = x == y;
  } else {
    out = x != y;
  }
  return {false, out};
}

std::string describe_error(std::string_view option, const std::string& text, const ExprError& e) {
  const int column = std::clamp(e.position(), 1, static_cast<int>(text.size()) + 1);
  auto caret = static_cast<std::size_t>(column - 1);
  // A long expression (a generated one, or one nested too deeply) is shown
  // in part, around the column, so that the message stays three lines.
  constexpr std::size_t width = 72;
  if (text.size() <= width)
    return fmt::format("{} '{}': position {}: {}\n    {}\n    {}^", option, text, e.position(),
                       e.what(), text, std::string(caret, ' '));
  const std::size_t from = caret > width / 2 ? caret - width / 2 : 0;
  std::string excerpt = text.substr(from, width);
  if (from > 0) {
    excerpt = "..." + excerpt;
    caret = caret - from + 3;
  }
  if (from + width < text.size()) excerpt += "...";
  return fmt::format("{} '{}...' ({} characters): position {}: {}\n    {}\n    {}^", option,
                     text.substr(0, width / 2), text.size(), e.position(), e.what(), excerpt,
                     std::string(caret, ' '));
}

}  // namespace ep::inspect
