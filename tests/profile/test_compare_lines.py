"""`compare A B` down to source lines: two real runs of a small C module built with
`zig cc -g`, where B adds a second pass and moves the copy loop down a line. Each function's
lines add up to its change, the moved line is matched to itself, and the report says which
line took the fuel (text, --json, --html)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.services.compare_runs import compare_runs
from tests.core.wat_cases import write_case

BEFORE = """static unsigned char in[4096];
static unsigned char out[4096];

__attribute__((export_name("alloc"))) unsigned char *alloc(int n) { return in; }

static void copy(const unsigned char *p, int n) {
    for (int i = 0; i < n; i++)
        out[i] = p[i]; // copy
}

__attribute__((export_name("run"))) unsigned long long run(unsigned char *p, int n) {
    copy(p, n);
    return ((unsigned long long)(unsigned long)out << 32) | (unsigned)n;
}
"""

# The same copy one line lower, and a second pass over the output that leaves it unchanged
# (a volatile read the optimiser must keep).
AFTER = BEFORE.replace(
    "static void copy(const unsigned char *p, int n) {\n",
    "static volatile unsigned char spare;\nstatic void copy(const unsigned char *p, int n) {\n",
).replace(
    "        out[i] = p[i]; // copy\n",
    "        out[i] = p[i]; // copy\n    for (int i = 0; i < n; i++) // again\n"
    "        out[i] = out[i] ^ spare; // twice\n",
)

CASES = """
[[case]]
name = "short"
kind = "smoke"
behaviour = "echo"
input = "ab"
expected = "ab"

[[case]]
name = "long"
kind = "stress"
size = 40
input = "abcdefghijklmnopqrstuvwxyz0123456789abcd"
expected = "abcdefghijklmnopqrstuvwxyz0123456789abcd"
"""


def c_submission(folder: Path, source: str, model: str) -> Path:
    """A submission shipping `m.c` built with line information, the source beside it."""
    folder.mkdir(parents=True)
    (folder / "m.c").write_text(source)
    build = [sys.executable, "-m", "ziglang", "cc", "--target=wasm32-freestanding", "-O1", "-g"]
    build += ["-fdebug-compilation-dir=.", "-nostdlib", "-Wl,--no-entry", "-o", "m.wasm", "m.c"]
    subprocess.run(build, cwd=folder, check=True, capture_output=True, timeout=120)
    (folder / "submission.toml").write_text(f'[submission]\nmodel = "{model}"\n[build]\nmodule = "m.wasm"\n')
    return folder


def line_of(source: str, marker: str) -> int:
    return next(n for n, text in enumerate(source.splitlines(), 1) if text.rstrip().endswith(marker))


@pytest.fixture
def runs(tmp_path, capsys):
    case = write_case(tmp_path / "case", CASES, fuel_limit=10_000_000)
    db = ["--db", str(tmp_path / "db")]
    ids = []
    for name, source in (("before", BEFORE), ("after", AFTER)):
        sub = c_submission(tmp_path / name, source, f"model-{name}")
        assert main(["grade", str(sub), "--case", str(case), "--json", *db]) == 0
        ids.append(json.loads(capsys.readouterr().out)["run_id"])
    return tmp_path, db, ids


def test_each_functions_lines_add_up_to_its_change(runs, capsys):
    _, db, (a, b) = runs
    assert main(["compare", str(a), str(b), "--json", *db]) == 0
    data = json.loads(capsys.readouterr().out)
    long = next(c for c in data["cases"] if c["name"] == "long")
    assert long["delta"] > 0 and long["functions"]
    assert sum(f["delta"] for f in long["functions"]) == long["delta"]
    for function in long["functions"]:
        assert function["lines"], function["name"]
        assert sum(ln["delta"] for ln in function["lines"]) == function["delta"]
        assert all(ln["file"] == "m.c" for ln in function["lines"])
    # The new pass is B's alone; the copy, a line lower in B, is matched to A's copy line.
    lines = [ln for f in long["functions"] for ln in f["lines"]]
    twice = line_of(AFTER, "// twice")
    assert any(ln["after_line"] == twice and ln["before_line"] is None and ln["before"] == 0 for ln in lines)
    copied = (line_of(BEFORE, "// copy"), line_of(AFTER, "// copy"))
    assert copied[0] != copied[1]
    assert not any(ln["before_line"] == copied[0] and ln["after_line"] != copied[1] for ln in lines)


def test_the_report_names_the_lines_in_text_and_html(runs, capsys):
    tmp, db, (a, b) = runs
    report = tmp / "report.html"
    assert main(["compare", str(a), str(b), "--html", str(report), *db]) == 0
    text = capsys.readouterr().out
    hottest = compare_runs(a, b, writer=None, profile=False).cases[-1].functions[0].lines[0]
    assert f"{hottest.delta:+,} at {hottest.place}:" in text
    html = report.read_text()
    assert "m.c:" in html and f"{hottest.delta:+,}" in html


def test_a_module_without_lines_says_so(tmp_path):
    from lattice_desktop.profile.model import FunctionStats, Profile
    from lattice_desktop.services.compare_lines import line_changes, no_lines_note

    def profile(fuel: int, lines: bool) -> Profile:
        f = FunctionStats(0, "run", 1, fuel, fuel)
        return Profile("x", "c", "h", fuel, (f,), (), 0, None, "returned", line_table=lines)

    assert line_changes(profile(5, False), profile(9, True), "run") == ()
    assert no_lines_note(profile(5, False), profile(9, True), 3, 4) == (
        "no source lines: run 3's module has no DWARF line table (build with -g to see lines)"
    )
