#include "runtime/tools/calculator.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <vector>

namespace kaisha::tools {
namespace {

// A failure while parsing or evaluating; turned into an Error at the top.
struct CalcError {
  std::string code;  // security | syntax | math | type
  std::string message;
};

std::string at(size_t pos) { return " (at column " + std::to_string(pos + 1) + ")"; }

CalcError security(const std::string& what, size_t pos) {
  return {"security", "SecurityError: " + what + at(pos) +
                          "; the calculator accepts numbers, lists, operators and its listed functions only"};
}
CalcError syntax(const std::string& what, size_t pos) { return {"syntax", "SyntaxError: " + what + at(pos)}; }
CalcError math_error(const std::string& kind, const std::string& what, size_t pos) {
  return {"math", kind + ": " + what + at(pos)};
}
CalcError type_error(const std::string& what, size_t pos) { return {"type", "TypeError: " + what + at(pos)}; }

// ------------------------------------------------------------------ values

struct Value {
  enum class Kind { number, boolean, list } kind = Kind::number;
  double num = 0;
  std::vector<double> items;

  static Value number(double v) { return {Kind::number, v, {}}; }
  static Value boolean(bool b) { return {Kind::boolean, b ? 1.0 : 0.0, {}}; }
  static Value list(std::vector<double> v) { return {Kind::list, 0, std::move(v)}; }
  bool truthy() const { return kind == Kind::list ? !items.empty() : num != 0; }
};

double as_number(const Value& v, size_t pos) {
  if (v.kind == Value::Kind::list) throw type_error("expected a number, got a list", pos);
  return v.num;
}

double finite(double v, size_t pos) {
  if (std::isnan(v)) throw math_error("ValueError", "math domain error", pos);
  if (std::isinf(v)) throw math_error("OverflowError", "result too large", pos);
  return v;
}

// ------------------------------------------------------------------ syntax tree

struct Node;
using NodePtr = std::unique_ptr<Node>;

struct Node {
  enum class Kind { number, boolean, list, neg, pos, not_, binary, compare, and_, or_, call } kind;
  size_t pos = 0;
  double num = 0;
  std::string op;                // binary operator or function name
  std::vector<std::string> ops;  // comparison chain operators
  std::vector<NodePtr> kids;
};

NodePtr make(Node::Kind k, size_t pos) {
  auto n = std::make_unique<Node>();
  n->kind = k;
  n->pos = pos;
  return n;
}

// ------------------------------------------------------------------ lexer

struct Token {
  enum class Kind { end, number, name, op } kind = Kind::end;
  std::string text;
  double num = 0;
  size_t pos = 0;
};

const std::set<std::string> kFunctions = {"abs",   "min",  "max",  "sum",  "round", "floor",  "ceil",     "sin",
                                          "cos",   "tan",  "asin", "acos", "atan",  "atan2",  "exp",      "log",
                                          "log10", "log2", "pow",  "sqrt", "mean",  "median", "variance", "stdev"};
const std::map<std::string, double> kConstants = {
    {"pi", M_PI}, {"e", M_E}, {"tau", 2 * M_PI}, {"True", 1}, {"False", 0}};

class Lexer {
 public:
  explicit Lexer(const std::string& s) : s_(s) {}

  Token next() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    Token t;
    t.pos = i_;
    if (i_ >= s_.size()) return t;
    const char c = s_[i_];
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_ + 1])))) {
      const char* begin = s_.c_str() + i_;
      char* end = nullptr;
      t.num = std::strtod(begin, &end);
      i_ += static_cast<size_t>(end - begin);
      // "1.real", "2e": a letter glued to a number is an attribute or junk.
      if (i_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_'))
        throw syntax("invalid number", t.pos);
      t.kind = Token::Kind::number;
      return t;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t b = i_;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) ++i_;
      t.kind = Token::Kind::name;
      t.text = s_.substr(b, i_ - b);
      return t;
    }
    static const char* kTwo[] = {"**", "//", "==", "!=", "<=", ">="};
    for (const char* op : kTwo) {
      if (s_.compare(i_, 2, op) == 0) {
        i_ += 2;
        t.kind = Token::Kind::op;
        t.text = op;
        return t;
      }
    }
    if (std::string("+-*/%<>()[],").find(c) != std::string::npos) {
      ++i_;
      t.kind = Token::Kind::op;
      t.text = std::string(1, c);
      return t;
    }
    if (c == '=') throw security("assignment is not allowed", t.pos);
    if (c == '.') throw security("attribute access is not allowed", t.pos);
    if (c == '\'' || c == '"') throw security("string literals are not allowed", t.pos);
    throw syntax(std::string("unexpected character '") + c + "'", t.pos);
  }

 private:
  const std::string& s_;
  size_t i_ = 0;
};

