"""The command line's `export`, `runs --json` / `--all`, `hide`, `unhide` and `delete`, as
a user meets them: files written, JSON on stdout, mistakes as one line and exit 2."""

from __future__ import annotations

import csv
import io
import json

import pytest

from lattice_desktop.cli.main import main
from tests.core.wat_cases import ECHO, ECHO_CASES, SLOW_ECHO, write_case, write_submission


@pytest.fixture
def db(tmp_path, capsys):
    """Two graded runs (a fast and a slow echo) in a database file; its --db arguments."""
    case = write_case(tmp_path / "case", ECHO_CASES, fuel_limit=10_000_000)
    args = ["--db", str(tmp_path / "runs.db")]
    for model, wat in (("fast", ECHO), ("slow", SLOW_ECHO)):
        assert (
            main(
                [
                    "grade",
                    str(write_submission(tmp_path / model, wat, model=model)),
                    "--case",
                    str(case),
                    *args,
                ]
            )
            == 0
        )
    capsys.readouterr()
    return args


def _runs(db, capsys, *flags) -> list[dict]:
    assert main(["runs", "--json", *flags, *db]) == 0
    return json.loads(capsys.readouterr().out)


def test_runs_json_is_every_run_for_scripts(db, capsys):
    runs = _runs(db, capsys)
    assert [(r["run_id"], r["model"], r["verdict"], r["hidden"]) for r in runs] == [
        (2, "slow", "correct", False),
        (1, "fast", "correct", False),
    ]
    assert runs[1]["score"] < runs[0]["score"] and runs[0]["finished"]


def test_hiding_takes_a_run_out_of_the_field_until_it_is_shown(db, capsys):
    assert main(["hide", "1", *db]) == 0
    assert "hid 1 run" in capsys.readouterr().out
    assert [r["run_id"] for r in _runs(db, capsys)] == [2]
    assert [(r["run_id"], r["hidden"]) for r in _runs(db, capsys, "--all")] == [(2, False), (1, True)]
    assert main(["leaderboard", "echo", "--json", *db]) == 0
    assert [e["model"] for e in json.loads(capsys.readouterr().out)["entries"]] == ["slow"]
    assert main(["show", "2", "--json", *db]) == 0
    assert json.loads(capsys.readouterr().out)["standing"] == {"rank": 1, "of": 1, "percentile": 100.0}
    assert main(["runs", "--all", *db]) == 0
    assert "(hidden)" in capsys.readouterr().out
    assert main(["unhide", "1", *db]) == 0
    assert "1 run shown again" in capsys.readouterr().out
    assert main(["leaderboard", "echo", "--json", *db]) == 0
    assert [e["model"] for e in json.loads(capsys.readouterr().out)["entries"]] == ["fast", "slow"]


def test_delete_asks_for_yes_and_then_deletes_for_good(db, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # not a terminal: nobody to ask
    assert main(["delete", "1", *db]) == 2
    assert "add --yes" in capsys.readouterr().err
    assert len(_runs(db, capsys, "--all")) == 2
    assert main(["delete", "1", "--yes", *db]) == 0
    assert "deleted 1 run" in capsys.readouterr().out
    assert [r["run_id"] for r in _runs(db, capsys, "--all")] == [2]
    assert main(["delete", "1", "--yes", *db]) == 2
    assert "run 1 was deleted" in capsys.readouterr().err
    assert main(["hide", "7", *db]) == 2
    assert "there is no run 7" in capsys.readouterr().err


def test_export_writes_csv_and_html_files_and_csv_to_stdout(db, capsys, tmp_path):
    out_csv, out_html = tmp_path / "run.csv", tmp_path / "run.html"
    assert main(["export", "run", "2", "--csv", str(out_csv), "--html", str(out_html), *db]) == 0
    err = capsys.readouterr().err
    assert f"wrote run 2 as CSV to {out_csv}" in err and f"wrote run 2 as HTML to {out_html}" in err
    assert [r["name"] for r in csv.DictReader(io.StringIO(out_csv.read_text()))] == ["hello", "longer"]
    assert out_html.read_text().count("<svg") == 2
    assert main(["export", "leaderboard", "echo", "--csv", "-", *db]) == 0
    board = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["rank"], r["model"]) for r in board] == [("1", "fast"), ("2", "slow")]
    assert main(["export", "runs", "--html", str(tmp_path / "runs.html"), *db]) == 0
    assert "2 runs" in (tmp_path / "runs.html").read_text()


def test_export_mistakes_are_one_line_and_exit_2(db, capsys, tmp_path):
    assert main(["export", "run", "2", *db]) == 2
    assert "name a file to write with --csv FILE, --html FILE or both" in capsys.readouterr().err
    assert main(["export", "run", "99", "--csv", "-", *db]) == 2
    assert "there is no run 99" in capsys.readouterr().err
    assert main(["export", "leaderboard", "nosuch", "--csv", "-", *db]) == 2
    assert "no runs of a case named 'nosuch'" in capsys.readouterr().err
    assert main(["export", "runs", "--csv", str(tmp_path / "missing" / "r.csv"), *db]) == 2
    assert "cannot write the runs list" in capsys.readouterr().err
