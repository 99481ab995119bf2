"""A run id is used only by a stored run, and a command given an id it cannot take says
what that run is and what can be done with it: "run 3 is a harness run; profile takes
graded runs", not "there is no run 3" while `show 3` prints it."""

from __future__ import annotations

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.resources import RESOURCES
from tests.core.test_build_failed_verdict import failing_submission
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission

TRACE = RESOURCES / "harness" / "traces" / "clean.jsonl"
BOX = RESOURCES / "harness" / "webshop.box.toml"


@pytest.fixture
def mixed(tmp_path, capsys):
    """A graded run (1) and a harness run (2); the --db arguments and the case."""
    db = ["--db", str(tmp_path / "runs.db")]
    case = str(write_case(tmp_path / "case", ECHO_CASES))
    assert main(["grade", str(write_submission(tmp_path / "a", ECHO)), "--case", case, *db]) == 0
    assert main(["harness", "import", str(TRACE), "--box", str(BOX), *db]) == 0
    capsys.readouterr()
    return db, case


def _error(capsys, *argv) -> str:
    assert main(list(argv)) == 2
    return capsys.readouterr().err


def test_a_grade_stopped_by_a_usage_error_uses_up_no_run_id(mixed, capsys, tmp_path):
    db, case = mixed
    # Once this took run id 3 and `show 3` called it "deleted".
    err = _error(capsys, "grade", str(failing_submission(tmp_path / "broken")), "--case", case, *db)
    assert "--build" in err
    err = _error(capsys, "show", "3", *db)
    assert "deleted" not in err and "there is no run 3" in err
    assert main(["grade", str(write_submission(tmp_path / "b", ECHO)), "--case", case, *db]) == 0
    assert "run 3" in capsys.readouterr().out  # the next stored run takes the id


def test_profile_and_compare_say_a_harness_run_is_one(mixed, capsys):
    db, _case = mixed
    for argv in (["profile", "2"], ["compare", "2", "1"], ["compare", "1", "2"]):
        err = _error(capsys, *argv, *db)
        assert "run 2 is a harness run" in err, (argv, err)
        assert f"{argv[0]} takes graded runs" in err and "show 2" in err, err
        assert "there is no run" not in err


def test_an_id_never_given_and_a_deleted_one_are_told_apart_by_every_command(mixed, capsys):
    db, _case = mixed
    assert main(["delete", "2", "--yes", *db]) == 0
    capsys.readouterr()
    for command in (
        ["show"],
        ["hide"],
        ["unhide"],
        ["delete", "--yes"],
        ["export", "run", "--csv", "-"],
        ["profile"],
    ):
        gone = _error(capsys, *command[:2], "2", *command[2:], *db)
        assert "run 2 was deleted" in gone, (command, gone)
        never = _error(capsys, *command[:2], "9", *command[2:], *db)
        assert "there is no run 9" in never and "the largest run id is 2" in never, (command, never)
    assert "run 2 was deleted" in _error(capsys, "compare", "1", "2", *db)