// ------------------------------------------------------------------ parser

class Parser {
 public:
  Parser(const std::string& s, const CalcLimits& limits) : lex_(s), limits_(limits) { tok_ = lex_.next(); }

  NodePtr parse() {
    NodePtr n = expr();
    if (tok_.kind != Token::Kind::end) {
      if (tok_.kind == Token::Kind::name && !is_operator_word(tok_.text))
        throw security("'" + tok_.text + "' is not allowed here", tok_.pos);
      throw syntax("unexpected '" + describe(tok_) + "'", tok_.pos);
    }
    return n;
  }

 private:
  // Depth of nested constructs, so a pathological input cannot exhaust the stack.
  struct Deeper {
    Parser& p;
    explicit Deeper(Parser& parser, size_t pos) : p(parser) {
      if (++p.depth_ > p.limits_.max_depth)
        throw syntax("expression nested deeper than " + std::to_string(p.limits_.max_depth) + " levels", pos);
    }
    ~Deeper() { --p.depth_; }
  };

  static bool is_operator_word(const std::string& w) { return w == "and" || w == "or" || w == "not"; }

  static std::string describe(const Token& t) {
    if (t.kind == Token::Kind::end) return "end of expression";
    if (t.kind == Token::Kind::number) return "number";
    return t.text;
  }

  bool is_op(const char* op) const { return tok_.kind == Token::Kind::op && tok_.text == op; }
  bool is_word(const char* w) const { return tok_.kind == Token::Kind::name && tok_.text == w; }
  void advance() { tok_ = lex_.next(); }
  void expect(const char* op) {
    if (!is_op(op)) throw syntax(std::string("expected '") + op + "', got '" + describe(tok_) + "'", tok_.pos);
    advance();
  }

  NodePtr expr() { return or_expr(); }

  NodePtr or_expr() {
    NodePtr left = and_expr();
    while (is_word("or")) {
      auto n = make(Node::Kind::or_, tok_.pos);
      advance();
      n->kids.push_back(std::move(left));
      n->kids.push_back(and_expr());
      left = std::move(n);
    }
    return left;
  }

  NodePtr and_expr() {
    NodePtr left = not_expr();
    while (is_word("and")) {
      auto n = make(Node::Kind::and_, tok_.pos);
      advance();
      n->kids.push_back(std::move(left));
      n->kids.push_back(not_expr());
      left = std::move(n);
    }
    return left;
  }

  NodePtr not_expr() {
    if (is_word("not")) {
      Deeper d(*this, tok_.pos);
      auto n = make(Node::Kind::not_, tok_.pos);
      advance();
      n->kids.push_back(not_expr());
      return n;
    }
    return comparison();
  }

  NodePtr comparison() {
    NodePtr first = arith();
    static const std::set<std::string> kCmp = {"==", "!=", "<", "<=", ">", ">="};
    if (tok_.kind != Token::Kind::op || !kCmp.count(tok_.text)) return first;
    auto n = make(Node::Kind::compare, tok_.pos);
    n->kids.push_back(std::move(first));
    while (tok_.kind == Token::Kind::op && kCmp.count(tok_.text)) {
      n->ops.push_back(tok_.text);
      advance();
      n->kids.push_back(arith());
    }
    return n;
  }

  NodePtr arith() {
    NodePtr left = term();
    while (is_op("+") || is_op("-")) left = binary(std::move(left), &Parser::term);
    return left;
  }

