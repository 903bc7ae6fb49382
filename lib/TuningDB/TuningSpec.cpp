//===- TuningSpec.cpp - Winners as a transform library file --------------===//
//
// Text in, text out: a small scanner that knows MLIR's strings, comments and
// brackets finds each `transform.named_sequence`, its symbol, its attribute
// dictionary and its body. Writing renames the symbol, puts the vibegemm
// attributes first in the dictionary and indents the sequence by two
// spaces; reading undoes exactly that, so write(read(write(x))) == write(x).
//
//===----------------------------------------------------------------------===//

#include "vibegemm/TuningDB/TuningSpec.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir::vibegemm;
using llvm::StringRef;

namespace {
constexpr StringRef kSequenceKeyword = "transform.named_sequence";
constexpr StringRef kAttrPrefix = "vibegemm.";
constexpr size_t npos = StringRef::npos;

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

size_t lineOf(StringRef text, size_t pos) {
  return text.take_front(pos).count('\n') + 1;
}

/// `text[i]` is '"': the index just past the closing quote, or npos.
size_t skipString(StringRef text, size_t i) {
  for (++i; i < text.size(); ++i) {
    if (text[i] == '\\')
      ++i;
    else if (text[i] == '"')
      return i + 1;
  }
  return npos;
}

/// When `text[i]` opens a string or a `//` comment: the index just past it
/// (npos when it never ends); otherwise `i` unchanged.
size_t skipStringOrComment(StringRef text, size_t i) {
  if (text[i] == '"')
    return skipString(text, i);
  if (text[i] == '/' && text.substr(i).starts_with("//")) {
    size_t end = text.find('\n', i);
    return end == npos ? npos : end + 1;
  }
  return i;
}

/// `text[i]` is '(', '[' or '{': the index of its partner, or npos when the
/// brackets do not balance. Strings and `//` comments are skipped.
size_t findClose(StringRef text, size_t open) {
  std::string stack;
  for (size_t i = open; i < text.size(); ++i) {
    if (size_t past = skipStringOrComment(text, i); past != i) {
      if (past == npos)
        return npos;
      i = past - 1;
      continue;
    }
    char c = text[i];
    if (c == '(' || c == '[' || c == '{') {
      stack.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
    } else if (c == ')' || c == ']' || c == '}') {
      if (stack.empty() || stack.back() != c)
        return npos;
      stack.pop_back();
      if (stack.empty())
        return i;
    }
  }
  return npos;
}

bool isIdentChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '-';
}

/// The next `transform.named_sequence` keyword at or after `from`, outside
/// strings and comments; npos when there is none.
size_t findSequence(StringRef text, size_t from) {
  for (size_t i = from; i < text.size(); ++i) {
    if (size_t past = skipStringOrComment(text, i); past != i) {
      if (past == npos)
        return npos;
      i = past - 1;
      continue;
    }
    if (text.substr(i).starts_with(kSequenceKeyword) &&
        (i == 0 || !isIdentChar(text[i - 1])) &&
        i + kSequenceKeyword.size() < text.size() &&
        llvm::isSpace(text[i + kSequenceKeyword.size()]))
      return i;
  }
  return npos;
}

/// Whether `text` holds only whitespace and `//` comments.
bool isBlank(StringRef text) {
  while (true) {
    text = text.ltrim();
    if (text.empty())
      return true;
    if (!text.starts_with("//"))
      return false;
    size_t eol = text.find('\n');
    if (eol == npos)
      return true;
    text = text.drop_front(eol);
  }
}

/// Where the parts of one `transform.named_sequence` lie in a text.
struct Sequence {
  size_t start = 0;                        // the keyword
  size_t symbolBegin = 0, symbolEnd = 0;   // the name after '@'
  size_t signatureEnd = 0;                 // past the arguments and results
  size_t attrBegin = npos, attrEnd = npos; // the dictionary's '{' and '}'
  size_t bodyBegin = 0, bodyEnd = 0;       // the body's '{' and one past '}'
};

