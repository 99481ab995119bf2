"""The diagnosis on the Results tab (its links jump the Factory tab) and the Factory tab's
"Why?" trail, on the `buggy` sample (its first wrong case is a 3×3 smoke test)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QThreadPool

from benchmarks.divergence import trimmed_case
from lattice_desktop.lattice import build_engines
from lattice_desktop.lattice.answer_cache import ANSWERS
from lattice_desktop.lattice.explain.trail import ladder
from lattice_desktop.lattice.submission_records import ticks_held
from lattice_desktop.manifest import load_case
from lattice_desktop.manifest.submission import load_submission
from lattice_desktop.resources import demo_case
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.database import open_database
from lattice_desktop.store.queries import load_run
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.factory.tab import FactoryTab
from lattice_desktop.ui.results.diagnosis import DiagnosisPanel
from tests.core.wat_cases import ECHO_CASES, module_with_run_body, write_case, write_submission

BUGGY = build_engines.SUBMISSIONS_DIR / "buggy"


@pytest.fixture
def graded(tmp_path):
    case = load_case(demo_case())
    writer = Writer(open_database(tmp_path / "runs.db"))
    stored = grade_and_store(case, load_submission(BUGGY), writer=writer)
    writer.close()
    return case, load_run(stored.run_id)


def test_the_results_diagnosis_names_the_rule_and_its_links_name_a_place(qtbot, graded):
    _, run = graded
    panel = DiagnosisPanel()
    qtbot.addWidget(panel)
    panel.show_run(run)
    assert not panel.isHidden() and "finding the first wrong tick" in panel.label.text()
    assert not panel.done
    qtbot.waitUntil(lambda: panel.done, timeout=60000)
    d = panel.diagnosis
    assert d.rules[0].rule == "side_load_priority"
    text = panel.label.text()
    assert "Likely rule" in text and "side_load_priority" in text and "§4c" in text
    assert "Most likely broken" not in text  # the rule is named once, not again in a summary
    evidence = d.rules[0].evidence[0]
    with qtbot.waitSignal(panel.place_chosen) as chosen:
        panel._link(f"place:{d.case}:{evidence.tick}:{evidence.cell[0]}:{evidence.cell[1]}")
    assert chosen.args == [d.case, evidence.tick, evidence.cell[0], evidence.cell[1]]
    panel.show_run(None)
    assert panel.isHidden()


def test_why_traces_a_differing_cell_and_a_results_link_jumps_the_factory_tab(qtbot, graded):
    case, run = graded
    tab = FactoryTab()
    qtbot.addWidget(tab)
    tab.resize(1000, 700)
    tab.show()
    tab.show_run(run, case)
    try:
        qtbot.waitUntil(
            lambda: tab.divergence is not None and tab.navigator.diff_tick == tab.divergence.tick,
            timeout=60000,
        )
        qtbot.waitUntil(lambda: bool(tab.navigator.marked), timeout=30000)
        cell = sorted(tab.navigator.marked)[0]
        tab.why.why(cell)
        qtbot.waitUntil(tab.why.overlay.isVisible, timeout=30000)
        steps = tab.why.overlay.steps
        assert steps[-1].origin and steps[-1].tick == tab.divergence.tick
        last = tab.why.panel.item(tab.why.panel.count() - 1)
        assert last.text().startswith("◎ tick")
        # A cell that agrees is refused with a message, not traced.
        agreeing = next(c for c in range(tab.playback.scenario.cells) if c not in tab.navigator.marked)
        tab.why.why(agreeing)
        assert "agrees with the reference" in tab.why.panel.item(0).text()
        # The Results tab's link: another case, a tick, a cell.
        tab.why.go_to("side_load_priority", 1, 1, 1)
        qtbot.waitUntil(lambda: tab.tick == 1, timeout=30000)
        assert tab.canvas.focus.isVisible()
    finally:
        tab.shutdown()
        QThreadPool.globalInstance().waitForDone(30000)


def test_a_wrong_run_of_a_case_that_is_not_a_factory_shows_no_diagnosis(qtbot, tmp_path):
    case = load_case(write_case(tmp_path / "case", ECHO_CASES))
    wrong = write_submission(tmp_path / "wrong", module_with_run_body("(i64.const 0x0000040000000002)"))
    writer = Writer(open_database(tmp_path / "runs.db"))
    stored = grade_and_store(case, load_submission(wrong), writer=writer)
    writer.close()
    run = load_run(stored.run_id)
    assert any(r.mismatch is not None for r in run.results)
    panel = DiagnosisPanel()
    qtbot.addWidget(panel)
    panel.show_run(run)
    qtbot.waitUntil(panel.isHidden, timeout=30000)
    assert panel.diagnosis is None


def test_the_why_panel_wraps_each_step_to_its_width_at_1366_by_768(qtbot, graded):
    """A step's sentence is longer than the panel is wide: it wraps, every row is in view,
    and nothing scrolls sideways."""
    case, run = graded
    tab = FactoryTab()
    qtbot.addWidget(tab)
    tab.resize(1366 - 440, 768 - 200)  # the window's share left of the runs list, below the header
    tab.show()
    tab.show_run(run, case)
    try:
        qtbot.waitUntil(lambda: bool(tab.navigator.marked), timeout=60000)
        tab.why.why(sorted(tab.navigator.marked)[0])
        qtbot.waitUntil(tab.why.overlay.isVisible, timeout=30000)
        qtbot.waitUntil(lambda: not tab.why.busy, timeout=30000)
        panel = tab.why.panel
        texts = [panel.item(i).text() for i in range(panel.count())]
        assert any(panel.fontMetrics().horizontalAdvance(t) > panel.viewport().width() for t in texts)
        assert panel.horizontalScrollBar().maximum() == 0
        for i in range(panel.count()):
            rect = panel.visualItemRect(panel.item(i))
            assert rect.right() <= panel.viewport().width() and rect.bottom() <= panel.viewport().height()
    finally:
        tab.shutdown()
        QThreadPool.globalInstance().waitForDone(30000)


def test_ticks_past_the_first_wrong_one_are_fetched_ahead_so_a_first_why_runs_nothing_more(qtbot, graded):
    case, run = graded
    tab = FactoryTab()
    qtbot.addWidget(tab)
    tab.resize(1000, 700)
    tab.show()
    tab.show_run(run, case)
    try:
        qtbot.waitUntil(
            lambda: tab.divergence is not None and tab.navigator.diff_tick == tab.divergence.tick,
            timeout=60000,
        )
        found, playback, sub = tab.divergence, tab.playback, tab.navigator.submission
        later = min(playback.ticks, found.tick + 12)
        rungs = ladder(found.agreed, later)
        missing = set(rungs) - set(ticks_held(sub, playback.data, rungs))  # none, in a fresh cache
        assert len(rungs) >= 4
        with qtbot.waitSignal(tab.why.fetched_ahead, timeout=60000) as fetched:
            tab.show_tick(later)
        assert fetched.args == [len(missing)]  # one run a rung not held yet
        assert ticks_held(sub, playback.data, rungs) == rungs
        qtbot.waitUntil(
            lambda: tab.navigator.diff_tick == later and bool(tab.navigator.marked), timeout=30000
        )
        answers = set(ANSWERS.path.iterdir())
        tab.why.why(sorted(tab.navigator.marked)[-1])
        qtbot.waitUntil(tab.why.overlay.isVisible, timeout=30000)
        assert tab.why.overlay.steps[-1].origin
        assert set(ANSWERS.path.iterdir()) == answers  # the trail ran the submission not once
    finally:
        tab.shutdown()
        QThreadPool.globalInstance().waitForDone(30000)


def test_at_the_first_wrong_tick_the_ladder_toward_the_divergent_snapshot_is_fetched_at_once(qtbot, tmp_path):
    """stuck_rings on stress-64: the snapshot at tick 60 differs, the first wrong tick is
    long before it. Shown that tick, the tab fetches the submission's records between the two
    at once, so a first Why? back at the snapshot (where the reviewer came from) runs nothing."""
    case = load_case(trimmed_case(tmp_path / "case", stress="stress-64"))
    writer = Writer(open_database(tmp_path / "runs.db"))
    stored = grade_and_store(
        case, load_submission(build_engines.SUBMISSIONS_DIR / "stuck_rings"), writer=writer
    )
    writer.close()
    tab = FactoryTab()
    qtbot.addWidget(tab)
    tab.resize(1000, 700)
    tab.show()
    fetches: list[int] = []
    tab.why.fetched_ahead.connect(fetches.append)
    tab.show_run(load_run(stored.run_id), case)
    try:
        qtbot.waitUntil(
            lambda: tab.divergence is not None and tab.navigator.diff_tick == tab.divergence.tick,
            timeout=60000,
        )
        found, playback, sub = tab.divergence, tab.playback, tab.navigator.submission
        snapshot = tab.snapshots.tick(tab.snapshots.first_divergence)
        toward = ladder(found.agreed, snapshot)
        assert len(toward) >= 4 and tab.tick == found.tick < snapshot
        qtbot.waitUntil(lambda: len(fetches) == 1, timeout=60000)
        assert 0 < fetches[0] <= len(toward)  # the search may have read some of them already
        assert ticks_held(sub, playback.data, toward) == toward
        tab.show_tick(snapshot)
        qtbot.waitUntil(
            lambda: tab.navigator.diff_tick == snapshot and bool(tab.navigator.marked), timeout=30000
        )
        answers = set(ANSWERS.path.iterdir())
        tab.why.why(sorted(tab.navigator.marked)[-1])
        qtbot.waitUntil(tab.why.overlay.isVisible, timeout=30000)
        qtbot.waitUntil(lambda: not tab.why.busy, timeout=30000)
        assert tab.why.overlay.steps[-1].origin
        assert set(ANSWERS.path.iterdir()) == answers  # the trail ran the submission not once
    finally:
        tab.shutdown()
        QThreadPool.globalInstance().waitForDone(30000)
