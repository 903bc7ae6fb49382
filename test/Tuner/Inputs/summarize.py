#!/usr/bin/env python3
"""Prints report.json and fake-server request logs as lines for FileCheck.

The LLM tests check what the tool did, not how its JSON is laid out, so
this turns the two files into one fact per line:

  summarize.py report ART/report.json   # the llm block, winners, candidates
  summarize.py winner ART/report.json   # only the winners (for diff)
  summarize.py log REQUESTS.jsonl [--contains TEXT ...]

A missing field prints as ``<missing:NAME>`` so that a check fails on it
rather than this script.
"""

import argparse
import hashlib
import json
import math
import sys


def field(obj, name):
    """obj[name] as text, or a marker when absent."""
    if not isinstance(obj, dict) or name not in obj:
        return f"<missing:{name}>"
    value = obj[name]
    return "null" if value is None else str(value)


def one_line(text, limit=400):
    """Collapses whitespace so a diagnostic fits on one line."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "..."


def winners(report):
    lines = []
    for d in report.get("dispatches", []):
        lines.append(f"{field(d, 'name')}: winner {field(d, 'winner')} "
                     f"({field(d, 'winner_source')})")
    return lines


def summarize_report(report):
    lines = [f"scheduler: {field(report, 'scheduler')}"]
    llm = report.get("llm")
    if llm is None:
        lines.append("llm: <missing:llm>")
    else:
        lines.append(f"llm: endpoint {field(llm, 'endpoint')} "
                     f"model {field(llm, 'model')}")
        lines.append(" ".join(
            ["llm:"] + [f"{k} {field(llm, k)}" for k in (
                "requests", "failed_requests", "cache_hits",
                "prompt_tokens", "completion_tokens")]))
    for d, win in zip(report.get("dispatches", []), winners(report)):
        name = field(d, "name")
        lines.append(win)
        candidates = d.get("candidates", [])
        w = d.get("winner")
        if isinstance(w, int) and 0 <= w < len(candidates):
            c = candidates[w]
            ok = (c.get("status") == "ok"
                  and c.get("source") == d.get("winner_source"))
            lines.append(f"{name}: winner is {field(c, 'source')} "
                         f"{field(c, 'status')}"
                         + ("" if ok else " INCONSISTENT"))
        for i, c in enumerate(candidates):
            text = (f"{name}: candidate {c.get('index', i)} "
                    f"{field(c, 'source')} round {field(c, 'round')}: "
                    f"{field(c, 'status')}")
            if c.get("diagnostic"):
                text += ": " + one_line(c["diagnostic"])
            lines.append(text)
        counts = {}
        for c in candidates:
            if c.get("source") == "llm":
                counts[c.get("status")] = counts.get(c.get("status"), 0) + 1
        lines.append(f"{name}: llm candidates {sum(counts.values())}: "
                     + (", ".join(f"{k} {v}" for k, v in sorted(
                         counts.items(), key=lambda kv: str(kv[0])))
                        or "none"))
    return lines


def prompt_text(body):
    """All message text of a chat request body."""
    parts = []
    messages = body.get("messages", []) if isinstance(body, dict) else []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):  # [{"type": "text", "text": ...}]
            content = " ".join(p.get("text", "") for p in content
                               if isinstance(p, dict))
        parts.append(str(content or ""))
    return "\n".join(parts)


def summarize_log(entries, contains):
    lines, last = [], None
    for e in entries:
        gap = 0.0 if last is None else e["time"] - last
        last = e["time"]
        body = e.get("body")
        model = body.get("model") if isinstance(body, dict) else None
        auth = e.get("headers", {}).get("Authorization", "<none>")
        # Truncate, never round up: 0.996 s must not read as 1.00.
        gap_text = f"{math.floor(gap * 100) / 100:.2f}"
        lines.append(f"request {e['index']}: {e['method']} {e['path']} "
                     f"-> {e['answered_by']} {e.get('status')} "
                     f"after {gap_text} s")
        lines.append(f"request {e['index']}: model {model} auth {auth}")
        digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode())
        lines.append(f"request {e['index']}: body {digest.hexdigest()[:16]}")
        text = prompt_text(body)
        messages = body.get("messages", []) if isinstance(body, dict) else []
        roles = ",".join(m.get("role", "?") for m in messages)
        lines.append(f"request {e['index']}: roles {roles or '<none>'}"
                     f" mlir-fence {'yes' if '```mlir' in text else 'no'}")
        for c in contains:
            lines.append(f"request {e['index']}: contains {c}: "
                         f"{'yes' if c in text else 'no'}")
    lines.append(f"log: {len(entries)} requests")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=["report", "winner", "log"])
    parser.add_argument("file")
    parser.add_argument("--contains", action="append", default=[],
                        help="(log) say whether each prompt contains TEXT")
    args = parser.parse_args()
    with open(args.file, encoding="utf-8") as f:
        if args.kind == "log":
            data = [json.loads(line) for line in f if line.strip()]
        else:
            data = json.load(f)
    if args.kind == "report":
        lines = summarize_report(data)
    elif args.kind == "winner":
        lines = winners(data)
    else:
        lines = summarize_log(data, args.contains)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