  NodePtr term() {
    NodePtr left = unary();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) left = binary(std::move(left), &Parser::unary);
    return left;
  }

  NodePtr binary(NodePtr left, NodePtr (Parser::*rhs)()) {
    auto n = make(Node::Kind::binary, tok_.pos);
    n->op = tok_.text;
    advance();
    n->kids.push_back(std::move(left));
    n->kids.push_back((this->*rhs)());
    return n;
  }

  NodePtr unary() {
    if (is_op("-") || is_op("+")) {
      Deeper d(*this, tok_.pos);
      auto n = make(is_op("-") ? Node::Kind::neg : Node::Kind::pos, tok_.pos);
      advance();
      n->kids.push_back(unary());
      return n;
    }
    return power();
  }

  // Python: -2 ** 2 == -4 and 2 ** -1 == 0.5 (the exponent is a unary).
  NodePtr power() {
    NodePtr base = primary();
    if (!is_op("**")) return base;
    Deeper d(*this, tok_.pos);
    auto n = make(Node::Kind::binary, tok_.pos);
    n->op = "**";
    advance();
    n->kids.push_back(std::move(base));
    n->kids.push_back(unary());
    return n;
  }

  NodePtr primary() {
    Deeper d(*this, tok_.pos);
    const Token t = tok_;
    if (t.kind == Token::Kind::number) {
      advance();
      auto n = make(Node::Kind::number, t.pos);
      n->num = t.num;
      return n;
    }
    if (is_op("(")) {
      advance();
      NodePtr inner = expr();
      if (is_op(",")) throw syntax("tuples are not supported; use a list [a, b]", tok_.pos);
      expect(")");
      return inner;
    }
    if (is_op("[")) {
      advance();
      auto n = make(Node::Kind::list, t.pos);
      if (!is_op("]")) {
        for (;;) {
          n->kids.push_back(expr());
          if (n->kids.size() > limits_.max_list)
            throw syntax("list longer than " + std::to_string(limits_.max_list) + " elements", t.pos);
          if (!is_op(",")) break;
          advance();
          if (is_op("]")) break;  // trailing comma
        }
      }
      expect("]");
      return n;
    }
    if (t.kind == Token::Kind::name) return name(t);
    throw syntax("unexpected '" + describe(t) + "'", t.pos);
  }

  NodePtr name(const Token& t) {
    // Judge the name before reading on, so "x = 1" is about x, not about '='.
    const auto constant = kConstants.find(t.text);
    if (constant == kConstants.end() && !kFunctions.count(t.text)) {
      if (t.text == "import" || t.text == "from") throw security("imports are not allowed", t.pos);
      if (t.text == "lambda") throw security("lambda is not allowed", t.pos);
      if (is_operator_word(t.text)) throw syntax("'" + t.text + "' needs an operand before it", t.pos);
      throw security("name '" + t.text + "' is not allowed", t.pos);
    }
    advance();
    const bool called = is_op("(");
    if (constant != kConstants.end()) {
      if (called) throw type_error("'" + t.text + "' is a constant, not a function", t.pos);
      const bool boolean = t.text == "True" || t.text == "False";
      auto n = make(boolean ? Node::Kind::boolean : Node::Kind::number, t.pos);
      n->num = constant->second;
      return n;
    }
    if (!called) throw type_error("function '" + t.text + "' must be called, e.g. " + t.text + "(x)", t.pos);
    advance();
    auto n = make(Node::Kind::call, t.pos);
    n->op = t.text;
    if (!is_op(")")) {
      for (;;) {
        n->kids.push_back(expr());
        if (!is_op(",")) break;
        advance();
      }
    }
    expect(")");
    return n;
  }

  Lexer lex_;
  const CalcLimits& limits_;
  Token tok_;
  int depth_ = 0;
};

// ------------------------------------------------------------------ evaluation

Value eval(const Node& n);

std::vector<double> numbers_of(const Node& call, const std::vector<Value>& args) {
  // f([1, 2, 3]) or f(1, 2, 3).
  if (args.size() == 1 && args[0].kind == Value::Kind::list) return args[0].items;
  std::vector<double> v;
  for (const Value& a : args) v.push_back(as_number(a, call.pos));
  return v;
}

void arity(const Node& call, size_t got, size_t min, size_t max) {
  if (got < min || got > max) {
    std::string want = min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max);
    throw type_error(
        call.op + "() takes " + want + " argument" + (max == 1 ? "" : "s") + ", got " + std::to_string(got), call.pos);
  }
}

double mean_of(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / v.size(); }

// Python's statistics.variance: the sample variance (n - 1).
double variance_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return ss / static_cast<double>(v.size() - 1);
}

