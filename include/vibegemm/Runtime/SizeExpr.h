//===- SizeExpr.h - Integer expressions over a plan's run-time sizes -*- C++
//-*-===//
//
// A launch plan of version 2 may give a buffer dimension, a grid extent, a
// scalar argument or a GEMM size as an expression of named run-time sizes
// ("M", "ceildiv(M, 128)"), bound when the plan is loaded (--dim M=37).
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_RUNTIME_SIZEEXPR_H
#define VIBEGEMM_RUNTIME_SIZEEXPR_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>

namespace mlir::vibegemm::runtime {

/// Named run-time sizes and their values.
using SizeBindings = std::map<std::string, int64_t, std::less<>>;

/// Evaluates `text`: decimal integers, size names, `+ - * / %` (`/` and
/// `%` floor, for non-negative operands), `ceildiv(a, b)`, `min(a, b)`,
/// `max(a, b)` and parentheses. Fails on an unknown name, a division by
/// zero or a negative operand of `/`, `%` or `ceildiv`, a result that
/// overflows 64 bits, or a syntax error, saying which and where.
llvm::Expected<int64_t> evaluateSizeExpr(llvm::StringRef text,
                                         const SizeBindings &sizes);

/// Parses "M=37" into `sizes`; fails on anything but NAME=INTEGER with a
/// name of letters, digits and '_' that starts with a letter.
llvm::Error parseSizeBinding(llvm::StringRef text, SizeBindings &sizes);

} // namespace mlir::vibegemm::runtime

#endif // VIBEGEMM_RUNTIME_SIZEEXPR_H
