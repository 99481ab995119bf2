"""The status bar shows one message at a time: while grading shows its progress, another
message (a harness import's, the last run's verdict) steps aside instead of being drawn
under it, and comes back when grading ends, until its timeout."""

from __future__ import annotations

from .conftest import make_toy_case, write_submission

GRADE_TIMEOUT = 60_000


def visible_texts(window) -> list[str]:
    """The texts of the non-permanent status widgets on show."""
    bar = window.statusBar()
    texts = [bar.note.text()] if bar.note.isVisible() else []
    texts += [s.label.text() for s in (window.grading_status, window.batch_status) if s.isVisible()]
    return texts


def test_a_message_steps_aside_while_grading_shows_progress(qtbot, window, tmp_path):
    toy = make_toy_case(tmp_path / "slow", fuel_limit=10**12, wall_clock=60.0)
    spin = write_submission(tmp_path / "spin", "spin", model="spinner")
    window.open_case(toy.case_path)
    window.show()
    qtbot.waitExposed(window)
    window.statusBar().showMessage("Importing 3 harness runs…", 0)
    assert visible_texts(window) == ["Importing 3 harness runs…"]

    with qtbot.waitSignal(window.grading.run_created, timeout=GRADE_TIMEOUT):
        window.grade_submission(spin)
    qtbot.waitUntil(window.grading_status.isVisible, timeout=GRADE_TIMEOUT)
    shown = visible_texts(window)
    assert len(shown) == 1 and "spin" in shown[0]  # the progress alone
    assert window.statusBar().currentMessage() == "Importing 3 harness runs…"  # kept for later

    with qtbot.waitSignal(window.grading.idle, timeout=30_000):
        window.grading_status.cancel()
    qtbot.waitUntil(lambda: not window.grading_status.isVisible(), timeout=10_000)
    assert visible_texts(window) == ["Importing 3 harness runs…"]


def test_a_message_with_a_timeout_goes_by_itself(qtbot, window):
    window.show()
    window.statusBar().showMessage("Imported 3 harness runs", 50)
    assert visible_texts(window) == ["Imported 3 harness runs"]
    qtbot.waitUntil(lambda: visible_texts(window) == [], timeout=5_000)
