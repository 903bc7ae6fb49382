#!/usr/bin/env python3
"""A scripted, OpenAI-compatible fake LLM server for testing the LLM loop.

The server answers ``POST .../chat/completions`` from a scenario file, one
scripted response per request, and records every request it saw.  It binds
127.0.0.1 only.  Used as a wrapper, it runs one command against itself, which
is what a lit test (whose shell has no ``&`` and no ``$(...)``) needs::

    python3 fake_llm_server.py --script SCENARIO.json [--log REQUESTS.jsonl]
        [--timeout 300] [--print-count] [--port-file FILE] -- CMD ARGS...

The literal ``{endpoint}`` in any CMD argument becomes
``http://127.0.0.1:PORT/v1``, and ``{dead_endpoint}`` a loopback URL where
nothing listens (connection refused).  ``--port-file FILE`` makes a second
run bind the port the first run wrote to FILE, so both see one endpoint.
The wrapper exits with CMD's exit status (124 when ``--timeout`` expired and
CMD was killed, 2 for a bad scenario or usage).
``--serve`` runs the server alone until interrupted and prints its endpoint.

Scenario file::

    {"responses": [R, R, ...], "default": R, "require_key": "sk-..."}

The i-th chat-completion request gets ``responses[i]``, later ones get
``default`` (without one: HTTP 500).  With ``require_key``, a request
without ``Authorization: Bearer <key>`` gets HTTP 401 instead, whatever the
script says.  A response ``R`` is an object with at most one of these kinds:

``{"content": TEXT}`` or ``{"content_file": NAME}``
    200 with a chat.completion body whose message content is TEXT (or the
    file NAME, next to the scenario file).  Optional ``"usage"`` (default
    ``{"prompt_tokens": 10, "completion_tokens": 5}``), ``"model"`` (default:
    the request's model; ``"echo_model": true`` says so explicitly) and
    ``"finish_reason"``.
``{"status": N, "body": JSON}``
    HTTP N with that body (default ``{"error": {"message": ...}}``).
``{"raw": TEXT}``
    200 with exactly TEXT as the body (truncated or malformed JSON).
``{"huge_mb": M}``
    200 with a valid chat.completion of about M MB, sent in chunks; with
    ``"chunked": true`` it uses chunked transfer encoding (no length up
    front).

Any response may also carry ``"headers": {...}`` (e.g. ``Retry-After``) and
``"delay": SECONDS`` (sleep before answering).  Requests to other paths
(``GET /v1/models``) get a small model list and take no scripted response.

The request log (``--log``) has one JSON object per request: ``index``,
``time`` (epoch seconds), ``t`` (seconds since the server started),
``method``, ``path``, ``headers`` (as sent, Authorization included),
``body`` (parsed JSON, else the text with ``body_error``), ``answered_by``
(``responses[i]``, ``default``, ``exhausted``, ``require_key`` or
``other-path``), ``status`` and ``disconnected`` (the client went away
before the answer was written).  ``--print-count`` prints
``requests: N`` (chat-completion requests) to stderr at the end, and
``other-requests: M`` when there were requests to other paths.

Only the standard library is used.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RESPONSE_KINDS = ("content", "content_file", "status", "raw", "huge_mb")
RESPONSE_KEYS = set(RESPONSE_KINDS) | {
    "usage", "model", "echo_model", "finish_reason", "body", "headers",
    "delay", "chunked", "comment"}
SCENARIO_KEYS = {"responses", "default", "require_key", "comment"}
DEFAULT_USAGE = {"prompt_tokens": 10, "completion_tokens": 5}
CHUNK = 64 * 1024


class ScenarioError(Exception):
    """A scenario file that is malformed or names a missing content file."""


def _check_response(resp, where, base_dir):
    """Validates one scripted response and resolves its content_file."""
    if not isinstance(resp, dict):
        raise ScenarioError(f"{where}: a response must be an object")
    unknown = set(resp) - RESPONSE_KEYS
    if unknown:
        raise ScenarioError(f"{where}: unknown keys {sorted(unknown)}")
    kinds = [k for k in RESPONSE_KINDS if k in resp]
    if len(kinds) > 1:
        raise ScenarioError(f"{where}: more than one kind: {kinds}")
    if not kinds and "body" not in resp:
        raise ScenarioError(
            f"{where}: needs one of {list(RESPONSE_KINDS)} or a body")
    resp = dict(resp)
    if "content_file" in resp:
        path = os.path.join(base_dir, resp.pop("content_file"))
        try:
            with open(path, encoding="utf-8") as f:
                resp["content"] = f.read()
        except OSError as e:
            raise ScenarioError(f"{where}: {e}") from e
    if "delay" in resp and not isinstance(resp["delay"], (int, float)):
        raise ScenarioError(f"{where}: delay must be a number of seconds")
    return resp


def load_scenario(path):
    """Reads and validates a scenario file; content files are read now."""
    try:
        with open(path, encoding="utf-8") as f:
            scenario = json.load(f)
    except (OSError, ValueError) as e:
        raise ScenarioError(f"{path}: {e}") from e
    return check_scenario(scenario, os.path.dirname(os.path.abspath(path)))


def check_scenario(scenario, base_dir="."):
    """Validates a scenario given as a dict (see the module docstring)."""
    if not isinstance(scenario, dict):
        raise ScenarioError("a scenario must be an object")
    unknown = set(scenario) - SCENARIO_KEYS
    if unknown:
        raise ScenarioError(f"unknown top-level keys {sorted(unknown)}")
    responses = scenario.get("responses", [])
    if not isinstance(responses, list):
        raise ScenarioError("responses must be a list")
    out = {
        "responses": [_check_response(r, f"responses[{i}]", base_dir)
                      for i, r in enumerate(responses)],
        "default": None,
        "require_key": scenario.get("require_key"),
    }
    if scenario.get("default") is not None:
        out["default"] = _check_response(scenario["default"], "default",
                                         base_dir)
    return out


class FakeLLMServer(ThreadingHTTPServer):
    """The HTTP server: holds the scenario, the request log and a counter."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, scenario, port=0):
        super().__init__(("127.0.0.1", port), _Handler)
        self.scenario = scenario
        self.lock = threading.Lock()
        self.log = []
        self.chat_count = 0
        self.start_time = time.time()
        self._thread = None

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def start(self):
        """Serves in a background thread; returns self."""
        self._thread = threading.Thread(target=self.serve_forever,
                                        kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self):
        """Stops serving; handlers still sleeping in a delay are abandoned."""
        self.shutdown()
        self.server_close()

    def requests_seen(self):
        """A snapshot of the request log."""
        with self.lock:
            return [dict(e) for e in self.log]

    def other_count(self):
        with self.lock:
            return sum(1 for e in self.log if e["answered_by"] == "other-path")

    def write_log(self, path):
        """Writes the request log as JSON lines."""
        with open(path, "w", encoding="utf-8") as f:
            for entry in self.requests_seen():
                f.write(json.dumps(entry, sort_keys=True) + "\n")

    def handle_error(self, request, client_address):
        # A client that hangs up mid-answer is part of the tests, not noise.
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)

    def pick(self, path, headers):
        """Chooses the answer for one request; returns (label, response)."""
        key = self.scenario.get("require_key")
        is_chat = path.rstrip("/").endswith("/chat/completions")
        with self.lock:
            index = self.chat_count
            if is_chat:
                self.chat_count += 1
        if key is not None and headers.get("Authorization") != f"Bearer {key}":
            return "require_key", {
                "status": 401,
                "body": {"error": {"message": "invalid api key",
                                   "type": "invalid_request_error",
                                   "code": "invalid_api_key"}}}
        if not is_chat:
            return "other-path", None
        responses = self.scenario["responses"]
        if index < len(responses):
            return f"responses[{index}]", responses[index]
        if self.scenario.get("default") is not None:
            return "default", self.scenario["default"]
        return "exhausted", {
            "status": 500,
            "body": {"error": {"message": "fake_llm_server: the script has "
                               f"only {len(responses)} responses"}}}


