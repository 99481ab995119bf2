"""The command line as a user meets it: exit codes, tables, JSON, errors on stderr."""

from __future__ import annotations

import json

from lattice_desktop.cli.main import main
from tests.core.wat_cases import (
    ECHO,
    ECHO_CASES,
    SLOW_ECHO,
    module_with_run_body,
    write_case,
    write_submission,
)


def test_grade_prints_sections_verdict_and_standing(tmp_path, capsys):
    case = write_case(tmp_path / "case", ECHO_CASES)
    sub = write_submission(tmp_path / "sub", ECHO, model="cli-model")
    assert main(["grade", str(sub), "--case", str(case), "--db", str(tmp_path / "db")]) == 0
    out, err = capsys.readouterr()
    assert out.index("Smoke tests (correctness only)") < out.index("Stress cases")
    assert "✓ correct" in out and "#1 of 1 · 100th percentile" in out
    assert "[2/2]" in err  # progress goes to stderr


def test_exit_codes_tell_over_ceiling_and_incorrect(tmp_path, capsys):
    case = write_case(tmp_path / "case", ECHO_CASES, fuel_limit=10_000)
    slow = write_submission(tmp_path / "slow", SLOW_ECHO)
    wrong = write_submission(tmp_path / "wrong", module_with_run_body("(i64.const 0)"))
    db = ["--db", str(tmp_path / "db")]
    assert main(["grade", str(slow), "--case", str(case), *db]) == 3
    assert main(["grade", str(wrong), "--case", str(case), *db]) == 1
    out = capsys.readouterr().out
    assert "Smoke test hello failed — stress cases skipped (counted failed)" in out


def test_grade_json_is_machine_readable(tmp_path, capsys):
    case = write_case(tmp_path / "case", ECHO_CASES)
    sub = write_submission(tmp_path / "sub", ECHO)
    assert main(["grade", str(sub), "--case", str(case), "--json", "--db", str(tmp_path / "db")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "correct"
    assert [r["name"] for r in data["results"]] == ["hello", "longer"]
    assert data["score"] == data["results"][1]["fuel"]
    assert data["standing"] == {"rank": 1, "of": 1, "percentile": 100.0}


def test_bad_manifest_lists_its_problems_on_stderr_with_usage_exit(tmp_path, capsys):
    case = write_case(tmp_path / "case", ECHO_CASES.replace("kind", "knd", 1))
    sub = write_submission(tmp_path / "sub", ECHO)
    assert main(["grade", str(sub), "--case", str(case), "--db", str(tmp_path / "db")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-3] == f"error: 2 problems in {case}:"  # one mistake, seen from both sides
    assert "unknown key 'knd'" in err[-2] and "missing key 'kind'" in err[-1]
    assert all(line.startswith(f"  {case}:") for line in err[-2:]) and "Traceback" not in "\n".join(err)


def test_runs_show_and_leaderboard(tmp_path, capsys):
    case = write_case(tmp_path / "case", ECHO_CASES)
    db = ["--db", str(tmp_path / "db")]
    for model in ("m1", "m2"):
        main(
            [
                "grade",
                str(write_submission(tmp_path / model, ECHO if model == "m1" else SLOW_ECHO, model=model)),
                "--case",
                str(case),
                *db,
            ]
        )
    capsys.readouterr()
    assert main(["runs", *db]) == 0
    out = capsys.readouterr().out
    assert "m1" in out and "m2" in out
    assert main(["show", "1", *db]) == 0
    assert "Smoke tests" in capsys.readouterr().out
    assert main(["leaderboard", "echo", "--json", *db]) == 0
    board = json.loads(capsys.readouterr().out)
    assert [e["model"] for e in board["entries"]] == ["m1", "m2"]
    assert board["entries"][1]["ratio"] > 1
    assert main(["show", "99", *db]) == 2
    assert "there is no run 99" in capsys.readouterr().err


def test_missing_submission_is_a_usage_error(tmp_path, capsys):
    assert main(["grade", str(tmp_path / "nowhere"), "--case", "x"]) == 2
    assert "file not found" in capsys.readouterr().err


def test_bad_arguments_are_usage_errors_not_empty_answers(tmp_path, capsys):
    import pytest

    db = ["--db", str(tmp_path / "db")]
    case = write_case(tmp_path / "case", ECHO_CASES)
    main(["grade", str(write_submission(tmp_path / "m", ECHO)), "--case", str(case), *db])
    capsys.readouterr()
    assert main(["leaderboard", "nosuch", *db]) == 2
    assert "no runs of a case named 'nosuch' (cases with runs: echo)" in capsys.readouterr().err
    for argv in (["runs", "--verdict", "bogus"], ["grade", "x", "--workers", "0"]):
        with pytest.raises(SystemExit) as info:
            main([*argv, *db])
        assert info.value.code == 2
    assert main(["runs", "--case", "nosuch", *db]) == 0
    assert "No runs match those filters." in capsys.readouterr().out
