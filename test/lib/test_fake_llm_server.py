#!/usr/bin/env python3
"""Tests for fake_llm_server.py, the scripted stand-in for an LLM endpoint.

Starts the server in-process with a scenario and talks to it with urllib:
every response kind, the request log, ``require_key``, ``default`` and the
wrapper mode (``{endpoint}`` and ``{dead_endpoint}`` substitution, exit
status, ``--timeout``, ``--print-count``, ``--port-file``).  It also checks
that every scenario under ``test/Tuner/Inputs`` loads.  Run with
``python3 -m unittest -v test_fake_llm_server`` from this directory.
"""

import contextlib
import glob
import io
import json
import os
import socket
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import fake_llm_server as fls  # noqa: E402

SCENARIOS = os.path.join(os.path.dirname(HERE), "Tuner", "Inputs")
CHAT = {"model": "test-model",
        "messages": [{"role": "user", "content": "schedule gemm_d0"}]}


def post(endpoint, body=CHAT, key="sk-test-123", timeout=10, raw=False):
    """POSTs a chat request; returns (status, headers, body bytes or JSON)."""
    data = json.dumps(body).encode()
    req = urllib.request.Request(endpoint + "/chat/completions", data=data,
                                 method="POST")
    req.add_header("Content-Type", "application/json")
    if key is not None:
        req.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, headers, payload = r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        status, headers, payload = e.code, e.headers, e.read()
    return status, headers, payload if raw else json.loads(payload)


class ServerCase(unittest.TestCase):
    """Runs one server per test with the scenario given to serve()."""

    def serve(self, scenario):
        self.server = fls.FakeLLMServer(fls.check_scenario(scenario)).start()
        self.addCleanup(self.server.stop)
        return self.server.endpoint


class ResponseKinds(ServerCase):

    def test_content_is_a_chat_completion(self):
        ep = self.serve({"responses": [
            {"content": "hello", "usage": {"prompt_tokens": 7,
                                           "completion_tokens": 3}}]})
        self.assertRegex(ep, r"^http://127\.0\.0\.1:\d+/v1$")
        status, _, body = post(ep)
        self.assertEqual(status, 200)
        self.assertEqual(body["object"], "chat.completion")
        self.assertEqual(body["model"], "test-model")
        choice = body["choices"][0]
        self.assertEqual(choice["message"],
                         {"role": "assistant", "content": "hello"})
        self.assertEqual(choice["finish_reason"], "stop")
        self.assertEqual(body["usage"],
                         {"prompt_tokens": 7, "completion_tokens": 3})

    def test_content_file_is_read_next_to_the_scenario(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "reply.txt"), "w") as f:
                f.write("from a file\n```mlir\n```\n")
            with open(os.path.join(d, "s.json"), "w") as f:
                json.dump({"responses": [{"content_file": "reply.txt"}]}, f)
            scenario = fls.load_scenario(os.path.join(d, "s.json"))
        self.server = fls.FakeLLMServer(scenario).start()
        self.addCleanup(self.server.stop)
        _, _, body = post(self.server.endpoint)
        self.assertEqual(body["choices"][0]["message"]["content"],
                         "from a file\n```mlir\n```\n")

    def test_status_headers_and_body(self):
        ep = self.serve({"responses": [
            {"status": 429, "headers": {"Retry-After": "1"},
             "body": {"error": {"message": "slow down"}}},
            {"status": 500},
            {"status": 401, "body": {"error": {"message": "invalid api key"}}},
        ]})
        status, headers, body = post(ep)
        self.assertEqual((status, headers["Retry-After"]), (429, "1"))
        self.assertEqual(body["error"]["message"], "slow down")
        status, _, body = post(ep)
        self.assertEqual(status, 500)
        self.assertIn("error", body)
        status, _, body = post(ep)
        self.assertEqual(status, 401)
        self.assertEqual(body["error"]["message"], "invalid api key")

    def test_raw_body_is_sent_verbatim(self):
        raw = '{"choices": [{"message": {"content": "'
        ep = self.serve({"responses": [{"raw": raw}]})
        status, _, payload = post(ep, raw=True)
        self.assertEqual(status, 200)
        self.assertEqual(payload.decode(), raw)
        with self.assertRaises(ValueError):
            json.loads(payload)

    def test_huge_body_is_valid_json_of_the_size_asked(self):
        for chunked in (False, True):
            with self.subTest(chunked=chunked):
                ep = self.serve({"responses": [{"huge_mb": 2,
                                                "chunked": chunked}]})
                status, headers, payload = post(ep, raw=True)
                self.assertEqual(status, 200)
                self.assertEqual(headers["Transfer-Encoding"] == "chunked",
                                 chunked)
                self.assertAlmostEqual(len(payload), 2_000_000, delta=1000)
                content = json.loads(payload)["choices"][0]["message"]
                self.assertEqual(set(content["content"]), {"x"})
                self.server.stop()

    def test_huge_body_survives_a_client_that_hangs_up(self):
        ep = self.serve({"responses": [{"huge_mb": 20}],
                         "default": {"content": "still here"}})
        url = ep.replace("http://", "").split("/")[0]
        host, port = url.split(":")
        data = json.dumps(CHAT).encode()
        with socket.create_connection((host, int(port)), timeout=10) as s:
            s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\n"
                      b"Host: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: %d\r\n\r\n%s" % (len(data), data))
            s.recv(65536)  # read a little, then hang up
        _, _, body = post(ep)
        self.assertEqual(body["choices"][0]["message"]["content"],
                         "still here")

    def test_delay(self):
        ep = self.serve({"responses": [{"delay": 0.5, "content": "late"}]})
        start = time.monotonic()
        post(ep)
        self.assertGreaterEqual(time.monotonic() - start, 0.5)

    def test_delay_past_the_client_timeout(self):
        ep = self.serve({"responses": [{"delay": 1.5, "content": "late"}],
                         "default": {"content": "on time"}})
        with self.assertRaises(OSError):  # socket.timeout / URLError
            post(ep, timeout=0.3)
        _, _, body = post(ep)
        self.assertEqual(body["choices"][0]["message"]["content"], "on time")

    def test_model_can_be_fixed(self):
        ep = self.serve({"responses": [{"content": "a", "model": "m2"},
                                       {"content": "b", "echo_model": True}]})
        self.assertEqual(post(ep)[2]["model"], "m2")
        self.assertEqual(post(ep)[2]["model"], "test-model")


