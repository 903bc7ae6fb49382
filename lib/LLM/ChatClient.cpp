//===- ChatClient.cpp - OpenAI-compatible chat completions ----------------===//
//
// libcurl for HTTP (TLS verification on, no redirects), nlohmann/json for
// the bodies. Transient failures (429, 5xx) are retried; a reply that is
// too large, slow or malformed is one failed request, not a crash.
//
//===----------------------------------------------------------------------===//

#include "vibegemm/LLM/ChatClient.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <curl/curl.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <thread>

using namespace mlir::vibegemm::llm;
using nlohmann::json;

namespace {

struct Transfer {
  std::string body;
  size_t cap = 0;
  bool overflow = false;
  std::optional<double> retryAfter;
};

size_t onBody(char *data, size_t size, size_t count, void *user) {
  auto *t = static_cast<Transfer *>(user);
  size_t n = size * count;
  if (t->body.size() + n > t->cap) {
    t->overflow = true;
    return 0; // aborts the transfer
  }
  t->body.append(data, n);
  return n;
}

size_t onHeader(char *data, size_t size, size_t count, void *user) {
  auto *t = static_cast<Transfer *>(user);
  size_t n = size * count;
  std::string line(data, n);
  std::string lower = line;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  if (lower.rfind("retry-after:", 0) == 0) {
    char *end = nullptr;
    double seconds = std::strtod(line.c_str() + 12, &end);
    if (end != line.c_str() + 12 && seconds >= 0)
      t->retryAfter = seconds;
  }
  return n;
}

/// The server's error message, if its body is an OpenAI-style error.
std::string serverMessage(const std::string &body) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && j.contains("error")) {
    const json &e = j["error"];
    if (e.is_object() && e.contains("message") && e["message"].is_string())
      return e["message"].get<std::string>();
    if (e.is_string())
      return e.get<std::string>();
  }
  return body.substr(0, 200);
}

} // namespace

ChatClient::ChatClient(std::string endpoint, std::string model,
                       std::string apiKey, ChatOptions options)
    : endpointUrl(std::move(endpoint)), modelName(std::move(model)),
      apiKey(std::move(apiKey)), options(options) {
  while (!endpointUrl.empty() && endpointUrl.back() == '/')
    endpointUrl.pop_back();
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

/// The token counts of an OpenAI-style reply body; 0 where absent.
/// Providers report cached prompt tokens as
/// usage.prompt_tokens_details.cached_tokens.
static ChatUsage parseUsage(const json &reply) {
  ChatUsage usage;
  if (!reply.contains("usage") || !reply["usage"].is_object())
    return usage;
  const json &u = reply["usage"];
  auto count = [](const json &object, const char *key) -> int64_t {
    return object.contains(key) && object[key].is_number_integer()
               ? object[key].get<int64_t>()
               : 0;
  };
  usage.promptTokens = count(u, "prompt_tokens");
  usage.completionTokens = count(u, "completion_tokens");
  if (u.contains("prompt_tokens_details") &&
      u["prompt_tokens_details"].is_object())
    usage.cachedTokens = count(u["prompt_tokens_details"], "cached_tokens");
  return usage;
}

std::string ChatClient::redact(std::string text) const {
  if (apiKey.empty())
    return text;
  for (size_t at = text.find(apiKey); at != std::string::npos;
       at = text.find(apiKey, at))
    text.replace(at, apiKey.size(), "[redacted]");
  return text;
}

ChatResult ChatClient::complete(const std::vector<ChatMessage> &messages) const {
  ChatResult result;
  json request = {{"model", modelName},
                  {"temperature", options.temperature},
                  {"messages", json::array()}};
  for (const ChatMessage &m : messages)
    request["messages"].push_back({{"role", m.role}, {"content", m.content}});
  std::string payload = request.dump();
  if (llvm::StringRef(endpointUrl).starts_with(kCommandPrefix))
    return completeWithCommand(payload);
  std::string url = endpointUrl + "/chat/completions";

  for (int attempt = 0;; ++attempt) {
    result.attempts = attempt + 1;
    Transfer t;
    t.cap = options.maxResponseBytes;
    CURL *curl = curl_easy_init();
    if (!curl) {
      result.error = "cannot initialise libcurl";
      return result;
    }
    curl_slist *headers = nullptr;
    headers = curl_slist_append(headers, "Content-Type: application/json");
    std::string auth;
    if (!apiKey.empty()) {
      auth = "Authorization: Bearer " + apiKey;
      headers = curl_slist_append(headers, auth.c_str());
    }
    char errbuf[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, payload.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(payload.size()));
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, onBody);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, onHeader);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(options.timeoutSeconds * 1000));
    curl_easy_setopt(
        curl, CURLOPT_CONNECTTIMEOUT_MS,
        static_cast<long>(std::min(options.timeoutSeconds, 10.0) * 1000));
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    CURLcode code = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    result.httpStatus = static_cast<int>(status);

    if (t.overflow) {
      result.error = "reply larger than " +
                     std::to_string(options.maxResponseBytes >> 20) +
                     " MiB; refused";
      return result;
    }
    if (code != CURLE_OK) {
      std::string what = errbuf[0] ? errbuf : curl_easy_strerror(code);
      if (code == CURLE_OPERATION_TIMEDOUT)
        result.error = "timeout: no complete reply within " +
                       std::to_string(static_cast<int>(options.timeoutSeconds)) +
                       " s (" + what + ")";
      else
        result.error = "request failed: " + what;
      result.endpointUnusable = code == CURLE_COULDNT_CONNECT ||
                                code == CURLE_COULDNT_RESOLVE_HOST ||
                                code == CURLE_UNSUPPORTED_PROTOCOL ||
                                code == CURLE_URL_MALFORMAT ||
                                code == CURLE_SSL_CACERT_BADFILE ||
                                code == CURLE_PEER_FAILED_VERIFICATION;
      result.error = redact(result.error);
      return result;
    }
    bool transient = status == 429 || (status >= 500 && status < 600);
    if (transient && attempt < options.maxRetries) {
      double wait = t.retryAfter
                        ? std::min(*t.retryAfter, options.maxRetryAfterSeconds)
                        : options.backoffSeconds * std::pow(2.0, attempt);
      std::this_thread::sleep_for(std::chrono::duration<double>(wait));
      continue;
    }
    if (status != 200) {
      result.error = redact("HTTP " + std::to_string(status) + ": " +
                            serverMessage(t.body));
      result.endpointUnusable =
          status == 401 || status == 403 || status == 404 || status == 405;
      return result;
    }
    json reply = json::parse(t.body, nullptr, /*allow_exceptions=*/false);
    const json *content = nullptr;
    if (reply.is_object() && reply.contains("choices") &&
        reply["choices"].is_array() && !reply["choices"].empty()) {
      const json &choice = reply["choices"][0];
      if (choice.is_object() && choice.contains("message") &&
          choice["message"].is_object() &&
          choice["message"].contains("content") &&
          choice["message"]["content"].is_string())
        content = &choice["message"]["content"];
    }
    if (!content) {
      result.error = reply.is_discarded()
                         ? "the reply is not valid JSON (" +
                               std::to_string(t.body.size()) + " bytes)"
                         : "the reply has no choices[0].message.content";
      return result;
    }
    result.usage = parseUsage(reply);
    result.content = content->get<std::string>();
    result.ok = true;
    return result;
  }
}

