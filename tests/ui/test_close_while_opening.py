"""Closing the window while a scenario file of a billion ticks opens: the opening's reference
run is cancelled with the window, so the app exits at once instead of waiting for it (it
used to freeze the window for 30 s and leave the process running for minutes)."""

from __future__ import annotations

from lattice_desktop.ui.common import tasks

# 89 bytes, a billion ticks: its reference run would take far longer than any test.
BILLION_TICKS = (
    b"lattice 1\nsize 3 3\nticks 1000000000\nsnapshot 1000000\nsource 0 2 N 18 15\ngrid\n^..\n^..\nS..\n"
)


def test_closing_while_a_billion_tick_scenario_opens_cancels_its_run(window, qtbot, tmp_path, capfd):
    path = tmp_path / "long.lat"
    path.write_bytes(BILLION_TICKS)
    window.open_paths([path])
    opening = window.factory_tab._open_query
    qtbot.waitUntil(lambda: opening.busy, timeout=10_000)
    pending = list(opening._pending.values())
    assert pending and all(req.work is not None for req in pending)  # the opening can be cancelled

    window.close()

    assert all(req.work.cancelled for req in pending)
    # The uncancelled run would hold a pool thread for minutes; cancelled, it ends at once.
    assert tasks.pool().waitForDone(60_000)
    assert "Traceback" not in capfd.readouterr().err