class Script(ServerCase):

    def test_default_after_the_responses(self):
        ep = self.serve({"responses": [{"content": "first"}],
                         "default": {"content": "again"}})
        got = [post(ep)[2]["choices"][0]["message"]["content"]
               for _ in range(3)]
        self.assertEqual(got, ["first", "again", "again"])

    def test_no_default_means_500(self):
        ep = self.serve({"responses": [{"content": "only"}]})
        self.assertEqual(post(ep)[0], 200)
        status, _, body = post(ep)
        self.assertEqual(status, 500)
        self.assertIn("only 1 responses", body["error"]["message"])

    def test_require_key_overrides_the_script(self):
        ep = self.serve({"require_key": "sk-test-123",
                         "default": {"content": "ok"}})
        self.assertEqual(post(ep, key="sk-wrong")[0], 401)
        status, _, body = post(ep, key=None)
        self.assertEqual(status, 401)
        self.assertEqual(body["error"]["message"], "invalid api key")
        self.assertEqual(post(ep, key="sk-test-123")[0], 200)

    def test_models_path_takes_no_scripted_response(self):
        ep = self.serve({"responses": [{"content": "first"}]})
        with urllib.request.urlopen(ep + "/models", timeout=10) as r:
            self.assertEqual(json.load(r)["object"], "list")
        self.assertEqual(post(ep)[2]["choices"][0]["message"]["content"],
                         "first")
        self.assertEqual(self.server.chat_count, 1)
        self.assertEqual(self.server.other_count(), 1)

    def test_the_log(self):
        ep = self.serve({"responses": [{"status": 429}],
                         "default": {"content": "ok"}})
        post(ep)
        post(ep)
        log = self.server.requests_seen()
        self.assertEqual([e["answered_by"] for e in log],
                         ["responses[0]", "default"])
        self.assertEqual([e["status"] for e in log], [429, 200])
        first = log[0]
        self.assertEqual((first["method"], first["path"]),
                         ("POST", "/v1/chat/completions"))
        self.assertEqual(first["headers"]["Authorization"],
                         "Bearer sk-test-123")
        self.assertEqual(first["body"], CHAT)
        self.assertLessEqual(log[0]["time"], log[1]["time"])
        self.assertFalse(first["disconnected"])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "log.jsonl")
            self.server.write_log(path)
            with open(path) as f:
                lines = [json.loads(line) for line in f]
        self.assertEqual(len(lines), 2)
        self.assertEqual(lines[1]["index"], 1)


