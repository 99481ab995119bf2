"""The Profile tab in the main window, on a real database: it profiles the open run when
shown, matches the graded fuel, sorts, shows callers and callees, compares with the Fuel
tab's choice, and opens the stored profile the second time without running anything."""

from __future__ import annotations

from PySide6.QtCore import Qt

from lattice_desktop.store.database import open_database
from lattice_desktop.store.profiles import ProfileRecord
from lattice_desktop.store.queries import load_run
from lattice_desktop.ui.common.delegates import SORT_ROLE
from lattice_desktop.ui.profile.models import INDEX_ROLE


def _open(qtbot, window, run_id):
    window.open_run(run_id)
    qtbot.waitUntil(lambda: window.page is not None and window.page.run.id == run_id, timeout=10_000)


def _profile_tab(window):
    tab = window.profile_tab
    window.tabs.setCurrentWidget(tab)
    return tab


def test_profile_tab_profiles_compares_and_reopens(qtbot, window, graded, db_path, monkeypatch):
    window.show()
    _open(qtbot, window, graded["bytewise"])
    tab = _profile_tab(window)
    qtbot.waitUntil(lambda: tab.profile is not None, timeout=60_000)
    big = next(r for r in load_run(graded["bytewise"]).results if r.name == "big")
    assert tab.case_name() == "big"
    assert tab.profile.total == big.fuel == tab.profile.graded_fuel
    assert "= graded, exactly" in tab.summary.text()
    assert tab.stack.currentIndex() == 1 and tab.chart.bars

    names = [tab.sorted.index(r, 0).data() for r in range(tab.sorted.rowCount())]
    assert set(names) == {"alloc", "run"}
    tab.table.sortByColumn(4, Qt.SortOrder.AscendingOrder)  # calls
    calls = [tab.sorted.index(r, 4).data(SORT_ROLE) for r in range(tab.sorted.rowCount())]
    assert calls == sorted(calls)
    run_row = next(r for r in range(tab.sorted.rowCount()) if tab.sorted.index(r, 0).data() == "run")
    tab.table.selectRow(run_row)
    assert [tab.callers.index(r, 0).data() for r in range(tab.callers.rowCount())] == ["(host)"]
    assert tab.chart.selected == tab.sorted.index(run_row, 0).data(INDEX_ROLE)

    # Compare with the cheaper echo run, chosen in the Fuel tab: a second chart, a Δ column.
    fuel_box = window.fuel_tab.compare_box
    qtbot.waitUntil(lambda: fuel_box.findData(graded["echo"]) >= 0, timeout=10_000)
    window.fuel_tab.compare_with(graded["echo"])
    qtbot.waitUntil(lambda: tab.other is not None, timeout=60_000)
    assert tab.functions.columns[-1] == "Δ self"
    assert tab.other_chart.isVisible() and tab.other_chart.scale == tab.profile.total
    assert tab.profile.total > tab.other.total
    delta = tab.functions.columns.index("Δ self")
    run_delta = next(
        tab.functions.index(r, delta).data(SORT_ROLE)
        for r in range(tab.functions.rowCount())
        if tab.functions.index(r, 0).data() == "run"
    )
    by_name = {f.name: f.self_fuel for f in tab.other.functions}
    assert run_delta == next(f.self_fuel for f in tab.profile.functions if f.name == "run") - by_name["run"]

    open_database(db_path)
    assert ProfileRecord.select().count() == 2

    # The second time: read back, never profiled again.
    def never(*args, **kwargs):
        raise AssertionError("profiled again")

    monkeypatch.setattr("lattice_desktop.services.profiling.profile_case", never)
    _open(qtbot, window, graded["echo"])
    _open(qtbot, window, graded["bytewise"])
    qtbot.waitUntil(lambda: tab.profile is not None, timeout=10_000)
    assert tab.profile.total == big.fuel


def test_profiling_can_be_cancelled(qtbot, window, graded):
    _open(qtbot, window, graded["bytewise"])
    tab = window.profile_tab
    qtbot.waitUntil(lambda: tab.pending, timeout=10_000)  # not shown yet: nothing ran
    tab.start()
    assert tab.cancel_button.isVisibleTo(tab)
    tab.cancel()
    assert "cancelled" in tab.empty.text()
    assert tab.profile is None


def test_no_run_says_what_to_do(qtbot):
    from lattice_desktop.ui.profile.profile_tab import ProfileTab

    tab = ProfileTab(None)
    qtbot.addWidget(tab)
    assert "pick a run" in tab.empty.text()
    assert not tab.profile_button.isEnabled()
