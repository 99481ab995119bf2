"""Control characters in a harness run's own text (its harness and model names, a tool it
called, an argument, a message) reach the HTML and CSV exports escaped, `\\u001b` for ESC
and `\\u0000` for NUL, as the terminal shows them (`cli/terminal.shown`), never raw."""

from __future__ import annotations

import csv
import io
import re

from harness_builders import BOX_PATH, call, capture, jsonl, shell

from lattice_desktop.cli.terminal import shown
from lattice_desktop.harness import load_box, parse_trace, score
from lattice_desktop.services.exports.csv_text import csv_text
from lattice_desktop.services.exports.harness_export import harness_html, harness_table
from lattice_desktop.services.exports.tables import runs_table
from lattice_desktop.store.harness_runs import StoredHarnessRun

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # every control character but \t and \n
ESC, NUL = "\x1b", "\x00"


def hostile_run() -> StoredHarnessRun:
    events = [
        shell(1, f"id{ESC}[2J", 200),
        call(2, f"br{ESC}]0;owned{NUL}owser", {"x": 1}),  # an undeclared tool: a finding
        *[call(3 + i, "read_file", {"path": f"/a{ESC}[31m"}) for i in range(4)],  # a loop
        capture(9, "user"),
    ]
    text = jsonl(events, harness=f"agent{ESC}[31m", model=f"m{NUL}odel", run_id=f"r{ESC}1")
    result = score(load_box(BOX_PATH), parse_trace(text, source="t.jsonl"))
    return StoredHarnessRun(7, None, result, f"box{ESC}.toml", f"trace{NUL}.jsonl")


def test_the_html_export_escapes_control_characters_as_the_terminal_does():
    run = hostile_run()
    page = harness_html(run)
    assert not RAW.search(page), RAW.findall(page)
    assert ESC not in page and NUL not in page
    for text in (run.result.harness, run.result.model, run.result.tool_findings[0].message):
        assert shown(text) in page.replace("&#x27;", "'"), text
    assert "agent\\u001b[31m" in page and "m\\u0000odel" in page


def test_the_csv_export_escapes_control_characters_as_the_terminal_does():
    run = hostile_run()
    for text in (csv_text(harness_table(run)), csv_text(runs_table([run]))):
        assert not RAW.search(text), RAW.findall(text)
        rows = list(csv.reader(io.StringIO(text)))
        cells = [cell for row in rows for cell in row]
        assert "agent\\u001b[31m / m\\u0000odel" in cells or "agent\\u001b[31m" in cells
    written = list(csv.DictReader(io.StringIO(csv_text(harness_table(run)))))
    assert {row["name"] for row in written} == {"r\\u001b1"}
