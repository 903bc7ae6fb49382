#!/usr/bin/env python3
"""Render a vibegemm report.html in headless Chromium and check what it drew.

``vibegemm-opt --llm-schedule`` writes ``report.html`` next to
``report.json`` by filling ``share/report/report.html.in``: the line that
reads exactly ``/*VIBEGEMM_REPORT_JSON*/null`` becomes
``/*VIBEGEMM_REPORT_JSON*/`` followed by the report JSON, with every ``</``
written as ``<\\/``.  This tool either fills the template the same way
(``--template`` + ``--report`` + ``--out``) or takes a page vibegemm wrote
(``--html``), loads it in headless Chromium with ``--dump-dom`` and reads the
attributes the page's script sets on ``<body>``:

* ``data-charts-drawn``: canvases with at least one point; must be at least
  the number of dispatches that have candidates;
* ``data-table-rows``: candidate rows in all tables; must equal the number of
  candidates in the report;
* ``data-error``: set when the embedded JSON is missing or unusable, or the
  script threw; must be absent.

Exit status: 0 and ``report.html: N charts, M table rows`` when the page
passes, 1 with the reason when it does not, 2 with ``chromium not found``
when no Chromium binary is installed (the lit feature ``chromium`` is then
absent and the test UNSUPPORTED).

Usage::

    render_report_check.py --template share/report/report.html.in \\
        --report ARTIFACTS/report.json --out /tmp/report.html
    render_report_check.py --html ARTIFACTS/report.html [--screenshot x.png]
"""

import argparse
import html.parser
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

MARKER_LINE = "/*VIBEGEMM_REPORT_JSON*/null"
MARKER_PREFIX = "/*VIBEGEMM_REPORT_JSON*/"
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
TIMEOUT_S = 60


def fill_template(template, report_text):
    """Return the template with the marker line's ``null`` replaced by the
    report JSON, ``</`` escaped as ``<\\/`` (what the C++ writer does)."""
    lines = template.split("\n")
    hits = [i for i, line in enumerate(lines) if line.strip() == MARKER_LINE]
    if len(hits) != 1:
        raise ValueError("template has %d marker lines %r; expected one"
                         % (len(hits), MARKER_LINE))
    safe = report_text.strip().replace("</", "<\\/")
    i = hits[0]
    lines[i] = lines[i].replace(MARKER_LINE, MARKER_PREFIX + safe)
    return "\n".join(lines)


def find_browser():
    """The first Chromium-like binary on PATH, or None."""
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium_command(browser, profile, url, screenshot=None):
    """The headless command line: dump the DOM, or save a screenshot."""
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-dev-shm-usage", "--no-first-run",
           "--user-data-dir=" + profile]
    if screenshot:
        cmd += ["--hide-scrollbars", "--window-size=1100,2400",
                "--screenshot=" + os.path.abspath(screenshot)]
    else:
        cmd.append("--dump-dom")
    return cmd + [url]


class _BodyAttrs(html.parser.HTMLParser):
    """Collects the attributes of the first <body> tag."""

    def __init__(self):
        super().__init__()
        self.attrs = None

    def handle_starttag(self, tag, attrs):
        if tag == "body" and self.attrs is None:
            self.attrs = dict(attrs)


def body_attributes(dom):
    parser = _BodyAttrs()
    parser.feed(dom)
    return parser.attrs


def expected_counts(report):
    """(dispatches with candidates, total candidates) in a report object."""
    charts = rows = 0
    for d in report.get("dispatches") or []:
        cands = [c for c in (d.get("candidates") or [])
                 if isinstance(c, dict)]
        charts += 1 if cands else 0
        rows += len(cands)
    return charts, rows


def embedded_report(page):
    """The report object embedded in a filled page (the marker line)."""
    found = re.search(r"^[ \t]*" + re.escape(MARKER_PREFIX), page, re.M)
    if not found:
        raise ValueError("no line starts with the %r marker" % MARKER_PREFIX)
    start = found.end()
    end = page.find("</script>", start)
    text = page[start:end].rstrip().rstrip(";").rstrip()
    # "<\/" is a valid JSON escape for "/", so the text parses as is.
    report = json.loads(text)
    if not isinstance(report, dict):
        raise ValueError("the marker is followed by %s, not a report object"
                         % text[:40])
    return report


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--template", help="report.html.in to fill")
    ap.add_argument("--report", help="report.json to embed")
    ap.add_argument("--out", help="where to write the filled page")
    ap.add_argument("--html", help="check this page instead of filling one")
    ap.add_argument("--screenshot", help="also save a PNG of the page here")
    args = ap.parse_args(argv)

    if args.html:
        page_path = pathlib.Path(args.html)
        page = page_path.read_text(encoding="utf-8")
    elif args.template and args.report and args.out:
        template = pathlib.Path(args.template).read_text(encoding="utf-8")
        report_text = pathlib.Path(args.report).read_text(encoding="utf-8")
        try:
            page = fill_template(template, report_text)
        except ValueError as e:
            print("report.html: " + str(e))
            return 1
        page_path = pathlib.Path(args.out)
        page_path.write_text(page, encoding="utf-8")
    else:
        ap.error("give --html PAGE, or --template, --report and --out")

    try:
        want_charts, want_rows = expected_counts(embedded_report(page))
    except ValueError as e:
        print("report.html: the embedded report is unusable: %s" % e)
        return 1

    browser = find_browser()
    if not browser:
        print("chromium not found")
        return 2

    url = page_path.resolve().as_uri()
    with tempfile.TemporaryDirectory(prefix="vibegemm-chromium-") as profile:
        try:
            run = subprocess.run(chromium_command(browser, profile, url),
                                 capture_output=True, text=True,
                                 timeout=TIMEOUT_S)
            if args.screenshot and run.returncode == 0:
                subprocess.run(
                    chromium_command(browser, profile, url, args.screenshot),
                    capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            print("report.html: chromium did not finish in %d s" % TIMEOUT_S)
            return 1
    if run.returncode != 0:
        print("report.html: chromium exited with %d: %s"
              % (run.returncode, run.stderr.strip()[-2000:]))
        return 1

    attrs = body_attributes(run.stdout)
    if attrs is None:
        print("report.html: chromium's DOM dump has no <body>")
        return 1
    if "data-error" in attrs:
        print("report.html: the page reports an error: " + attrs["data-error"])
        return 1
    try:
        charts = int(attrs["data-charts-drawn"])
        rows = int(attrs["data-table-rows"])
    except (KeyError, ValueError):
        print("report.html: the page's script did not finish (no "
              "data-charts-drawn/data-table-rows on <body>); a script error?")
        return 1
    if charts < want_charts:
        print("report.html: %d charts drawn, expected %d"
              % (charts, want_charts))
        return 1
    if rows != want_rows:
        print("report.html: %d table rows, expected %d" % (rows, want_rows))
        return 1
    print("report.html: %d charts, %d table rows" % (charts, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
