//===- Isolation.cpp - Run a plan in a child process with a timeout -------===//
//
// The child writes its result object to a temporary file; its stdout and
// stderr go to files the parent reads when no result came back.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/Runtime/Isolation.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

#include <cmath>
#include <dlfcn.h>
#include <unistd.h> // environ

using namespace mlir::vibegemm::runtime;
namespace json = llvm::json;

std::vector<std::string>
mlir::vibegemm::runtime::runOptionsToArgs(const RunOptions &o) {
  const char *reference = o.reference == ReferenceMode::Cublas   ? "cublas"
                          : o.reference == ReferenceMode::Kernel ? "kernel"
                          : o.reference == ReferenceMode::None   ? "none"
                                                                 : "auto";
  std::vector<std::string> args = {
      "--seed=" + std::to_string(o.seed),
      std::string("--reference=") + reference,
      llvm::formatv("--timeout={0}", o.timeoutSeconds).str(),
      llvm::formatv("--sustain-ms={0}", o.sustainMs).str()};
  if (!o.time)
    args.push_back("--verify-only");
  if (o.compareCublas)
    args.push_back("--compare=cublas");
  for (const auto &[name, value] : o.sizes)
    args.push_back("--dim=" + name + "=" + std::to_string(value));
  return args;
}

namespace {

/// A temporary file removed when this goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  explicit TempFile(llvm::StringRef suffix) {
    int fd = -1;
    if (!llvm::sys::fs::createTemporaryFile("vibegemm-run", suffix, fd, path))
      llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  }
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
  std::string read(size_t limit) const {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer)
      return "";
    llvm::StringRef text = (*buffer)->getBuffer();
    return text.size() > limit ? text.take_back(limit).str() : text.str();
  }
};

json::Object failure(llvm::StringRef plan, const char *status,
                     std::string diagnostic) {
  return json::Object{{"tool", "vibegemm-run"},
                      {"version", 1},
                      {"plan", plan.str()},
                      {"status", status},
                      {"diagnostic", std::move(diagnostic)}};
}

} // namespace

json::Object mlir::vibegemm::runtime::runPlanIsolated(
    llvm::StringRef runner, llvm::StringRef planPath, const RunOptions &options,
    double killAfterSeconds, llvm::StringRef visibleDevice) {
  TempFile result(".json"), out(".out"), err(".err");
  if (result.path.empty() || out.path.empty() || err.path.empty())
    return failure(planPath, kStatusLoadError,
                   "cannot create temporary files for the child runner");
  std::vector<std::string> args = {runner.str(), "--no-isolate",
                                   "--result-file=" + result.path.str().str()};
  for (std::string &a : runOptionsToArgs(options))
    args.push_back(std::move(a));
  args.push_back(planPath.str());
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::optional<llvm::StringRef> redirects[] = {
      llvm::StringRef(""), llvm::StringRef(out.path), llvm::StringRef(err.path)};
  std::string errMsg;
  bool execFailed = false;
  unsigned seconds =
      static_cast<unsigned>(std::max(1.0, std::ceil(killAfterSeconds)));
  std::vector<std::string> env;
  std::vector<llvm::StringRef> envRefs;
  if (!visibleDevice.empty()) {
    env = environmentWithDevice(visibleDevice);
    envRefs.assign(env.begin(), env.end());
  }
  int rc = llvm::sys::ExecuteAndWait(
      runner, argRefs,
      visibleDevice.empty()
          ? std::nullopt
          : std::optional<llvm::ArrayRef<llvm::StringRef>>(envRefs),
      redirects, seconds, 0, &errMsg, &execFailed);
  if (execFailed)
    return failure(planPath, kStatusLoadError,
                   "cannot start " + runner.str() + ": " + errMsg);
  // A result the child managed to write wins over how it ended.
  auto buffer = llvm::MemoryBuffer::getFile(result.path);
  if (buffer && !(*buffer)->getBuffer().empty()) {
    llvm::Expected<json::Value> doc = json::parse((*buffer)->getBuffer());
    if (doc && doc->getAsObject()) {
      json::Object obj = std::move(*doc->getAsObject());
      obj["isolated"] = true;
      return obj;
    }
    if (!doc)
      llvm::consumeError(doc.takeError());
  }
  std::string stderrTail = err.read(2000);
  if (rc == -2 && llvm::StringRef(errMsg).contains("timed out"))
    return failure(planPath, kStatusTimeout,
                   llvm::formatv("the child runner was killed after {0} s "
                                 "without a result",
                                 seconds));
  return failure(planPath, kStatusFault,
                 llvm::formatv("the child runner died without a result "
                               "(exit {0}{1}){2}{3}",
                               rc, errMsg.empty() ? "" : ": " + errMsg,
                               stderrTail.empty() ? "" : "; stderr: ",
                               stderrTail));
}