Value call(const Node& n) {
  std::vector<Value> args;
  for (const auto& k : n.kids) args.push_back(eval(*k));
  const std::string& f = n.op;
  const size_t pos = n.pos;
  auto num = [&](size_t i) { return as_number(args[i], pos); };
  auto domain = [&](bool ok) {
    if (!ok) throw math_error("ValueError", f + "(): math domain error", pos);
  };

  static const std::map<std::string, double (*)(double)> kOne = {
      {"floor", [](double x) { return std::floor(x); }}, {"ceil", [](double x) { return std::ceil(x); }},
      {"sin", [](double x) { return std::sin(x); }},     {"cos", [](double x) { return std::cos(x); }},
      {"tan", [](double x) { return std::tan(x); }},     {"atan", [](double x) { return std::atan(x); }},
      {"exp", [](double x) { return std::exp(x); }},     {"abs", [](double x) { return std::fabs(x); }}};
  if (auto it = kOne.find(f); it != kOne.end()) {
    arity(n, args.size(), 1, 1);
    return Value::number(finite(it->second(num(0)), pos));
  }
  if (f == "asin" || f == "acos") {
    arity(n, args.size(), 1, 1);
    domain(num(0) >= -1 && num(0) <= 1);
    return Value::number(f == "asin" ? std::asin(num(0)) : std::acos(num(0)));
  }
  if (f == "sqrt") {
    arity(n, args.size(), 1, 1);
    domain(num(0) >= 0);
    return Value::number(std::sqrt(num(0)));
  }
  if (f == "log10" || f == "log2") {
    arity(n, args.size(), 1, 1);
    domain(num(0) > 0);
    return Value::number(f == "log10" ? std::log10(num(0)) : std::log2(num(0)));
  }
  if (f == "log") {
    arity(n, args.size(), 1, 2);
    domain(num(0) > 0);
    if (args.size() == 1) return Value::number(std::log(num(0)));
    domain(num(1) > 0 && num(1) != 1);
    return Value::number(finite(std::log(num(0)) / std::log(num(1)), pos));
  }
  if (f == "atan2") {
    arity(n, args.size(), 2, 2);
    return Value::number(std::atan2(num(0), num(1)));
  }
  if (f == "pow") {
    arity(n, args.size(), 2, 2);
    if (num(0) == 0 && num(1) < 0) throw math_error("ZeroDivisionError", "0 cannot be raised to a negative power", pos);
    domain(!(num(0) < 0 && std::floor(num(1)) != num(1)));
    return Value::number(finite(std::pow(num(0), num(1)), pos));
  }
  if (f == "round") {
    arity(n, args.size(), 1, 2);
    double digits = args.size() == 2 ? num(1) : 0;
    if (std::floor(digits) != digits) throw type_error("round() digits must be an integer", pos);
    // nearbyint rounds half to even in the default mode, as Python does.
    const double scale = std::pow(10.0, digits);
    if (!std::isfinite(scale) || scale == 0) return Value::number(num(0));
    return Value::number(finite(std::nearbyint(num(0) * scale) / scale, pos));
  }
  // Functions over a list (or several numbers).
  if (args.empty()) throw type_error(f + "() needs at least one argument", pos);
  std::vector<double> v = numbers_of(n, args);
  if (f == "sum") return Value::number(finite(std::accumulate(v.begin(), v.end(), 0.0), pos));
  if (v.empty()) throw math_error("ValueError", f + "() of an empty list", pos);
  if (f == "min") return Value::number(*std::min_element(v.begin(), v.end()));
  if (f == "max") return Value::number(*std::max_element(v.begin(), v.end()));
  if (f == "mean") return Value::number(finite(mean_of(v), pos));
  if (f == "median") {
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return Value::number(v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2);
  }
  if (v.size() < 2) throw math_error("StatisticsError", f + "() requires at least two data points", pos);
  if (f == "variance") return Value::number(finite(variance_of(v), pos));
  return Value::number(finite(std::sqrt(variance_of(v)), pos));  // stdev
}

double binary_op(const std::string& op, double a, double b, size_t pos) {
  if (op == "+") return finite(a + b, pos);
  if (op == "-") return finite(a - b, pos);
  if (op == "*") return finite(a * b, pos);
  if (op == "**") {
    if (a == 0 && b < 0) throw math_error("ZeroDivisionError", "0 cannot be raised to a negative power", pos);
    if (a < 0 && std::floor(b) != b)
      throw math_error("ValueError", "a negative number to a fractional power has no real value", pos);
    return finite(std::pow(a, b), pos);
  }
  if (b == 0) throw math_error("ZeroDivisionError", "division by zero", pos);
  if (op == "/") return finite(a / b, pos);
  if (op == "//") return finite(std::floor(a / b), pos);
  // Python's %: the result has the sign of the divisor.
  return finite(a - b * std::floor(a / b), pos);
}

