"""Issue 36 items 2 and 3 in the app: with copies of `lattice` shipped by a submission and
graded last (at the bundled version and at a version never published), the app opens on the
real case's board, lists the copies' boards after it, labelled, and labels them in the runs
list, the header and Results."""

from __future__ import annotations

import pytest

from lattice_desktop.ui.window.tabs import LEADERBOARD
from tests.core.case_probe import BUNDLED, NEVER, SAME, UNPUBLISHED, Probe, build_probe
from tests.core.test_case_identity import notes
from tests.ui.test_leaderboard_tab import board_ready


@pytest.fixture
def probe(tmp_path) -> Probe:
    return build_probe(tmp_path / "probe")


@pytest.fixture
def db_path(probe):
    return probe.db


def items(picker) -> list[str]:
    return [picker.itemText(i) for i in range(picker.count())]


def shown_board(qtbot, tab) -> list[str]:
    board_ready(qtbot, tab.window())
    return [e.model for e in tab.fuel_model.board.entries]


def test_the_app_opens_on_the_registered_board_and_lists_the_copies_after_it(qtbot, probe, make_window):
    window = make_window(auto_demo=True)  # a returning user: the app opens a run by itself
    qtbot.waitUntil(lambda: window.page is not None, timeout=10_000)
    assert window.page.run.summary.model == "sample-lines"  # not the copy graded last
    tab = window.leaderboard_tab
    window.tabs.setCurrentIndex(LEADERBOARD)
    assert shown_board(qtbot, tab) == ["sample-lines"]
    assert "unregistered" not in tab.scope_note.text()
    assert items(tab.case_picker)[0] == "lattice"
    # the registered version first
    assert items(tab.version_picker) == [str(BUNDLED), f"{UNPUBLISHED} — unregistered"]
    said = notes(probe)
    assert items(tab.content_picker) == [f"registered {probe.real[:12]}", said[SAME]]

    tab.content_picker.setCurrentIndex(1)
    qtbot.waitUntil(lambda: shown_board(qtbot, tab) == [SAME], timeout=10_000)
    assert said[SAME] in tab.scope_note.text()
    tab.version_picker.setCurrentIndex(1)
    qtbot.waitUntil(lambda: shown_board(qtbot, tab) == [NEVER], timeout=10_000)
    assert items(tab.content_picker) == [said[NEVER]]
    assert said[NEVER] in tab.scope_note.text()


def test_the_runs_list_header_and_results_label_each_copy(qtbot, probe, make_window):
    window = make_window()
    said = notes(probe)
    groups = [window.runs_panel.model.index(r, 0).data() for r in range(window.runs_panel.model.rowCount())]
    assert f"lattice {BUNDLED}/standard" in groups
    assert f"lattice {BUNDLED}/standard · {said[SAME]}" in groups  # a group of its own
    assert f"lattice {UNPUBLISHED}/standard · {said[NEVER]}" in groups
    for model in (SAME, NEVER):
        with qtbot.waitSignal(window.page_shown, timeout=10_000):
            window.open_run(probe.run_ids[model])
        assert "unregistered case, ranked apart" in window.header.standing.text()
        assert said[model] in window.header.standing.toolTip()
        assert said[model] in window.results_tab.summary.text()
    with qtbot.waitSignal(window.page_shown, timeout=10_000):
        window.open_run(probe.run_ids["sample-lines"])
    assert "unregistered" not in window.header.standing.text() + window.results_tab.summary.text()