llvm::Expected<Sequence> parseSequence(StringRef text, size_t start,
                                       StringRef name) {
  auto fail = [&](size_t pos, const llvm::Twine &what) {
    return makeError(name + ":" + llvm::Twine(lineOf(text, pos)) + ": " + what);
  };
  Sequence seq;
  seq.start = start;
  size_t pos = start + kSequenceKeyword.size();
  auto skipSpace = [&] {
    while (pos < text.size() && llvm::isSpace(text[pos]))
      ++pos;
  };
  skipSpace();
  if (pos >= text.size() || text[pos] != '@')
    return fail(pos, "expected '@' and a symbol after " + kSequenceKeyword);
  seq.symbolBegin = ++pos;
  if (pos < text.size() && text[pos] == '"') {
    pos = skipString(text, pos);
    if (pos == npos)
      return fail(seq.symbolBegin, "unterminated symbol name");
  } else {
    while (pos < text.size() && isIdentChar(text[pos]))
      ++pos;
  }
  seq.symbolEnd = pos;
  if (seq.symbolEnd == seq.symbolBegin)
    return fail(pos, "expected a symbol name after '@'");
  skipSpace();
  if (pos >= text.size() || text[pos] != '(')
    return fail(pos, "expected '(' after @" +
                         text.slice(seq.symbolBegin, seq.symbolEnd));
  size_t close = findClose(text, pos);
  if (close == npos)
    return fail(pos, "unbalanced argument list");
  pos = close + 1;
  seq.signatureEnd = pos;
  // Results (`-> type` or `-> (types)`), then `attributes {...}`, then the
  // body.
  while (true) {
    skipSpace();
    if (pos >= text.size())
      return fail(start, "sequence without a body");
    StringRef rest = text.substr(pos);
    if (rest.starts_with("attributes") &&
        (rest.size() == 10 || !isIdentChar(rest[10]))) {
      pos += 10;
      skipSpace();
      if (pos >= text.size() || text[pos] != '{')
        return fail(pos, "expected '{' after 'attributes'");
      seq.attrBegin = pos;
      seq.attrEnd = findClose(text, pos);
      if (seq.attrEnd == npos)
        return fail(pos, "unbalanced attribute dictionary");
      pos = seq.attrEnd + 1;
      skipSpace();
      break;
    }
    if (text[pos] == '{')
      break;
    if (text[pos] == '(' || text[pos] == '"') {
      size_t end =
          text[pos] == '(' ? findClose(text, pos) : skipString(text, pos) - 1;
      if (end == npos || end == npos - 1)
        return fail(pos, "unbalanced result list");
      pos = end + 1;
    } else {
      ++pos;
    }
    seq.signatureEnd = pos;
  }
  if (pos >= text.size() || text[pos] != '{')
    return fail(pos, "expected the sequence body");
  seq.bodyBegin = pos;
  size_t bodyClose = findClose(text, pos);
  if (bodyClose == npos)
    return fail(pos, "unbalanced braces in the body of @" +
                         text.slice(seq.symbolBegin, seq.symbolEnd));
  seq.bodyEnd = bodyClose + 1;
  return seq;
}

/// The entries of an attribute dictionary's inside, split at its top-level
/// commas and trimmed.
std::vector<StringRef> splitEntries(StringRef dict) {
  std::vector<StringRef> entries;
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i < dict.size(); ++i) {
    char c = dict[i];
    if (c == '"') {
      i = skipString(dict, i);
      if (i == npos)
        break;
      --i;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      ++depth;
    } else if (c == '>' && i > 0 && dict[i - 1] == '-') {
      // The arrow of a function type or an affine map.
    } else if (c == ')' || c == ']' || c == '}' || c == '>') {
      --depth;
    } else if (c == ',' && depth == 0) {
      entries.push_back(dict.slice(begin, i).trim());
      begin = i + 1;
    }
  }
  entries.push_back(dict.substr(begin).trim());
  llvm::erase_if(entries, [](StringRef e) { return e.empty(); });
  return entries;
}

/// The name of a dictionary entry (`name = value` or a unit `name`).
StringRef entryKey(StringRef entry) {
  if (entry.starts_with("\"")) {
    size_t end = skipString(entry, 0);
    return end == npos ? entry : entry.take_front(end);
  }
  return entry.take_until([](char c) { return c == '=' || llvm::isSpace(c); });
}

std::string escapeString(StringRef s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (llvm::isPrint(c)) {
      out += static_cast<char>(c);
    } else {
      out += '\\';
      out += llvm::hexdigit(c >> 4);
      out += llvm::hexdigit(c & 15);
    }
  }
  return out;
}

/// A string literal `"..."` with MLIR's escapes (\" \\ \n \t \XX) decoded.
std::optional<std::string> unescapeString(StringRef literal) {
  if (literal.size() < 2 || !literal.starts_with("\"") ||
      skipString(literal, 0) != literal.size())
    return std::nullopt;
  StringRef body = literal.drop_front().drop_back();
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\') {
      out += body[i];
      continue;
    }
    if (++i >= body.size())
      return std::nullopt;
    char c = body[i];
    if (c == '"' || c == '\\')
      out += c;
    else if (c == 'n')
      out += '\n';
    else if (c == 't')
      out += '\t';
    else if (i + 1 < body.size() && llvm::isHexDigit(c) &&
             llvm::isHexDigit(body[i + 1])) {
      out += static_cast<char>(llvm::hexFromNibbles(c, body[i + 1]));
      ++i;
    } else
      return std::nullopt;
  }
  return out;
}

