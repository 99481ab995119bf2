"""A run whose build failed opens on one build failure: the banner names the command, its
exit status and the last lines of its log; every case reads "not run"; the run header says
why there is no score; a long command wraps instead of widening the window."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication

from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.database import open_database
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.common.delegates import CHIP_ROLE

from .conftest import write_submission

LONG_FLAGS = " ".join(f"-Wl,--export=function_number_{i}" for i in range(40))
FAILING = f"python -c \"import sys; print('engine.c:3: error: boom'); sys.exit(3)\" {LONG_FLAGS}"


def store_failed_build(db_path, toy_case) -> int:
    folder = write_submission(
        toy_case.root / "broken", "echo", model="model-f", commands=[FAILING], ship=False
    )
    writer = Writer(open_database(db_path))
    try:
        stored = grade_and_store(
            load_case(toy_case.case_path),
            load_submission(folder),
            writer=writer,
            allow_build=True,
            allow_unisolated=True,
        )
        return stored.run_id
    finally:
        writer.close()


def test_a_failed_build_is_one_failure_and_every_case_is_not_run(qtbot, db_path, toy_case, make_window):
    run_id = store_failed_build(db_path, toy_case)
    window = make_window()
    window.show()
    with qtbot.waitSignal(window.page_shown, timeout=10_000):
        window.open_run(run_id)
    tab = window.results_tab
    banner = tab.banner.text()
    assert not tab.banner.isHidden()
    assert "The build failed — none of the 2 cases ran" in banner
    assert banner.count("function_number_39") == 1 and "Exit status: <b>3</b>" in banner
    assert "engine.c:3: error: boom" in banner
    assert "Behaviour at fault" not in banner and "echoes a short input" not in banner
    for model in (tab.smoke_model, tab.stress_model):
        outcome = model.index(0, model.column("Outcome"))
        assert outcome.data() == "– not run" and outcome.data(CHIP_ROLE).label == "not run"
        assert model.index(0, model.column("Detail")).data() == ""
        assert "the build failed" in outcome.data(3)  # the tooltip says why
    assert tab.log_toggle.isChecked()  # the whole log is open below
    assert "build failed" in window.header.score.text()
    screen = QGuiApplication.primaryScreen().availableGeometry()
    qtbot.waitUntil(tab.banner.isVisible)
    assert window.width() <= max(1400, screen.width())  # the long command wrapped
    assert tab.banner.width() <= tab.width()
