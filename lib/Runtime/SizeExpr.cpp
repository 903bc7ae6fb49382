//===- SizeExpr.cpp - Integer expressions over a plan's run-time sizes ----===//
//
// A recursive-descent evaluator: plans are untrusted, so every operation is
// checked (overflow, division by zero, negative operands) rather than left
// to C++'s undefined behaviour.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Runtime/SizeExpr.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir::vibegemm::runtime;

namespace {

class SizeExprParser {
public:
  SizeExprParser(llvm::StringRef text, const SizeBindings &sizes)
      : text(text), sizes(sizes) {}

  llvm::Expected<int64_t> evaluate() {
    std::optional<int64_t> value = sum();
    skipSpace();
    if (value && pos != text.size())
      fail("unexpected '" + text.substr(pos, 1).str() + "'");
    if (!error.empty())
      return llvm::createStringError(
          llvm::formatv("in '{0}' at column {1}: {2}", text, errorPos + 1,
                        error)
              .str());
    return *value;
  }

private:
  std::optional<int64_t> fail(std::string why) {
    if (error.empty()) {
      error = std::move(why);
      errorPos = pos;
    }
    return std::nullopt;
  }

  void skipSpace() {
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
  }

  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

  /// `op` is one of the __builtin_*_overflow functions.
  template <typename Op>
  std::optional<int64_t> checked(Op op, int64_t lhs, int64_t rhs) {
    int64_t out;
    if (op(lhs, rhs, &out))
      return fail("the value overflows 64 bits");
    return out;
  }
  static bool add(int64_t a, int64_t b, int64_t *out) {
    return __builtin_add_overflow(a, b, out);
  }
  static bool sub(int64_t a, int64_t b, int64_t *out) {
    return __builtin_sub_overflow(a, b, out);
  }
  static bool mul(int64_t a, int64_t b, int64_t *out) {
    return __builtin_mul_overflow(a, b, out);
  }

  std::optional<int64_t> sum() {
    std::optional<int64_t> lhs = product();
    while (lhs) {
      if (consume('+')) {
        std::optional<int64_t> rhs = product();
        if (!rhs)
          return std::nullopt;
        lhs = checked(add, *lhs, *rhs);
      } else if (consume('-')) {
        std::optional<int64_t> rhs = product();
        if (!rhs)
          return std::nullopt;
        lhs = checked(sub, *lhs, *rhs);
      } else {
        break;
      }
    }
    return lhs;
  }

  std::optional<int64_t> divide(char op, int64_t lhs, int64_t rhs) {
    if (rhs == 0)
      return fail("division by zero");
    if (lhs < 0 || rhs < 0)
      return fail("'" + std::string(1, op) + "' needs non-negative operands");
    return op == '/' ? lhs / rhs : lhs % rhs;
  }

  std::optional<int64_t> product() {
    std::optional<int64_t> lhs = atom();
    while (lhs) {
      char op = 0;
      for (char c : {'*', '/', '%'})
        if (consume(c)) {
          op = c;
          break;
        }
      if (!op)
        break;
      std::optional<int64_t> rhs = atom();
      if (!rhs)
        return std::nullopt;
      lhs = op == '*' ? checked(mul, *lhs, *rhs) : divide(op, *lhs, *rhs);
    }
    return lhs;
  }

  /// `name(a, b)` for the three functions.
  std::optional<int64_t> call(llvm::StringRef name) {
    std::optional<int64_t> a = sum();
    if (!a)
      return std::nullopt;
    if (!consume(','))
      return fail("'" + name.str() + "' takes two arguments");
    std::optional<int64_t> b = sum();
    if (!b)
      return std::nullopt;
    if (!consume(')'))
      return fail("expected ')'");
    if (name == "min")
      return std::min(*a, *b);
    if (name == "max")
      return std::max(*a, *b);
    std::optional<int64_t> quotient = divide('/', *a, *b);
    if (!quotient)
      return std::nullopt;
    return *quotient + (*a % *b != 0);
  }

  std::optional<int64_t> atom() {
    skipSpace();
    if (pos == text.size())
      return fail("expected a number, a size or '('");
    if (consume('('))
      return parenthesised();
    if (consume('-')) {
      std::optional<int64_t> v = atom();
      return v ? checked(sub, 0, *v) : std::nullopt;
    }
    size_t start = pos;
    if (llvm::isDigit(text[pos])) {
      while (pos < text.size() && llvm::isDigit(text[pos]))
        ++pos;
      int64_t value;
      if (text.substr(start, pos - start).getAsInteger(10, value))
        return fail("the number overflows 64 bits");
      return value;
    }
    if (!llvm::isAlpha(text[pos]))
      return fail("expected a number, a size or '('");
    while (pos < text.size() && (llvm::isAlnum(text[pos]) || text[pos] == '_'))
      ++pos;
    llvm::StringRef name = text.substr(start, pos - start);
    if (name == "ceildiv" || name == "min" || name == "max") {
      if (!consume('('))
        return fail("expected '(' after '" + name.str() + "'");
      return call(name);
    }
    auto it = sizes.find(name);
    if (it == sizes.end()) {
      pos = start;
      return fail("unknown size '" + name.str() + "'");
    }
    return it->second;
  }

  std::optional<int64_t> parenthesised() {
    std::optional<int64_t> v = sum();
    if (v && !consume(')'))
      return fail("expected ')'");
    return v;
  }

  llvm::StringRef text;
  const SizeBindings &sizes;
  size_t pos = 0, errorPos = 0;
  std::string error;
};

} // namespace

llvm::Expected<int64_t>
mlir::vibegemm::runtime::evaluateSizeExpr(llvm::StringRef text,
                                          const SizeBindings &sizes) {
  return SizeExprParser(text, sizes).evaluate();
}

llvm::Error mlir::vibegemm::runtime::parseSizeBinding(llvm::StringRef text,
                                                      SizeBindings &sizes) {
  auto [name, value] = text.split('=');
  int64_t parsed;
  bool nameOk =
      !name.empty() && llvm::isAlpha(name.front()) &&
      llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; });
  if (!nameOk || value.empty() || value.getAsInteger(10, parsed))
    return llvm::createStringError("'" + text.str() +
                                   "' is not NAME=INTEGER (as M=37)");
  sizes[name.str()] = parsed;
  return llvm::Error::success();
}