/// The shortest decimal that reads back as `v`, with the '.' MLIR's float
/// literals need.
std::string formatDouble(double v) {
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  std::string s = buf;
  if (s.find('.') == std::string::npos) {
    size_t e = s.find_first_of("eE");
    s.insert(e == std::string::npos ? s.size() : e, ".0");
  }
  return s;
}

std::string sanitize(StringRef s) {
  std::string out;
  for (char c : s)
    out += llvm::isAlnum(c) || c == '_' ? c : '_';
  return out;
}

/// `text` with every line but the first replaced by `edit(line)`: the
/// first line continues one that the caller has already indented.
std::string
editLinesAfterFirst(StringRef text,
                    llvm::function_ref<std::string(StringRef)> edit) {
  llvm::SmallVector<StringRef> lines;
  text.split(lines, '\n');
  std::string out = lines.front().str();
  for (StringRef line : llvm::drop_begin(lines))
    out += "\n" + edit(line);
  return out;
}

/// Adds `indent` before every non-empty line but the first.
std::string indentLines(StringRef text, StringRef indent) {
  return editLinesAfterFirst(text, [&](StringRef line) {
    return line.empty() ? std::string() : (indent + line).str();
  });
}

/// Removes `indent` from the start of every line but the first that has it.
std::string dedentLines(StringRef text, StringRef indent) {
  return editLinesAfterFirst(text, [&](StringRef line) {
    line.consume_front(indent);
    return line.str();
  });
}

std::string attrsOf(const WinnerInfo &w) {
  std::string s = "vibegemm.signature = \"" + escapeString(w.signature) +
                  "\", vibegemm.target = \"" + escapeString(w.target) +
                  "\", vibegemm.toolchain = \"" + escapeString(w.toolchain) +
                  "\", ";
  if (w.timeMs && std::isfinite(*w.timeMs))
    s += "vibegemm.time_ms = " + formatDouble(*w.timeMs) + ", ";
  s += std::string("vibegemm.measured = ") + (w.measured ? "true" : "false") +
       ", ";
  if (w.measured && !w.timing.empty())
    s += "vibegemm.timing = \"" + escapeString(w.timing) + "\", ";
  s += "vibegemm.device = \"" + escapeString(w.device) +
       "\", vibegemm.model = \"" + escapeString(w.model) + "\"";
  return s;
}

std::string commentOf(const WinnerInfo &w) {
  char time[64] = "no time";
  if (w.timeMs)
    std::snprintf(time, sizeof(time), "%.4g ms", *w.timeMs);
  std::string s = "// " + w.signature + ": " + time + " (" +
                  (w.measured ? "measured" : "estimated") + ") on " +
                  (w.device.empty() ? "no GPU" : w.device) + ", model " +
                  (w.model.empty() ? "none (built-in scheduler)" : w.model);
  for (char &c : s)
    if (c == '\n' || c == '\r')
      c = ' ';
  return s;
}
} // namespace

std::string mlir::vibegemm::specSymbol(StringRef signature) {
  return "vg_" + sanitize(signature);
}

llvm::Expected<std::string>
mlir::vibegemm::writeSpec(llvm::ArrayRef<WinnerInfo> winners) {
  std::vector<const WinnerInfo *> sorted;
  for (const WinnerInfo &w : winners)
    sorted.push_back(&w);
  llvm::stable_sort(sorted, [](const WinnerInfo *a, const WinnerInfo *b) {
    return std::tie(a->signature, a->target, a->toolchain) <
           std::tie(b->signature, b->target, b->toolchain);
  });
  // One symbol per signature; a signature stored for several targets or
  // toolchains gets them in its symbols, and any clash left a counter.
  llvm::StringMap<unsigned> perSignature, taken;
  for (const WinnerInfo *w : sorted)
    ++perSignature[specSymbol(w->signature)];

  std::string out =
      "// vibegemm tuning spec: best schedule per dispatch signature.\n"
      "// Exported by vibegemm-db; apply with\n"
      "//   vibegemm-opt --vibegemm-compile=\"specs=THIS_FILE\" model.mlir\n"
      "module attributes {transform.with_named_sequence, "
      "vibegemm.tuning_spec} {\n";
  for (auto [i, w] : llvm::enumerate(sorted)) {
    std::string symbol = specSymbol(w->signature);
    if (perSignature[symbol] > 1)
      symbol += "_" + sanitize(w->target) + "_" + sanitize(w->toolchain);
    if (unsigned n = taken[symbol]++)
      symbol += "_" + std::to_string(n + 1);

    StringRef script = w->script;
    std::string what = "the stored schedule of " + w->signature;
    size_t start = findSequence(script, 0);
    if (start == npos)
      return makeError(what + " holds no " + kSequenceKeyword);
    llvm::Expected<Sequence> seq = parseSequence(script, start, what);
    if (!seq)
      return seq.takeError();
    if (!isBlank(script.take_front(start)) ||
        !isBlank(script.substr(seq->bodyEnd)))
      return makeError(what + " holds more than one " + kSequenceKeyword);
    std::vector<std::string> entries = {attrsOf(*w)};
    if (seq->attrBegin != npos)
      for (StringRef e :
           splitEntries(script.slice(seq->attrBegin + 1, seq->attrEnd)))
        if (!entryKey(e).starts_with(kAttrPrefix))
          entries.push_back(e.str());
    std::string text = (kSequenceKeyword + " @" + symbol +
                        script.slice(seq->symbolEnd, seq->signatureEnd) +
                        " attributes {" + llvm::join(entries, ", ") + "} " +
                        script.slice(seq->bodyBegin, seq->bodyEnd))
                           .str();
    if (i > 0)
      out += "\n";
    out += "  " + commentOf(*w) + "\n";
    out += "  " + indentLines(text, "  ") + "\n";
  }
  out += "}\n";
  return out;
}

