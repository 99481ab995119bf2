"""The census beside the Factory tab's snapshots: shipped for the bundled case, counted in a
child process (and cached) for any other scenario, and that child killed when it is cancelled."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QThreadPool

from lattice_desktop.errors import Cancelled
from lattice_desktop.lattice.census import census, stored_census
from lattice_desktop.lattice.census_child import census_in_child
from lattice_desktop.lattice.generator import generate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.manifest.case import load_case
from lattice_desktop.manifest.submission import load_submission
from lattice_desktop.resources import CASES
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.database import open_database
from lattice_desktop.store.queries import load_run
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.factory.census_panel import CensusPanel
from lattice_desktop.ui.factory.tab import FactoryTab
from lattice_desktop.work import Step, Work
from tests.hostile.processes import wait_for_no_descendants

LATTICE = CASES / "lattice"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(tmp_path / "cache"))
    yield tmp_path / "cache"
    QThreadPool.globalInstance().waitForDone(60000)


def test_the_panel_shows_what_it_is_given(qtbot):
    panel = CensusPanel()
    qtbot.addWidget(panel)
    data = (LATTICE / "smoke" / "ring_rotation.lat").read_bytes()
    counted = census(parse_scenario(data))
    panel.show_counting()
    assert panel.census is None and "counting" in panel.text()
    panel.show_census(counted)
    assert panel.census == counted and "Census" in panel.text()
    assert f"{counted.rotating_rings} rotating, {counted.jammed_rings} jammed" in panel.text()
    panel.show_failure("no such file")
    assert panel.census is None and "no such file" in panel.text()


def test_another_scenario_is_counted_in_a_child_process_and_cached(cache):
    data = generate(3, width=40, height=30, ticks=60, density=1.0).encode()
    steps: list[Step] = []
    counted = census_in_child(data, work=Work(steps.append))
    assert counted == census(parse_scenario(data))
    assert steps and steps[-1].fraction == 1.0  # the child's progress reached the caller
    assert stored_census(data) == counted
    again: list[Step] = []
    assert census_in_child(data, work=Work(again.append)) == counted
    assert again == []  # the next open is instant: no child counted it


def test_cancelling_a_count_kills_its_child_at_once(cache):
    big = generate(1, width=400, height=400, ticks=2000, density=1.0).encode()
    steps: list[Step] = []
    work = Work(steps.append)
    threading.Timer(1.0, work.cancel).start()  # a count of minutes, cancelled a second in
    with pytest.raises(Cancelled):
        census_in_child(big, work=work)
    assert not steps or steps[-1].fraction < 1
    assert stored_census(big) is None  # the count stopped: nothing was cached
    assert wait_for_no_descendants() == []  # the child is gone


def test_the_factory_tab_shows_the_census_of_the_open_scenario(qtbot, tmp_path, cache):
    writer = Writer(open_database(tmp_path / "runs.db"))
    case = load_case(LATTICE / "case.toml")
    stored = grade_and_store(case, load_submission(LATTICE / "submissions" / "buggy"), writer=writer)
    writer.close()
    run = load_run(stored.run_id)
    tab = FactoryTab()
    qtbot.addWidget(tab)
    tab.resize(1100, 700)
    tab.show()
    tab.show_run(run, case)
    qtbot.waitUntil(lambda: tab.census.census is not None, timeout=20000)
    name = tab.case_box.currentData()
    assert tab.census.census == stored_census(case.entry(name).input_bytes(), case_dir=LATTICE)
    assert tab.census.isVisible()
    tab.shutdown()
