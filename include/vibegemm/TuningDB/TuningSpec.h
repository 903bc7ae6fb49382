//===- TuningSpec.h - Winners as a transform library file -------*- C++ -*-===//
//
// A tuning spec is a text MLIR module of `transform.named_sequence`s, one per
// (dispatch signature, target, toolchain), each tagged with
// `vibegemm.signature` and friends; `vibegemm-compile="specs=FILE"` applies
// it without a database. Written and read as text, without MLIR: the same
// winners always give the same bytes, and reading a spec back then writing
// it again reproduces it exactly. docs/tuning-db.md shows the format.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_TUNINGDB_TUNINGSPEC_H
#define VIBEGEMM_TUNINGDB_TUNINGSPEC_H

#include "vibegemm/TuningDB/TuningDB.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::vibegemm {

/// "vg_" + `signature`, every character outside [A-Za-z0-9_] replaced by
/// '_': the symbol of the signature's sequence in a spec.
std::string specSymbol(llvm::StringRef signature);

/// Writes `winners` (sorted here by signature, target, toolchain) as a
/// tuning spec. Each stored script must hold one `transform.named_sequence`;
/// its symbol is renamed and the vibegemm attributes are added to it.
llvm::Expected<std::string> writeSpec(llvm::ArrayRef<WinnerInfo> winners);

/// Reads the sequences tagged with `vibegemm.signature` out of a spec, with
/// their signature, target, toolchain, time, measured, device, model and the
/// script to store (the sequence without the vibegemm attributes and the
/// spec's indentation). `name` names the file in errors.
llvm::Expected<std::vector<WinnerInfo>> readSpec(llvm::StringRef text,
                                                 llvm::StringRef name);

} // namespace mlir::vibegemm

#endif // VIBEGEMM_TUNINGDB_TUNINGSPEC_H
