"""A stored profile row is checked when it is read: a row that does not hold together (wrong
types, deep nesting, totals that disagree with each other or with the graded fuel) is made
again or refused, never printed as exact; and any export file name is a clear error or works."""

from __future__ import annotations

import json

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.profile.stored_form import BadProfile
from lattice_desktop.store.database import open_database
from lattice_desktop.store.profiles import ProfileRecord, load_profile
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
"""


@pytest.fixture
def profiled(tmp_path, capsys):
    """A graded run whose profile on `big` is stored: (db args, run id, the profile's JSON)."""
    case = write_case(tmp_path / "case", CASES, fuel_limit=10_000_000)
    sub = write_submission(tmp_path / "sub", CONTROL_FLOW)
    db = ["--db", str(tmp_path / "db")]
    assert main(["grade", str(sub), "--case", str(case), "--json", *db]) == 0
    run_id = str(json.loads(capsys.readouterr().out)["run_id"])
    assert main(["profile", run_id, "--json", *db]) == 0
    return db, run_id, json.loads(capsys.readouterr().out)


def _tamper(db_path: str, change) -> None:
    """Rewrite the one stored profile row's `data` with `change(data_text)`."""
    database = open_database(db_path)
    try:
        row = ProfileRecord.get()
        row.data = change(row.data)
        row.save()
    finally:
        database.close()


def _edit(**fields):
    def change(text: str) -> str:
        data = json.loads(text)
        data.update(fields)
        return json.dumps(data)

    return change


def _self_fuel_plus_one(text: str) -> str:
    data = json.loads(text)
    data["functions"][0]["self_fuel"] += 1
    return json.dumps(data)


def _deep(text: str) -> str:
    return "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    "change",
    [
        lambda _: "5",
        lambda _: '"x"',
        _edit(total="lots"),
        _edit(functions=5),
        _edit(functions=[{"index": "a"}]),
        _edit(edges=[[1, 2]]),
        _edit(outcome=["returned"]),
        _edit(total=-1),
        _deep,
        lambda _: "{" * 100_000,
        _self_fuel_plus_one,
        _edit(total=1),
    ],
    ids=[
        "data-5",
        "data-x",
        "total-lots",
        "functions-5",
        "function-field-type",
        "edge-list",
        "outcome-list",
        "negative-total",
        "deep-json",
        "deep-unclosed",
        "self-fuel-changed",
        "total-changed",
    ],
)
def test_a_tampered_row_is_made_again_and_printed_exact(profiled, capsys, change):
    db, run_id, before = profiled
    _tamper(db[1], change)
    assert main(["profile", run_id, "--json", *db]) == 0
    after = json.loads(capsys.readouterr().out)
    assert after["total_fuel"] == after["graded_fuel"] == before["graded_fuel"]
    assert after["functions"] == before["functions"]
    assert sum(f["self_fuel"] for f in after["functions"]) == after["total_fuel"]
    assert main(["profile", run_id, *db]) == 0
    assert "(exact)" in capsys.readouterr().out.splitlines()[0]


def test_a_row_that_disagrees_with_itself_is_never_read_as_a_profile(profiled):
    db, _, before = profiled
    _tamper(db[1], _self_fuel_plus_one)
    database = open_database(db[1])
    try:
        key = (before["module_sha256"], before["case_hash"], before["case"], before["wasmtime_version"])
        assert ProfileRecord.select().count() == 1
        with pytest.raises(BadProfile, match=r"self fuel adds up to|contradict"):
            load_profile(*key)
    finally:
        database.close()


@pytest.mark.parametrize(
    "name",
    ["out\udcff.callgrind", "out\ud800.callgrind", "\u202eout.callgrind", "out\\u202e.callgrind"],
    ids=["surrogate-escape", "lone-surrogate", "rtl-override", "backslash-u"],
)
def test_any_export_name_works_or_is_a_clear_error(profiled, tmp_path, capsys, name):
    db, run_id, _ = profiled
    code = main(["profile", run_id, "--callgrind", str(tmp_path / name), *db])
    captured = capsys.readouterr()
    assert code in (0, 6), captured.err  # 6: profiled, the export refused with its reason
    assert "Traceback" not in captured.err
    if code == 6:
        assert "callgrind" in captured.err or "cannot write" in captured.err
    else:
        assert any(p.name.endswith(".callgrind") for p in tmp_path.iterdir())