ChatResult ChatClient::completeWithCommand(const std::string &payload) const {
  ChatResult result;
  result.attempts = 1;
  std::string command = endpointUrl.substr(strlen(kCommandPrefix));
  llvm::SmallString<128> in, out, err;
  int fd = -1;
  auto temp = [&](llvm::StringRef suffix, llvm::SmallString<128> &path) {
    if (llvm::sys::fs::createTemporaryFile("vibegemm-llm", suffix, fd, path))
      return false;
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    return true;
  };
  if (!temp("in", in) || !temp("out", out) || !temp("err", err)) {
    result.error = "cannot create temporary files for the command provider";
    return result;
  }
  llvm::scope_exit cleanup([&] {
    llvm::sys::fs::remove(in);
    llvm::sys::fs::remove(out);
    llvm::sys::fs::remove(err);
  });
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in, ec);
    os << payload;
  }
  // The request goes to the program's stdin; its stdout is the reply: an
  // OpenAI-style JSON body, or the reply text itself.
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(in),
                                                llvm::StringRef(out),
                                                llvm::StringRef(err)};
  std::string errMsg;
  bool execFailed = false;
  int rc = llvm::sys::ExecuteAndWait(
      "/bin/sh", {"/bin/sh", "-c", command}, std::nullopt, redirects,
      static_cast<unsigned>(std::max(1.0, options.timeoutSeconds)), 0, &errMsg,
      &execFailed);
  auto reply = llvm::MemoryBuffer::getFile(out);
  if (execFailed || rc == 127) {
    result.error = redact("the command provider could not run: " +
                          (errMsg.empty() ? command : errMsg));
    result.endpointUnusable = true;
    return result;
  }
  if (rc != 0) {
    auto stderrText = llvm::MemoryBuffer::getFile(err);
    std::string tail =
        stderrText ? (*stderrText)->getBuffer().take_back(300).str() : "";
    result.error = redact(
        rc == -2 ? "timeout: the command gave no reply within " +
                       std::to_string(static_cast<int>(options.timeoutSeconds)) +
                       " s"
                 : "the command exited with " + std::to_string(rc) +
                       (tail.empty() ? "" : ": " + tail));
    return result;
  }
  if (!reply || (*reply)->getBufferSize() > options.maxResponseBytes) {
    result.error = reply ? "reply larger than " +
                               std::to_string(options.maxResponseBytes >> 20) +
                               " MiB; refused"
                         : "the command's output cannot be read";
    return result;
  }
  std::string text = (*reply)->getBuffer().str();
  json body = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (body.is_object() && body.contains("choices") &&
      body["choices"].is_array() && !body["choices"].empty() &&
      body["choices"][0].is_object() &&
      body["choices"][0].contains("message") &&
      body["choices"][0]["message"].is_object() &&
      body["choices"][0]["message"].contains("content") &&
      body["choices"][0]["message"]["content"].is_string()) {
    text = body["choices"][0]["message"]["content"].get<std::string>();
    result.usage = parseUsage(body);
  }
  result.content = std::move(text);
  result.ok = true;
  return result;
}

std::optional<std::string>
mlir::vibegemm::llm::extractMlirBlock(const std::string &reply) {
  size_t open = reply.find("```mlir");
  if (open == std::string::npos)
    return std::nullopt;
  size_t start = reply.find('\n', open);
  if (start == std::string::npos)
    return std::nullopt;
  size_t close = reply.find("```", start + 1);
  if (close == std::string::npos)
    return std::nullopt;
  return reply.substr(start + 1, close - start - 1);
}
