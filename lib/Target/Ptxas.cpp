//===- Ptxas.cpp - Check PTX with ptxas and read its resources ------------===//
//
// Runs ptxas in a child process with a timeout, writing into temporary files
// that are removed afterwards, and parses its `-v` report.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Target/Ptxas.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::vibegemm;

std::optional<std::string> mlir::vibegemm::findPtxas(llvm::StringRef hint) {
  if (!hint.empty())
    return llvm::sys::fs::can_execute(hint) ? std::optional(hint.str())
                                            : std::nullopt;
  llvm::SmallVector<std::string> dirs;
  if (std::optional<std::string> home = llvm::sys::Process::GetEnv("CUDA_HOME"))
    dirs.push_back(*home + "/bin");
  dirs.push_back("/usr/local/cuda/bin");
  for (const std::string &dir : dirs) {
    llvm::SmallString<128> path(dir);
    llvm::sys::path::append(path, "ptxas");
    if (llvm::sys::fs::can_execute(path))
      return path.str().str();
  }
  if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  return std::nullopt;
}

std::vector<KernelResources>
mlir::vibegemm::parsePtxasLog(llvm::StringRef log) {
  std::vector<KernelResources> kernels;
  llvm::Regex entry("Compiling entry function '([^']+)'");
  llvm::Regex frame("([0-9]+) bytes stack frame, ([0-9]+) bytes spill "
                    "stores, ([0-9]+) bytes spill loads");
  llvm::Regex used("Used ([0-9]+) registers");
  llvm::Regex smem("([0-9]+) bytes smem");
  llvm::SmallVector<llvm::StringRef> lines;
  log.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    llvm::SmallVector<llvm::StringRef> m;
    if (entry.match(line, &m)) {
      kernels.push_back({});
      kernels.back().kernel = m[1].str();
      continue;
    }
    if (kernels.empty())
      continue;
    KernelResources &k = kernels.back();
    if (frame.match(line, &m)) {
      m[1].getAsInteger(10, k.stackBytes);
      m[2].getAsInteger(10, k.spillStoreBytes);
      m[3].getAsInteger(10, k.spillLoadBytes);
    }
    if (used.match(line, &m))
      m[1].getAsInteger(10, k.registers);
    if (smem.match(line, &m))
      m[1].getAsInteger(10, k.sharedBytes);
  }
  return kernels;
}

PtxasResult mlir::vibegemm::runPtxas(llvm::StringRef ptxasPath,
                                     llvm::StringRef ptx,
                                     llvm::StringRef arch) {
  PtxasResult result;
  llvm::SmallString<128> input, output, log;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("vibegemm", "ptx", fd, input)) {
    result.log = "cannot create a temporary file for ptxas";
    return result;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  llvm::sys::fs::createTemporaryFile("vibegemm", "cubin", output);
  llvm::sys::fs::createTemporaryFile("vibegemm", "log", log);
  llvm::FileRemover removeInput(input), removeOutput(output), removeLog(log);

  std::string archFlag = ("-arch=" + arch).str();
  llvm::SmallVector<llvm::StringRef> args = {ptxasPath, archFlag, "-v",
                                             input,     "-o",     output};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, log.str(),
                                                log.str()};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(ptxasPath, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/120,
                                     /*MemoryLimit=*/0, &error);
  if (auto buffer = llvm::MemoryBuffer::getFile(log))
    result.log = (*buffer)->getBuffer().str();
  if (!error.empty())
    result.log += error;
  result.accepted = rc == 0;
  result.kernels = parsePtxasLog(result.log);
  return result;
}

llvm::json::Object
mlir::vibegemm::resourcesToJson(const std::vector<KernelResources> &kernels) {
  int registers = 0;
  int64_t spills = 0, stack = 0, shared = 0;
  llvm::json::Array perKernel;
  for (const KernelResources &k : kernels) {
    registers = std::max(registers, k.registers);
    spills += k.spillStoreBytes + k.spillLoadBytes;
    stack = std::max(stack, k.stackBytes);
    shared = std::max(shared, k.sharedBytes);
    perKernel.push_back(
        llvm::json::Object{{"kernel", k.kernel},
                           {"registers", k.registers},
                           {"spill_store_bytes", k.spillStoreBytes},
                           {"spill_load_bytes", k.spillLoadBytes},
                           {"stack_bytes", k.stackBytes},
                           {"shared_bytes", k.sharedBytes}});
  }
  return llvm::json::Object{{"registers", registers},
                            {"spill_bytes", spills},
                            {"stack_bytes", stack},
                            {"shared_bytes", shared},
                            {"kernels", std::move(perKernel)}};
}