def _completion(content, model, resp):
    """The chat.completion object for a content response."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0,
                     "message": {"role": "assistant", "content": content},
                     "finish_reason": resp.get("finish_reason", "stop")}],
        "usage": resp.get("usage", DEFAULT_USAGE),
    }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeLLM/1"

    _entry = None

    def log_message(self, format, *args):  # noqa: A002 (base class name)
        pass  # quiet: the request log is the record

    def send_response(self, code, message=None):
        # Logged before the client can see the answer, so the log is complete
        # by the time the client (and the wrapper after it) moves on.
        if self._entry is not None:
            self._entry["status"] = code
        super().send_response(code, message)

    def _read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_GET(self):
        self._serve()

    def do_POST(self):
        self._serve()

    def _serve(self):
        server = self.server
        raw = self._read_body()
        entry = {
            "method": self.command,
            "path": self.path,
            "headers": dict(self.headers.items()),
            "time": time.time(),
            "t": round(time.time() - server.start_time, 3),
            "status": None,
            "disconnected": False,
        }
        text = raw.decode("utf-8", errors="replace")
        try:
            entry["body"] = json.loads(text) if text else None
        except ValueError as e:
            entry["body"] = text
            entry["body_error"] = str(e)
        label, resp = server.pick(self.path, self.headers)
        entry["answered_by"] = label
        with server.lock:
            entry["index"] = len(server.log)
            server.log.append(entry)
        self._entry = entry
        try:
            self._answer(resp, entry)
        except (ConnectionError, TimeoutError):
            entry["disconnected"] = True
            self.close_connection = True

    def _answer(self, resp, entry):
        """Writes the answer for resp; returns the HTTP status sent."""
        if resp is None:  # other paths: a model list for GET /models
            model = "fake-model"
            return self._send_json(200, {"object": "list", "data": [
                {"id": model, "object": "model", "owned_by": "fake"}]})
        if resp.get("delay"):
            time.sleep(resp["delay"])
        headers = resp.get("headers", {})
        body = entry.get("body")
        req_model = body.get("model") if isinstance(body, dict) else None
        model = resp.get("model", req_model or "fake-model")
        if "huge_mb" in resp:
            return self._send_huge(resp, model, headers)
        if "raw" in resp:
            return self._send_bytes(resp.get("status", 200),
                                    resp["raw"].encode("utf-8"),
                                    headers, "application/json")
        if "content" in resp:
            return self._send_json(resp.get("status", 200),
                                   _completion(resp["content"], model, resp),
                                   headers)
        status = resp.get("status", 200)
        default = {"error": {"message": f"fake_llm_server: HTTP {status}"}}
        return self._send_json(status, resp.get("body", default), headers)

    def _send_json(self, status, obj, headers=None):
        return self._send_bytes(status, json.dumps(obj).encode("utf-8"),
                                headers or {}, "application/json")

    def _send_bytes(self, status, data, headers, ctype):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        return status

    def _send_huge(self, resp, model, headers):
        size = int(float(resp["huge_mb"]) * 1000 * 1000)
        head, tail = json.dumps(_completion("@@", model, resp)).split("@@")
        head, tail = head.encode(), tail.encode()
        filler = max(size - len(head) - len(tail), 0)
        chunked = bool(resp.get("chunked"))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length",
                             str(len(head) + filler + len(tail)))
        for k, v in headers.items():
            self.send_header(k, str(v))
        self.end_headers()

        def write(data):
            if chunked:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            else:
                self.wfile.write(data)

        write(head)
        block = b"x" * CHUNK
        left = filler
        while left > 0:
            write(block[:min(left, CHUNK)])
            left -= CHUNK
        write(tail)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        return 200


def dead_endpoint():
    """A loopback base URL on a port that was free a moment ago: connecting
    to it is refused (nothing listens there)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _run_command(cmd, timeout):
    """Runs cmd with inherited stdio; returns its exit status (124 when
    it ran past the timeout and was killed)."""
    try:
        proc = subprocess.Popen(cmd, start_new_session=True)
    except OSError as e:
        print(f"fake_llm_server: cannot run {cmd[0]}: {e.strerror}",
              file=sys.stderr)
        return 127
    try:
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        # The command line may hold the API key: name only the time.
        print(f"fake_llm_server: the command ran past --timeout {timeout} s; "
              "killed", file=sys.stderr)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
        proc.wait()
        return 124
    return 128 - rc if rc < 0 else rc


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    cmd = []
    if "--" in argv:
        split = argv.index("--")
        argv, cmd = argv[:split], argv[split + 1:]
    parser = argparse.ArgumentParser(
        description="Scripted fake OpenAI-compatible server; runs CMD "
                    "against it ({endpoint} in CMD becomes its base URL).",
        usage="%(prog)s --script SCENARIO.json [--log FILE] [--timeout S] "
              "[--print-count] [--port-file FILE] (-- CMD ARGS... | --serve)")
    parser.add_argument("--script", required=True, help="scenario JSON file")
    parser.add_argument("--log", help="write the requests here (JSON lines)")
    parser.add_argument("--timeout", type=float, default=300,
                        help="kill CMD after this many seconds (exit 124)")
    parser.add_argument("--print-count", action="store_true",
                        help="print 'requests: N' to stderr at the end")
    parser.add_argument("--port", type=int, default=0,
                        help="port to bind (default: a free one)")
    parser.add_argument("--port-file",
                        help="bind the port named in this file if it exists, "
                             "else a free one; then write the port to it "
                             "(two runs that must see the same endpoint)")
    parser.add_argument("--serve", action="store_true",
                        help="no CMD: serve until interrupted")
    args = parser.parse_args(argv)
    if not cmd and not args.serve:
        parser.error("give a command after '--', or --serve")
    try:
        scenario = load_scenario(args.script)
    except ScenarioError as e:
        print(f"fake_llm_server: bad scenario: {e}", file=sys.stderr)
        return 2

    port = args.port
    if args.port_file and os.path.exists(args.port_file):
        with open(args.port_file, encoding="utf-8") as f:
            port = int(f.read().strip())
    try:
        server = FakeLLMServer(scenario, port).start()
    except OSError as e:
        print(f"fake_llm_server: cannot bind 127.0.0.1:{port}: {e.strerror}",
              file=sys.stderr)
        return 2
    if args.port_file:
        with open(args.port_file, "w", encoding="utf-8") as f:
            f.write(f"{server.server_address[1]}\n")
    try:
        if args.serve:
            print(server.endpoint, flush=True)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                rc = 0
        else:
            dead = dead_endpoint()
            cmd = [a.replace("{endpoint}", server.endpoint)
                   .replace("{dead_endpoint}", dead) for a in cmd]
            rc = _run_command(cmd, args.timeout)
    finally:
        server.stop()
        if args.log:
            server.write_log(args.log)
    if args.print_count:
        print(f"requests: {server.chat_count}", file=sys.stderr)
        if server.other_count():
            print(f"other-requests: {server.other_count()}", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
