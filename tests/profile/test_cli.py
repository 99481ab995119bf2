"""`lattice-desktop profile` on a graded run and on a submission: figures, JSON, exports,
the stored profile read back, and user errors with exit 2."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import gprof2dot
import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.profile import run as profile_run
from lattice_desktop.resources import CASES as CASES_DIR
from tests.core.wat_cases import write_case, write_submission
from tests.profile.control_flow import CONTROL_FLOW

CASES = """
[[case]]
name = "small"
kind = "smoke"
behaviour = "echo"
input = "ab"
expected = "ab"

[[case]]
name = "big"
kind = "stress"
size = 40
input = "abcdefghijklmnopqrstuvwxyz0123456789"
expected = "abcdefghijklmnopqrstuvwxyz0123456789"

[[case]]
name = "medium"
kind = "stress"
size = 20
input = "abcdefghijklmnop"
expected = "abcdefghijklmnop"
"""


@pytest.fixture
def graded(tmp_path, capsys):
    case = write_case(tmp_path / "case", CASES, fuel_limit=10_000_000)
    sub = write_submission(tmp_path / "sub", CONTROL_FLOW)
    db = ["--db", str(tmp_path / "db")]
    assert main(["grade", str(sub), "--case", str(case), "--json", *db]) == 0
    report = json.loads(capsys.readouterr().out)
    return case, sub, db, report


def test_a_runs_profile_defaults_to_its_largest_stress_case_and_equals_its_fuel(graded, capsys):
    _, _, db, report = graded
    assert main(["profile", str(report["run_id"]), "--json", *db]) == 0
    data = json.loads(capsys.readouterr().out)
    big = next(r for r in report["results"] if r["name"] == "big")
    assert data["case"] == "big"
    assert data["total_fuel"] == data["graded_fuel"] == big["fuel"]
    assert sum(f["self_fuel"] for f in data["functions"]) == big["fuel"]
    assert {"caller": "run", "callee": "fib"} in [
        {k: e[k] for k in ("caller", "callee")} for e in data["edges"]
    ]


def test_text_output_names_the_check_and_the_top_functions(graded, capsys):
    _, _, db, report = graded
    assert main(["profile", str(report["run_id"]), "--case", "medium", *db]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert "medium" in first and "(exact)" in first
    assert "caller → callee" in out and "run → nested" in out


def test_the_second_time_the_stored_profile_is_read_back(graded, capsys, monkeypatch):
    _, _, db, report = graded
    assert main(["profile", str(report["run_id"]), "--json", *db]) == 0
    first = json.loads(capsys.readouterr().out)

    def never(*args, **kwargs):
        raise AssertionError("profiled again")

    monkeypatch.setattr(profile_run, "profile_case", never)
    monkeypatch.setattr("lattice_desktop.services.profiling.profile_case", never)
    assert main(["profile", str(report["run_id"]), "--json", *db]) == 0
    assert json.loads(capsys.readouterr().out) == first


def test_a_submission_with_a_case_file_and_callgrind(graded, tmp_path, capsys):
    case, sub, db, _ = graded
    out_file = tmp_path / "out.callgrind"
    code = main(
        ["profile", str(sub), "--case", str(case), "--case-name", "small", "--callgrind", str(out_file), *db]
    )
    assert code == 0
    text = capsys.readouterr().out
    total = int(text.splitlines()[0].split(": ")[1].split()[0].replace(",", ""))
    parsed = gprof2dot.CallgrindParser(io.StringIO(out_file.read_text())).parse()
    assert sum(f[gprof2dot.SAMPLES] for f in parsed.functions.values()) == total


def test_callgrind_names_each_source_file_by_its_path_in_the_submission(tmp_path, capsys):
    """KCachegrind opens a `fl=` name as it is written (a relative one from the callgrind
    file's folder), so the files a line table names are written as absolute paths inside
    the submission's folder: the C source is annotated wherever the file is opened."""
    sub = CASES_DIR / "inversions" / "submissions" / "merge_sort"
    out_file = tmp_path / "merge_sort.callgrind"
    args = ["profile", str(sub), "--case", "inversions", "--case-name", "n-500", "--callgrind", str(out_file)]
    assert main([*args, "--db", str(tmp_path / "db")]) == 0
    capsys.readouterr()
    names = {
        line.split(") ", 1)[1]
        for line in out_file.read_text().splitlines()
        if re.match(r"c?f[lie]=\(\d+\) ", line)
    }
    assert names == {str((sub / "solution.c").resolve())}
    assert Path(next(iter(names))).is_absolute() and Path(next(iter(names))).is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["999"], "there is no run 999"),
        (["SUB"], "needs --case"),
        (["SUB", "--case", "CASE", "--case-name", "nope"], "has no case 'nope'"),
        (["RUN", "--case-name", "big"], "--case-name is for a submission"),
    ],
)
def test_user_errors_exit_2_with_a_message(graded, tmp_path, capsys, args, message):
    case, sub, db, report = graded
    names = {
        "SUB": str(sub),
        "CASE": str(case),
        "RUN": str(report["run_id"]),
        "OUT": str(tmp_path / "s.json"),
    }
    assert main(["profile", *[names.get(a, a) for a in args], *db]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_module_that_cannot_be_instrumented_is_refused_with_its_reason(tmp_path, capsys):
    case = write_case(tmp_path / "case", CASES, fuel_limit=10_000_000)
    tail = """
(module (memory (export "memory") 1)
 (func (export "alloc") (param i32) (result i32) i32.const 1024)
 (func $run (export "run") (param i32 i32) (result i64) (return_call $run (local.get 0) (local.get 1))))
"""
    sub = write_submission(tmp_path / "sub", tail)
    assert main(["profile", str(sub), "--case", str(case), "--db", str(tmp_path / "db")]) == 2
    assert "tail calls" in capsys.readouterr().err


def test_source_lines_sum_each_line_over_its_functions_and_lead_the_text(tmp_path, capsys):
    """`--json`'s source_lines add each file:line over the functions it is compiled into
    (what the per-function `lines` give, summed); the text lists them hottest first."""
    sub = CASES_DIR / "inversions" / "submissions" / "merge_sort"
    args = ["profile", str(sub), "--case", "inversions", "--case-name", "n-500", "--db", str(tmp_path / "db")]
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    summed: dict[tuple[str, int], int] = {}
    for line in data["lines"]:
        summed[(line["file"], line["line"])] = summed.get((line["file"], line["line"]), 0) + line["fuel"]
    rows = data["source_lines"]
    assert {(r["file"], r["line"]): r["fuel"] for r in rows} == summed
    assert all(r["fuel"] == sum(f["fuel"] for f in r["functions"]) for r in rows)
    assert [r["fuel"] for r in rows] == sorted((r["fuel"] for r in rows), reverse=True)
    assert sum(summed.values()) == sum(f["self_fuel"] for f in data["functions"])
    assert main(args) == 0
    text = capsys.readouterr().out
    top = rows[0]
    assert f"{top['fuel']:,}" in text and f"{top['file']}:{top['line']}" in text


def test_a_run_whose_submission_folder_is_gone_says_so(graded, capsys):
    _, sub, db, report = graded
    for f in sub.iterdir():
        f.unlink()
    sub.rmdir()
    assert main(["profile", str(report["run_id"]), *db]) == 2
    err = capsys.readouterr().err
    # Once only "SUB: file not found", as if the run id had been taken for a path.
    assert f"{sub}: run {report['run_id']}'s submission folder is gone" in err
