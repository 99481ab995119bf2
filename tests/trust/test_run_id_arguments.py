"""Any run id on the command line ends in a usage error naming it, never in a crash (exit 4):
ids past SQLite's 2^63 - 1 used to raise OverflowError in `show`, `hide`, `unhide`, `delete`,
`profile` and `export run`; other scripts' digits ('٣') used to name a different run."""

from __future__ import annotations

import json

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.cli.run_ids import LARGEST_RUN_ID
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission

COMMANDS = [
    ["show"],
    ["hide"],
    ["unhide"],
    ["delete", "--yes"],
    ["profile"],
    ["export", "run", "--csv", "-"],
]
BAD_IDS = [
    str(LARGEST_RUN_ID + 1),  # the figure of the report: one past what SQLite binds
    str(2**64),
    "9" * 5001,  # past int()'s 4,300-digit limit
    "0",
    "-1",
    "٣",  # an Arabic-Indic three: int() reads 3
    "²",  # isdigit() says yes, int() says no
    "+1",
    " 1",
    "1_0",
]


def cli(argv: list[str]) -> int:
    """The exit status of one command, whether argparse or the command ends it."""
    try:
        return main(argv)
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else 1


@pytest.fixture
def stored_run(tmp_path, capsys) -> int:
    """The id of one real run of the echo case, graded and stored."""
    case = write_case(tmp_path / "case", ECHO_CASES)
    submission = write_submission(tmp_path / "sub", ECHO)
    assert cli(["grade", str(submission), "--case", str(case), "--json"]) == 0
    run_id = json.loads(capsys.readouterr().out)["run_id"]
    assert isinstance(run_id, int)
    return run_id


def stored_ids(capsys) -> list[int]:
    assert cli(["runs", "--all", "--json"]) == 0
    return [row["run_id"] for row in json.loads(capsys.readouterr().out)]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("bad", BAD_IDS, ids=lambda b: b[:24])
def test_a_bad_run_id_is_a_usage_error_naming_it(command, bad, stored_run, capsys):
    status = cli([*command, "--", bad])
    message = capsys.readouterr().err
    assert status == 2, message
    assert "Traceback" not in message and "internal error" not in message
    # The message names what was given (long ones shortened, with their length).
    shown = bad if len(bad) <= 40 else f"({len(bad)} characters)"
    assert shown in message
    assert stored_ids(capsys) == [stored_run]  # nothing hidden, deleted or otherwise touched


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_the_largest_id_is_looked_up_and_missing(command, stored_run, capsys):
    status = cli([*command, str(LARGEST_RUN_ID)])
    message = capsys.readouterr().err
    assert status == 2, message
    assert f"no run {LARGEST_RUN_ID}" in message


def test_a_good_id_still_names_its_run_with_leading_zeros(stored_run, capsys):
    assert cli(["show", "--json", f"00{stored_run}"]) == 0
    assert json.loads(capsys.readouterr().out)["run_id"] == stored_run
    assert cli(["hide", str(stored_run)]) == 0
    assert cli(["unhide", f"0{stored_run}"]) == 0
    capsys.readouterr()
    assert stored_ids(capsys) == [stored_run]