llvm::Expected<std::vector<WinnerInfo>>
mlir::vibegemm::readSpec(StringRef text, StringRef name) {
  std::vector<WinnerInfo> winners;
  for (size_t start = findSequence(text, 0); start != npos;) {
    llvm::Expected<Sequence> seq = parseSequence(text, start, name);
    if (!seq)
      return seq.takeError();
    size_t next = findSequence(text, seq->bodyEnd);
    if (seq->attrBegin == npos) {
      start = next;
      continue;
    }
    auto fail = [&](const llvm::Twine &what) {
      return makeError(name + ":" + llvm::Twine(lineOf(text, start)) + ": @" +
                       text.slice(seq->symbolBegin, seq->symbolEnd) + ": " +
                       what);
    };
    WinnerInfo w;
    bool hasSignature = false, hasTarget = false, hasToolchain = false;
    std::vector<StringRef> others;
    for (StringRef e :
         splitEntries(text.slice(seq->attrBegin + 1, seq->attrEnd))) {
      StringRef key = entryKey(e);
      if (!key.starts_with(kAttrPrefix)) {
        others.push_back(e);
        continue;
      }
      StringRef value = e.drop_front(key.size()).ltrim();
      if (!value.consume_front("="))
        return fail(key + " has no value");
      value = value.trim();
      if (key == "vibegemm.signature" || key == "vibegemm.target" ||
          key == "vibegemm.toolchain" || key == "vibegemm.device" ||
          key == "vibegemm.model" || key == "vibegemm.timing") {
        std::optional<std::string> s = unescapeString(value);
        if (!s)
          return fail(key + " must be a string");
        if (key == "vibegemm.signature") {
          w.signature = std::move(*s);
          hasSignature = true;
        } else if (key == "vibegemm.target") {
          w.target = std::move(*s);
          hasTarget = true;
        } else if (key == "vibegemm.toolchain") {
          w.toolchain = std::move(*s);
          hasToolchain = true;
        } else if (key == "vibegemm.device") {
          w.device = std::move(*s);
        } else if (key == "vibegemm.timing") {
          w.timing = std::move(*s);
        } else {
          w.model = std::move(*s);
        }
      } else if (key == "vibegemm.measured") {
        if (value != "true" && value != "false")
          return fail("vibegemm.measured must be true or false");
        w.measured = value == "true";
      } else if (key == "vibegemm.time_ms") {
        std::string number = value.split(':').first.trim().str();
        char *end = nullptr;
        double v = std::strtod(number.c_str(), &end);
        if (number.empty() || *end || !std::isfinite(v))
          return fail("vibegemm.time_ms must be a number");
        w.timeMs = v;
      }
    }
    if (!hasSignature) {
      start = next;
      continue;
    }
    if (!hasTarget || !hasToolchain)
      return fail("a tuned schedule needs vibegemm.target and "
                  "vibegemm.toolchain");
    // The script to store: the sequence as written, less the vibegemm
    // attributes and the indentation it has in the spec.
    size_t lineStart = text.rfind('\n', start);
    lineStart = lineStart == npos ? 0 : lineStart + 1;
    StringRef indent = text.slice(lineStart, start);
    if (!indent.trim().empty())
      indent = "";
    std::string script = text.slice(start, seq->signatureEnd).str();
    if (!others.empty())
      script += " attributes {" + llvm::join(others, ", ") + "}";
    script += " " + text.slice(seq->bodyBegin, seq->bodyEnd).str();
    w.script = dedentLines(script, indent);
    winners.push_back(std::move(w));
    start = next;
  }
  if (winners.empty())
    return makeError(name + ": no transform.named_sequence with a "
                            "vibegemm.signature attribute");
  return winners;
}
