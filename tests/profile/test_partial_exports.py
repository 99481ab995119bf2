"""Several exports asked for: each that can be exact is written, each that cannot says why,
the profile is printed, and the exit status tells a refusal from a usage error."""

from __future__ import annotations

import json

from lattice_desktop.cli.main import main
from lattice_desktop.cli.profile_cmd import EXIT_REFUSED
from tests.core.wat_cases import write_case, write_submission
from tests.profile.control_flow import CONTROL_FLOW

CASES = """
[[case]]
name = "big"
kind = "stress"
size = 40
input = "abcdefghijklmnopqrstuvwxyz0123456789"
expected = "abcdefghijklmnopqrstuvwxyz0123456789"
"""


def _graded(tmp_path, capsys):
    case = write_case(tmp_path / "case", CASES, fuel_limit=10_000_000)
    sub = write_submission(tmp_path / "sub", CONTROL_FLOW)
    db = ["--db", str(tmp_path / "db")]
    assert main(["grade", str(sub), "--case", str(case), "--json", *db]) == 0
    return str(json.loads(capsys.readouterr().out)["run_id"]), db


def test_callgrind_written_speedscope_refused_table_printed_and_a_distinct_status(tmp_path, capsys):
    run, db = _graded(tmp_path, capsys)
    grind, scope = tmp_path / "a.out", tmp_path / "b.json"
    status = main(["profile", run, "--callgrind", str(grind), "--speedscope", str(scope), *db])
    out, error = capsys.readouterr()
    assert status == EXIT_REFUSED and status != 2
    assert grind.read_text().startswith("# callgrind format")
    assert not scope.exists()
    assert "caller → callee" in out  # the profile table
    assert "not written" in error and "called from" in error and "--approximate" in error


def test_an_approximate_flame_graph_says_so_in_the_file(tmp_path, capsys):
    run, db = _graded(tmp_path, capsys)
    scope = tmp_path / "b.json"
    assert main(["profile", run, "--speedscope", str(scope), "--approximate", "--json", *db]) == 0
    out, error = capsys.readouterr()
    document = json.loads(scope.read_text())
    assert "APPROXIMATE" in document["name"] and "APPROXIMATE" in document["profiles"][0]["name"]
    assert "approximate" in document["exporter"] and "approximate" in error
    data = json.loads(out)
    assert data["refused_exports"] == [] and data["line_table"] is False
    sampled = document["profiles"][0]
    assert abs(sum(sampled["weights"]) - sum(f["self_fuel"] for f in data["functions"])) < 1


def test_an_unwritable_export_is_a_refusal_and_the_other_is_written(tmp_path, capsys):
    run, db = _graded(tmp_path, capsys)
    grind = tmp_path / "a.out"
    blocked = tmp_path / "missing" / "b.json"
    status = main(
        ["profile", run, "--callgrind", str(grind), "--speedscope", str(blocked), "--approximate", *db]
    )
    _, error = capsys.readouterr()
    assert status == EXIT_REFUSED and grind.exists() and "cannot write" in error


def test_approximate_without_speedscope_is_a_usage_error(tmp_path, capsys):
    run, db = _graded(tmp_path, capsys)
    assert main(["profile", run, "--approximate", *db]) == 2