std::optional<std::string>
mlir::vibegemm::runtime::findToolBeside(llvm::StringRef tool,
                                        const char *argv0, void *mainAddr) {
  // The file holding our code: the tool itself, or libVibeGemmPlugin.so
  // when a host like mlir-opt-22 loaded us (then the runner is in ../bin).
  std::vector<std::string> owners;
  Dl_info info;
  if (dladdr(mainAddr, &info) && info.dli_fname)
    owners.push_back(info.dli_fname);
  owners.push_back(llvm::sys::fs::getMainExecutable(argv0, mainAddr));
  for (const std::string &owner : owners) {
    if (owner.empty())
      continue;
    llvm::SmallString<256> dir(owner);
    llvm::sys::path::remove_filename(dir);
    for (const char *rel : {"", "../bin"}) {
      llvm::SmallString<256> path(dir);
      llvm::sys::path::append(path, rel, tool);
      if (llvm::sys::fs::can_execute(path)) {
        llvm::SmallString<256> real;
        if (llvm::sys::fs::real_path(path, real))
          return std::string(path);
        return std::string(real);
      }
    }
  }
  return std::nullopt;
}

/// Runs `runner FLAG` (a query that needs no plan) in a child; `text`
/// gets its trimmed output, or why it gave none. Returns its exit code.
static int queryRunner(llvm::StringRef runner, llvm::StringRef flag,
                       size_t limit, std::string &text) {
  TempFile out(".out");
  std::optional<llvm::StringRef> redirects[] = {
      llvm::StringRef(""), llvm::StringRef(out.path), llvm::StringRef(out.path)};
  std::string errMsg;
  int rc = llvm::sys::ExecuteAndWait(runner, {runner, flag}, std::nullopt,
                                     redirects, 60, 0, &errMsg);
  text = llvm::StringRef(out.read(limit)).trim().str();
  if (text.empty() && rc != 0)
    text = errMsg.empty() ? "the GPU probe failed" : errMsg;
  return rc;
}

bool mlir::vibegemm::runtime::probeGpuIsolated(llvm::StringRef runner,
                                               std::string &description) {
  int rc = queryRunner(runner, "--probe", 1000, description);
  if (description.empty())
    description = "the GPU probe failed";
  return rc == 0;
}

bool mlir::vibegemm::runtime::listGpusIsolated(llvm::StringRef runner,
                                               std::vector<std::string> &names,
                                               std::string &whyNot) {
  std::string text;
  if (queryRunner(runner, "--list-devices", 64 * 1024, text) != 0) {
    whyNot = text;
    return false;
  }
  for (llvm::StringRef line : llvm::split(text, '\n'))
    if (!line.trim().empty())
      names.push_back(line.trim().str());
  return !names.empty();
}

std::vector<std::string>
mlir::vibegemm::runtime::environmentWithDevice(llvm::StringRef device) {
  std::vector<std::string> env;
  for (char **e = environ; e && *e; ++e)
    if (!llvm::StringRef(*e).starts_with("CUDA_VISIBLE_DEVICES="))
      env.push_back(*e);
  env.push_back(("CUDA_VISIBLE_DEVICES=" + device).str());
  return env;
}
