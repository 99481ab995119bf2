"""A run's status is shown everywhere it appears (issue 20.5), and a trace over the old
undocumented 64 MiB limit is scored and imported (issue 20.7)."""

from __future__ import annotations

import json
import shutil

import pytest
from harness_builders import BOX_PATH, capture, jsonl, shell, usage

from lattice_desktop.cli.main import main
from lattice_desktop.harness.trace_file import MAX_TRACE_BYTES


def cancelled_trace(tmp_path, name="cancelled"):
    text = jsonl([shell(1, "id"), usage(2, 0.1), capture(3, "user")], run_id=name, harness=name)
    lines = text.splitlines()
    end = json.loads(lines[-1])
    lines[-1] = json.dumps({**end, "status": "cancelled", "reason": "cancelled by the operator"})
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_cli_score_and_leaderboard_show_the_status(tmp_path, capsys):
    path = cancelled_trace(tmp_path)
    assert main(["harness", "score", str(path), "--box", str(BOX_PATH)]) == 0
    assert "status cancelled; not ranked: the run ended with status cancelled" in capsys.readouterr().out
    db = ["--db", str(tmp_path / "h.db")]
    assert main(["harness", "import", str(path), "--box", str(BOX_PATH), *db]) == 0
    stored_id = capsys.readouterr().out.split()[-1]
    assert main(["harness", "leaderboard", *db]) == 0
    board = capsys.readouterr().out
    assert f"cancelled / m: run {stored_id} (cancelled), status cancelled, not ranked" in board
    assert "the best epoch counts" in board


def test_the_app_s_run_page_shows_the_status(tmp_path, qtbot):
    from lattice_desktop.services.harness_import import import_traces
    from lattice_desktop.store.database import open_database
    from lattice_desktop.store.pages import load_harness_page
    from lattice_desktop.store.writer import Writer
    from lattice_desktop.ui.harness.results import HarnessResultsTab

    writer = Writer(open_database(tmp_path / "h.db"))
    try:
        (stored,) = import_traces(writer, BOX_PATH, [cancelled_trace(tmp_path)]).stored
    finally:
        writer.close()
    tab = HarnessResultsTab()
    qtbot.addWidget(tab)
    tab.show_page(load_harness_page(stored))
    text = tab.summary.text()
    assert "not ranked</b>: the run ended with status cancelled" in text
    assert "Status <b>cancelled</b>" in text


@pytest.fixture(scope="module")
def big_trace(tmp_path_factory):
    """100,000 events padded to ~700 bytes each (an unknown field, kept verbatim): 70 MB,
    written once for both commands (they only read it) and deleted after them."""
    folder = tmp_path_factory.mktemp("big-trace")
    pad = "x" * 660
    events = [shell(1 + i * 0.001, f"ls /d{i % 5000}", 404, pad=pad) for i in range(100_000)]
    path = folder / "big.jsonl"
    path.write_text(jsonl([*events, capture(200, "user")]))
    yield path
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("command", ["score", "import"])
def test_a_trace_over_64_mib_is_read(tmp_path, capsys, command, big_trace):
    path = big_trace
    assert 64 * 1024 * 1024 < path.stat().st_size < MAX_TRACE_BYTES
    args = ["harness", command, str(path), "--box", str(BOX_PATH)]
    if command == "import":
        args += ["--db", str(tmp_path / "big.db")]
    assert main(args) == 0, capsys.readouterr().err
    assert ("stored harness run 1" if command == "import" else "Score") in capsys.readouterr().out
