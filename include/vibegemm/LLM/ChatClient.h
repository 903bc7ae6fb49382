//===- ChatClient.h - OpenAI-compatible chat completions --------*- C++ -*-===//
//
// A small client for `POST {endpoint}/chat/completions`, the protocol that
// OpenAI, vLLM, llama.cpp's server, Ollama and most gateways speak. It knows
// nothing of MLIR. Replies are untrusted: sizes are capped, JSON is checked,
// and the API key never appears in anything this returns.
//
//===----------------------------------------------------------------------===//

#ifndef VIBEGEMM_LLM_CHATCLIENT_H
#define VIBEGEMM_LLM_CHATCLIENT_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::vibegemm::llm {

struct ChatMessage {
  std::string role, content;
};

struct ChatOptions {
  /// Whole-request limit, connection included.
  double timeoutSeconds = 120;
  /// Retries after a 429 or 5xx, with exponential backoff from
  /// `backoffSeconds`, or the server's Retry-After when it sends one.
  int maxRetries = 3;
  double backoffSeconds = 1;
  /// Longest wait a Retry-After may ask for.
  double maxRetryAfterSeconds = 60;
  /// Replies larger than this are refused (and the transfer aborted).
  size_t maxResponseBytes = size_t(8) << 20;
  double temperature = 0.7;
};

/// What a request cost, from the reply's `usage`. `cachedTokens` are the
/// prompt tokens the provider served from its prefix cache (part of
/// `promptTokens`).
struct ChatUsage {
  int64_t promptTokens = 0, cachedTokens = 0, completionTokens = 0;
};

struct ChatResult {
  bool ok = false;
  std::string content;
  /// What went wrong, for reports; never contains the API key.
  std::string error;
  /// The last HTTP status (0: no response).
  int httpStatus = 0;
  /// The endpoint cannot work at all (bad key, wrong URL, nothing
  /// listening), as opposed to one failed request.
  bool endpointUnusable = false;
  ChatUsage usage;
  int attempts = 0;
};

/// An endpoint of the form "command:PROGRAM ARGS" runs PROGRAM (through
/// /bin/sh) for each request instead of speaking HTTP: the request body goes
/// to its stdin and its stdout is the reply (an OpenAI-style body or the
/// reply text).
inline constexpr const char *kCommandPrefix = "command:";

class ChatClient {
public:
  /// `endpoint` is the base URL (".../v1"); `apiKey` may be empty.
  ChatClient(std::string endpoint, std::string model, std::string apiKey,
             ChatOptions options = {});

  ChatResult complete(const std::vector<ChatMessage> &messages) const;

  /// `text` with every occurrence of the API key replaced.
  std::string redact(std::string text) const;

  const std::string &endpoint() const { return endpointUrl; }
  const std::string &model() const { return modelName; }

private:
  ChatResult completeWithCommand(const std::string &payload) const;

  std::string endpointUrl, modelName, apiKey;
  ChatOptions options;
};

/// The first fenced ```mlir block of a reply, without its fences.
std::optional<std::string> extractMlirBlock(const std::string &reply);

} // namespace mlir::vibegemm::llm

#endif // VIBEGEMM_LLM_CHATCLIENT_H
