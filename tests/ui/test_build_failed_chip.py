"""In the app a failed build wears its own chip and has its own entry in the Verdict
filter, apart from the wrong answers."""

from __future__ import annotations

import pytest

from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Verdict
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.database import open_database
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.common.delegates import CHIP_ROLE
from tests.core.test_build_failed_verdict import failing_submission
from tests.ui.test_main_window import visible_runs


@pytest.fixture
def failed_build(graded, db_path, toy_case, tmp_path) -> int:
    writer = Writer(open_database(db_path))
    try:
        submission = load_submission(failing_submission(tmp_path / "broken", model="model-b"))
        stored = grade_and_store(
            load_case(toy_case.case_path), submission, writer=writer, allow_build=True, allow_unisolated=True
        )
    finally:
        writer.close()
    return stored.run_id


def test_a_failed_build_has_its_own_chip_and_filter(qtbot, failed_build, window):
    panel = window.runs_panel
    qtbot.waitUntil(lambda: len(panel.model.summaries) == 4)
    chip = panel.model.index_of_run(failed_build).siblingAtColumn(1).data(CHIP_ROLE)
    look = Verdict.BUILD_FAILED.look
    assert (chip.symbol, chip.label) == (look.symbol, look.words)
    assert chip.text != Verdict.INCORRECT.look.text
    picker = panel.verdict_picker
    assert picker.itemText(picker.findData(Verdict.BUILD_FAILED.value)) == look.text
    picker.setCurrentIndex(picker.findData(Verdict.BUILD_FAILED.value))
    assert visible_runs(panel) == ["broken"]
    picker.setCurrentIndex(picker.findData(Verdict.INCORRECT.value))
    assert visible_runs(panel) == ["wrong"]