bool compare(const std::string& op, const Value& a, const Value& b, size_t pos) {
  const bool lists = a.kind == Value::Kind::list || b.kind == Value::Kind::list;
  if (lists) {
    const bool same = a.kind == b.kind && a.items == b.items;
    if (op == "==") return same;
    if (op == "!=") return !same;
    throw type_error("lists can only be compared with == and !=", pos);
  }
  const double x = a.num, y = b.num;
  if (op == "==") return x == y;
  if (op == "!=") return x != y;
  if (op == "<") return x < y;
  if (op == "<=") return x <= y;
  if (op == ">") return x > y;
  return x >= y;
}

Value eval(const Node& n) {
  switch (n.kind) {
    case Node::Kind::number:
      return Value::number(n.num);
    case Node::Kind::boolean:
      return Value::boolean(n.num != 0);
    case Node::Kind::list: {
      std::vector<double> items;
      for (const auto& k : n.kids) {
        Value v = eval(*k);
        if (v.kind == Value::Kind::list) throw type_error("nested lists are not supported", k->pos);
        items.push_back(v.num);
      }
      return Value::list(std::move(items));
    }
    case Node::Kind::neg:
      return Value::number(-as_number(eval(*n.kids[0]), n.pos));
    case Node::Kind::pos:
      return Value::number(as_number(eval(*n.kids[0]), n.pos));
    case Node::Kind::not_:
      return Value::boolean(!eval(*n.kids[0]).truthy());
    case Node::Kind::binary: {
      Value a = eval(*n.kids[0]);
      Value b = eval(*n.kids[1]);
      return Value::number(binary_op(n.op, as_number(a, n.pos), as_number(b, n.pos), n.pos));
    }
    case Node::Kind::compare: {
      // a < b < c means a < b and b < c, each operand evaluated once.
      Value left = eval(*n.kids[0]);
      for (size_t i = 0; i < n.ops.size(); ++i) {
        Value right = eval(*n.kids[i + 1]);
        if (!compare(n.ops[i], left, right, n.pos)) return Value::boolean(false);
        left = std::move(right);
      }
      return Value::boolean(true);
    }
    case Node::Kind::and_: {
      Value a = eval(*n.kids[0]);
      return a.truthy() ? eval(*n.kids[1]) : a;
    }
    case Node::Kind::or_: {
      Value a = eval(*n.kids[0]);
      return a.truthy() ? a : eval(*n.kids[1]);
    }
    case Node::Kind::call:
      return call(n);
  }
  return Value::number(0);
}

// ------------------------------------------------------------------ output

bool integral(double v) { return std::floor(v) == v && std::fabs(v) < 1e15; }

json number_json(double v) {
  if (integral(v)) return static_cast<int64_t>(v);
  return v;
}

std::string format_number(double v) {
  char buf[64];
  if (integral(v)) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    return buf;
  }
  const double a = std::fabs(v);
  if (a >= 0.01 && a < 1e15) {
    std::snprintf(buf, sizeof buf, "%.2f", v);
    std::string s = buf;
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
  }
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

Result<json> calculate(const std::string& expression, const CalcLimits& limits) {
  if (expression.size() > limits.max_length)
    return Error{"syntax", "SyntaxError: the expression is " + std::to_string(expression.size()) +
                               " characters long; the limit is " + std::to_string(limits.max_length)};
  if (expression.find_first_not_of(" \t\r\n") == std::string::npos)
    return Error{"syntax", "SyntaxError: the expression is empty"};
  try {
    Parser parser(expression, limits);
    NodePtr tree = parser.parse();
    Value v = eval(*tree);
    if (v.kind == Value::Kind::boolean)
      return json{{"result", v.truthy()}, {"formatted", v.truthy() ? "True" : "False"}};
    if (v.kind == Value::Kind::number) return json{{"result", number_json(v.num)}, {"formatted", format_number(v.num)}};
    json items = json::array();
    std::string text = "[";
    for (size_t i = 0; i < v.items.size(); ++i) {
      items.push_back(number_json(v.items[i]));
      text += (i ? ", " : "") + format_number(v.items[i]);
    }
    return json{{"result", items}, {"formatted", text + "]"}};
  } catch (const CalcError& e) {
    return Error{e.code, e.message};
  }
}

}  // namespace kaisha::tools
