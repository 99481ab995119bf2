"""The desk: a case is checked when it is opened (every problem at once, before any build
question), file dialogs start where the user last was, and Recent keeps only what opened."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from lattice_desktop.resources import CASES
from lattice_desktop.store.schema import Run
from lattice_desktop.ui.common.dialogs import BuildConfirmDialog, DialogFolder

BROKEN = '[meta]\nname = "x"\nversion = "three"\n\n[sandbox]\nfuel_limit = -5\n'


def test_opening_a_broken_case_lists_every_problem_and_keeps_the_open_case(qtbot, window, toy_case, tmp_path):
    before = window.case_path
    broken = tmp_path / "broken" / "case.toml"
    broken.parent.mkdir()
    broken.write_text(BROKEN)
    window.open_case(broken)
    qtbot.waitUntil(lambda: "Cannot open this case" in window.message_bar.message())
    message = window.message_bar.message()
    assert f"{broken}:3: meta.version: must be an integer" in message  # file:line: key
    assert "missing table [contract]" in message
    assert "sandbox.fuel_limit: must be at least 1" in message
    assert "declares no [[case]]" in message
    assert window.case_path == before  # the case open before stays open
    assert str(broken) not in window.recent_cases.items()


def test_a_broken_case_is_refused_before_the_build_question(qtbot, window, toy_case, tmp_path, monkeypatch):
    asked = []
    monkeypatch.setattr(BuildConfirmDialog, "exec", lambda dialog: asked.append(dialog) or 0)
    case = tmp_path / "case.toml"
    case.write_text(toy_case.case_path.read_text())
    window.case_path = case
    case.write_text(BROKEN)  # broken after it was opened: grading reads it again first
    window.grade_submission(toy_case.submission("built"))
    assert "Cannot grade against this case" in window.message_bar.message()
    assert "meta.version" in window.message_bar.message()
    assert not asked and Run.select().count() == 0


def test_file_dialogs_start_at_the_samples_then_where_the_user_last_was(
    qtbot, graded, window, toy_case, settings, monkeypatch
):
    qtbot.waitUntil(lambda: bool(window.runs_panel.model.summaries))
    starts: list[str] = []

    def fake_open(parent, title, start, pattern):
        starts.append(start)
        return str(toy_case.case_path), pattern

    def fake_save(parent, title, start, pattern):
        starts.append(start)
        return "", pattern

    monkeypatch.setattr(QFileDialog, "getOpenFileName", fake_open)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", fake_save)
    assert DialogFolder(settings).start() == CASES / "lattice" / "submissions"
    window.choose_case()  # starts at the bundled samples, never the working folder
    assert starts[0] == str(CASES / "lattice" / "submissions")
    assert Path.cwd() != Path(starts[0])
    window.run_actions.export_runs("csv")  # the next dialog starts beside the chosen case
    assert Path(starts[1]).parent == toy_case.case_path.parent


def test_recent_keeps_what_opened_and_draws_no_empty_section(qtbot, window, toy_case, tmp_path):
    window.recent_menu.aboutToShow.emit()
    titles = [a.text() for a in window.recent_menu.actions()]
    assert "Cases" not in titles and "Submissions" not in titles  # nothing yet: no headers
    empty = tmp_path / "not-a-submission"
    empty.mkdir()
    window.grade_submission(empty)
    assert "Cannot grade this submission" in window.message_bar.message()
    assert str(empty) not in window.recent_submissions.items()
    broken = tmp_path / "case.toml"
    broken.write_text(BROKEN)
    window.open_case(broken)
    qtbot.waitUntil(lambda: "Cannot open this case" in window.message_bar.message())
    window.recent_menu.aboutToShow.emit()
    assert str(broken) not in [a.text() for a in window.recent_menu.actions()]
