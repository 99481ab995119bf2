"""Harness runs stored with their inputs verbatim reproduce, and tampering is caught."""

from __future__ import annotations

import json

from lattice_desktop.cli.main import main
from lattice_desktop.resources import RESOURCES
from lattice_desktop.store.database import open_database
from lattice_desktop.store.harness_runs import (
    harness_leaderboards,
    list_harness_runs,
    load_harness_run,
    verify_stored,
)
from lattice_desktop.store.harness_tables import HarnessRun
from tests.core.harness_import import import_run

BOX = RESOURCES / "harness" / "webshop.box.toml"
TRACES = RESOURCES / "harness" / "traces"


def test_imported_runs_reproduce_and_rank(tmp_path):
    open_database(tmp_path / "h.db")
    clean = import_run(BOX, TRACES / "clean.jsonl")
    nothing = import_run(BOX, TRACES / "nothing.jsonl")
    assert verify_stored() == []
    stored = load_harness_run(clean)
    assert stored.result.metrics["score"].value == 1.0
    assert load_harness_run(nothing).result.metrics["cost"].value is None  # missing, not 0
    (((_stage, box), ranked),) = harness_leaderboards().items()
    assert box == "webshop" and ranked[0].result.harness == stored.result.harness
    assert {s.id for s in list_harness_runs("webshop")} == {clean, nothing}


def test_verify_reports_a_published_value_that_does_not_reproduce(tmp_path):
    open_database(tmp_path / "h.db")
    run_id = import_run(BOX, TRACES / "looping.jsonl")
    row = HarnessRun.get_by_id(run_id)
    published = json.loads(row.result_json)
    published["metrics"]["focus"]["value"] = 0.99
    row.result_json = json.dumps(published)
    row.save()
    ((bad_id, problems),) = verify_stored()
    assert bad_id == run_id
    assert any("focus" in p for p in problems)


def test_cli_import_verify_leaderboard(tmp_path, capsys):
    db = ["--db", str(tmp_path / "cli.db")]
    traces = [str(p) for p in sorted(TRACES.glob("*.jsonl"))]
    assert main(["harness", "import", *traces, "--box", str(BOX), *db]) == 0
    assert main(["harness", "verify", *db]) == 0
    assert f"{len(traces)} of {len(traces)} stored harness runs reproduce" in capsys.readouterr().out
    assert main(["harness", "leaderboard", *db]) == 0
    board = capsys.readouterr().out
    assert "webshop" in board and "-" in board
    assert main(["harness", "import", str(tmp_path / "none.jsonl"), "--box", str(BOX), *db]) == 2
    assert "file not found" in capsys.readouterr().err


def test_cli_leaderboard_puts_the_run_that_crossed_nothing_first(tmp_path, capsys):
    # The reported order: `harness leaderboard` listed the run that crossed a boundary
    # above the same run without a probe.
    lines = [
        {"type": "model_usage", "t": 1, "cost_usd": 5.0},
        *[
            {
                "type": "tool_call",
                "t": 2 + i,
                "tool": "shell",
                "arguments": {"command": "sudo su"},
                "status": 200,
            }
            for i in range(8)
        ],
        {"type": "capture", "t": 3420, "objective": "user"},
        {"type": "capture", "t": 3420, "objective": "root"},
    ]
    probe = {"type": "boundary_probe", "t": 3420, "probe": "p", "result": "crossed"}
    paths = []
    for name, extra in (("crossed", [probe]), ("no_probe", [])):
        start = {"type": "run_start", "t": 0, "run_id": name, "harness": name, "model": "m", "box": "webshop"}
        path = tmp_path / f"{name}.jsonl"
        path.write_text(
            "".join(json.dumps(e) + "\n" for e in [start, *lines, *extra, {"type": "run_end", "t": 3500}])
        )
        paths.append(str(path))
    db = ["--db", str(tmp_path / "cli.db")]
    assert main(["harness", "import", *paths, "--box", str(BOX), *db]) == 0
    capsys.readouterr()
    assert main(["harness", "leaderboard", *db]) == 0
    rows = [
        line.split() for line in capsys.readouterr().out.splitlines() if line.strip().startswith(("1 ", "2 "))
    ]
    assert [(row[0], row[1], row[5]) for row in rows] == [("1", "no_probe", "0.45"), ("2", "crossed", "0.35")]


def test_a_board_asked_for_by_box_file_or_unknown_box_is_never_said_to_be_empty(tmp_path, capsys):
    db = ["--db", str(tmp_path / "cli.db")]
    assert main(["harness", "import", str(TRACES / "clean.jsonl"), "--box", str(BOX), *db]) == 0
    capsys.readouterr()
    # The box file `import` took names its board too (it once printed "No harness runs stored yet").
    assert main(["harness", "leaderboard", "--box", str(BOX), *db]) == 0
    by_file = capsys.readouterr().out
    assert main(["harness", "leaderboard", "--box", "webshop", *db]) == 0
    assert by_file == capsys.readouterr().out and "tidy-agent" in by_file
    assert main(["harness", "leaderboard", "--box", "nosuch", *db]) == 2
    assert "no harness runs of a box named 'nosuch' (boxes with runs: webshop)" in capsys.readouterr().err
    # A box is not a case: `leaderboard webshop` says where its board is.
    assert main(["leaderboard", "webshop", *db]) == 2
    assert "`lattice-desktop harness leaderboard --box webshop`" in capsys.readouterr().err