class Scenarios(unittest.TestCase):

    def test_bad_scenarios_are_refused(self):
        for bad in ([], {"responses": {}}, {"reponses": []},
                    {"responses": [{"content": "a", "raw": "b"}]},
                    {"responses": [{"contnet": "a"}]},
                    {"responses": [{"delay": "5", "content": "a"}]},
                    {"default": {"content_file": "/nonexistent/x.txt"}}):
            with self.subTest(bad=bad):
                with self.assertRaises(fls.ScenarioError):
                    fls.check_scenario(bad)

    def test_the_lit_scenarios_load(self):
        paths = glob.glob(os.path.join(SCENARIOS, "*.json"))
        if not paths:
            self.skipTest("no scenarios under " + SCENARIOS)
        for path in paths:
            with self.subTest(path=os.path.basename(path)):
                fls.load_scenario(path)


class Wrapper(unittest.TestCase):
    """main() as the lit tests use it: run a command against the server."""

    def run_main(self, scenario, cmd, *opts):
        with tempfile.TemporaryDirectory() as d:
            script = os.path.join(d, "s.json")
            log = os.path.join(d, "log.jsonl")
            with open(script, "w") as f:
                json.dump(scenario, f)
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rc = fls.main(["--script", script, "--log", log,
                               "--print-count", *opts, "--", *cmd])
            with open(log) as f:
                entries = [json.loads(line) for line in f]
        return rc, err.getvalue(), entries

    CLIENT = ("import json, sys, urllib.request as u\n"
              "r = u.Request(sys.argv[1] + '/chat/completions', method='POST',"
              " data=json.dumps({'model': 'm'}).encode(),"
              " headers={'Authorization': 'Bearer k'})\n"
              "assert json.load(u.urlopen(r))['choices'][0]['message']"
              "['content'] == 'hi'\n"
              "sys.exit(int(sys.argv[2]))\n")

    def test_endpoint_substitution_exit_status_and_count(self):
        rc, err, log = self.run_main(
            {"default": {"content": "hi"}},
            [sys.executable, "-c", self.CLIENT, "{endpoint}", "3"])
        self.assertEqual(rc, 3)
        self.assertIn("requests: 1\n", err)
        self.assertEqual(len(log), 1)
        self.assertEqual(log[0]["headers"]["Authorization"], "Bearer k")

    def test_timeout_kills_the_command(self):
        start = time.monotonic()
        rc, err, log = self.run_main(
            {"responses": []},
            [sys.executable, "-c", "import time; time.sleep(30)"],
            "--timeout", "1")
        self.assertEqual(rc, 124)
        self.assertLess(time.monotonic() - start, 10)
        self.assertIn("--timeout 1", err)
        self.assertIn("requests: 0\n", err)
        self.assertEqual(log, [])

    def test_dead_endpoint_refuses_connections(self):
        probe = ("import sys, urllib.request as u\n"
                 "try:\n"
                 "    u.urlopen(sys.argv[1] + '/models', timeout=5)\n"
                 "except OSError as e:\n"
                 "    sys.exit(7 if 'refused' in str(e).lower() else 1)\n")
        rc, err, log = self.run_main({"responses": []}, [
            sys.executable, "-c", probe, "{dead_endpoint}"])
        self.assertEqual(rc, 7)
        self.assertIn("requests: 0\n", err)

    def test_port_file_gives_the_same_endpoint_twice(self):
        # The command exits with its endpoint's port, modulo 200.
        show = ("import sys; "
                "sys.exit(int(sys.argv[1].split(':')[2][:-3]) % 200)")
        with tempfile.TemporaryDirectory() as d:
            port_file = os.path.join(d, "port")
            rcs = [self.run_main({"responses": []},
                                 [sys.executable, "-c", show, "{endpoint}"],
                                 "--port-file", port_file)[0]
                   for _ in range(2)]
            with open(port_file) as f:
                port = int(f.read())
        self.assertEqual(rcs, [port % 200] * 2)

    def test_bad_scenario_exits_2(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = fls.main(["--script", "/nonexistent.json", "--", "true"])
        self.assertEqual(rc, 2)
        self.assertIn("bad scenario", err.getvalue())


if __name__ == "__main__":
    unittest.main()
