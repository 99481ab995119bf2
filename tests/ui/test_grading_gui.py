"""Grading from the window: end to end, cancel, the build-command gate, and errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lattice_desktop.outcomes import Verdict
from lattice_desktop.store.queries import load_run
from lattice_desktop.store.schema import CaseResultRow, Run
from lattice_desktop.ui.common.dialogs import BuildChoice, BuildConfirmDialog
from lattice_desktop.ui.window.tabs import RESULTS

from .conftest import make_toy_case, write_submission

GRADE_TIMEOUT = 60_000


def grade_and_wait(qtbot, window, folder: Path) -> None:
    with qtbot.waitSignal(window.grading.idle, timeout=GRADE_TIMEOUT):
        window.grade_submission(folder)


def test_grading_from_the_window_stores_and_opens_the_run(qtbot, window, toy_case):
    window.open_case(toy_case.case_path)
    with qtbot.waitSignal(window.page_shown, timeout=GRADE_TIMEOUT) as shown:
        window.grade_submission(toy_case.submission("echo"))
    page = shown.args[0]
    assert page.run.summary.verdict is Verdict.CORRECT
    assert window.header.title.text() == "echo · echo 1/standard · model-a"
    assert window.header.score.text() == "10 fuel"
    # the toy case is no bundled case: its content is unregistered, and says so
    assert window.header.standing.text() == "#1 of 1 · 100th percentile · unregistered case, ranked apart"
    assert window.tabs.currentIndex() == RESULTS
    qtbot.waitUntil(lambda: len(window.runs_panel.model.summaries) == 1)
    assert window.runs_panel.selected_run() == page.run.id
    assert window.grading_status.isHidden()


def test_progress_reports_each_case(qtbot, window, toy_case):
    window.open_case(toy_case.case_path)
    steps = []
    window.grading.progress.connect(steps.append)
    grade_and_wait(qtbot, window, toy_case.submission("echo"))
    finished = [s.item.result.name for s in steps if s.item.result is not None]
    assert finished == ["hello", "big"]
    assert [s.fraction for s in steps] == sorted(s.fraction for s in steps)  # never goes back
    last = steps[-1]
    assert last.item.phase == "done" and last.item.done == last.item.total == 2
    assert (last.fraction, last.message) == (1.0, "graded")


def test_cancel_stops_running_wasm_and_leaves_no_results(qtbot, window, tmp_path):
    spin_case = make_toy_case(tmp_path / "spin-case", fuel_limit=10**15, wall_clock=120)
    spin = write_submission(tmp_path / "spin", "spin", model="model-spin")
    window.open_case(spin_case.case_path)
    with qtbot.waitSignal(window.grading.run_created, timeout=GRADE_TIMEOUT):
        window.grade_submission(spin)
    qtbot.waitUntil(
        lambda: (
            window.grading_status.label.text().endswith("running…")
            or "smoke" in window.grading_status.label.text()
            or window.grading_status.label.text().endswith("compiling…")
        ),
        timeout=GRADE_TIMEOUT,
    )
    qtbot.wait(300)  # let the infinite loop start
    assert window.grading.running
    with qtbot.waitSignals([window.grading.cancelled, window.grading.idle], timeout=20_000):
        window.grading_status.cancel_button.click()
    run = Run.select().order_by(Run.id.desc()).first()
    assert run.verdict == Verdict.CANCELLED.value
    assert CaseResultRow.select().where(CaseResultRow.run == run.id).count() == 0
    assert "cancelled" in window.message_bar.message()
    qtbot.waitUntil(lambda: any(s.verdict is Verdict.CANCELLED for s in window.runs_panel.model.summaries))


def test_build_commands_wait_for_confirmation(qtbot, window, toy_case, monkeypatch):
    seen = []

    def decline(dialog: BuildConfirmDialog) -> int:
        seen.append(dialog.commands.toPlainText())
        dialog.choice = BuildChoice.CANCEL
        return 0

    monkeypatch.setattr(BuildConfirmDialog, "exec", decline)
    window.open_case(toy_case.case_path)
    window.grade_submission(toy_case.submission("built"))  # asks once the case is checked
    qtbot.waitUntil(lambda: bool(seen))
    assert "wasmtime.wat2wasm" in seen[0] and seen[0].startswith("$ python")
    assert not window.grading.running
    assert Run.select().count() == 0


def test_confirmed_build_runs_the_commands(qtbot, window, toy_case, monkeypatch):
    def confirm(dialog: BuildConfirmDialog) -> int:
        assert not dialog.shipped_button.isEnabled()  # nothing shipped: only building grades it
        dialog.choice = BuildChoice.BUILD
        return 1

    monkeypatch.setattr(BuildConfirmDialog, "exec", confirm)
    # Only where no build jail can be set up: the second confirmation, accepted too.
    from lattice_desktop.ui.common.dialogs import UnisolatedBuildDialog

    monkeypatch.setattr(UnisolatedBuildDialog, "exec", lambda d: d.run_button.click() or 1)
    window.open_case(toy_case.case_path)
    jobs = []
    window.grading.job_started.connect(jobs.append)
    with qtbot.waitSignal(window.page_shown, timeout=GRADE_TIMEOUT) as shown:
        window.grade_submission(toy_case.submission("built"))
    assert jobs[0].allow_build
    assert shown.args[0].run.summary.verdict is Verdict.CORRECT
    assert "$ python" in shown.args[0].run.build_log


def test_a_shipped_module_grades_without_building(qtbot, window, toy_case, monkeypatch):
    def shipped(dialog: BuildConfirmDialog) -> int:
        assert dialog.shipped_button.isEnabled()
        dialog.choice = BuildChoice.SHIPPED
        return 1

    monkeypatch.setattr(BuildConfirmDialog, "exec", shipped)
    window.open_case(toy_case.case_path)
    jobs = []
    window.grading.job_started.connect(jobs.append)
    grade_and_wait(qtbot, window, toy_case.submission("built-shipped"))
    assert not jobs[0].allow_build and jobs[0].submission.commands == ()
    assert Run.get().verdict == Verdict.CORRECT.value


def test_the_dialog_defaults_to_not_running_anything(qtbot, toy_case):
    from lattice_desktop.manifest import load_submission

    dialog = BuildConfirmDialog(load_submission(toy_case.submission("built")))
    qtbot.addWidget(dialog)
    assert dialog.choice is BuildChoice.CANCEL
    assert not dialog.build_button.isDefault()
    dialog.build_button.click()
    assert dialog.choice is BuildChoice.BUILD


def test_a_bad_manifest_is_a_message_in_the_window(qtbot, window, toy_case, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "submission.toml").write_text('[submission]\nmodel = 3\n[build]\nmodule = "m.wasm"\n')
    window.open_case(toy_case.case_path)
    window.grade_submission(bad)
    assert "submission.toml" in window.message_bar.message()
    assert "model" in window.message_bar.message()
    assert not window.error_dialogs


def test_a_missing_module_is_a_message_in_the_window(qtbot, window, toy_case, tmp_path):
    folder = write_submission(tmp_path / "nomodule", "echo", model="m", ship=False)
    window.open_case(toy_case.case_path)
    with qtbot.waitSignal(window.grading.idle, timeout=GRADE_TIMEOUT):
        window.grade_submission(folder)
    assert "m.wasm is not in" in window.message_bar.message()
    assert not window.error_dialogs
    assert Run.select().count() == 0  # a user error leaves no run behind


def test_an_unexpected_worker_error_shows_its_traceback(qtbot, window, toy_case, monkeypatch):
    def broken(*_args, **_kwargs):
        raise RuntimeError("the grader fell over")

    monkeypatch.setattr("lattice_desktop.services.grade_jobs.grade_and_store", broken)
    window.open_case(toy_case.case_path)
    grade_and_wait(qtbot, window, toy_case.submission("echo"))
    assert len(window.error_dialogs) == 1
    dialog = window.error_dialogs[0]
    assert "RuntimeError: the grader fell over" in dialog.informativeText()
    assert "Traceback" in dialog.detailedText() and "broken" in dialog.detailedText()
    dialog.close()


BUNDLED = Path(__file__).resolve().parents[2] / "resources" / "cases" / "lattice" / "case.toml"


def small_demo(root: Path) -> Path:
    """The bundled case with its smoke tests and its two smallest stress cases: the same
    samples, verdicts and path through the window at a small part of the fuel. At full
    size every sample's verdict is confirmed in tests/core/test_bundled_case.py, and every
    demo job is graded in tests/core/test_readme_run_ids.py (as the app's first start does)."""
    lattice = BUNDLED.parent
    head, *blocks = BUNDLED.read_text(encoding="utf-8").split("[[case]]")
    stress = [b for b in blocks if 'kind = "stress"' in b]
    kept = [b for b in blocks if 'kind = "stress"' not in b] + stress[:2]
    for folder in ("smoke", "stress", "expected"):
        shutil.copytree(lattice / folder, root / folder)
    (root / "submissions").symlink_to(lattice / "submissions")
    if (lattice / "census.json").is_file():
        shutil.copyfile(lattice / "census.json", root / "census.json")
    (root / "case.toml").write_text(head + "".join("[[case]]" + b for b in kept), encoding="utf-8")
    return root / "case.toml"


@pytest.mark.slow
@pytest.mark.skipif(not BUNDLED.is_file(), reason="the bundled lattice case is not assembled")
def test_the_bundled_demo_grades_from_the_window(qtbot, make_window, tmp_path):
    window = make_window(demo=small_demo(tmp_path))
    with qtbot.waitSignal(window.grading.idle, timeout=30 * 60_000):
        window.grade_demo()

    def all_four_stored() -> bool:
        summaries = window.runs_panel.model.summaries
        return len(summaries) >= 4 and all(s.verdict.finished for s in summaries)

    qtbot.waitUntil(all_four_stored, timeout=10_000)
    verdicts = {s.submission: s.verdict for s in window.runs_panel.model.summaries}
    lines = next(s for s in window.runs_panel.model.summaries if s.submission == "lines")
    results = load_run(lines.id).results
    failing = [(r.name, r.outcome, r.detail) for r in results if not r.outcome.passed]
    assert verdicts["lines"] is Verdict.CORRECT, failing
    assert verdicts["buggy"] is Verdict.INCORRECT
    assert verdicts["stuck_rings"] is Verdict.INCORRECT
    assert sum(r.name.startswith("stress-") for r in results) == 2  # graded on the small demo


def test_without_a_jail_a_second_confirmation_names_the_reason(qtbot, window, toy_case, monkeypatch):
    from lattice_desktop.sandbox.isolation import SWITCH
    from lattice_desktop.ui.common.dialogs import UnisolatedBuildDialog

    monkeypatch.setenv(SWITCH, "off")
    monkeypatch.setattr(BuildConfirmDialog, "exec", lambda d: setattr(d, "choice", BuildChoice.BUILD) or 1)
    reasons, answers = [], [False, True]

    def second(dialog: UnisolatedBuildDialog) -> int:
        assert dialog.run_button is not None and not dialog.run_button.isDefault()
        reasons.append(dialog.reason.text())
        if answers.pop(0):
            dialog.run_button.click()
        return int(dialog.allowed)

    monkeypatch.setattr(UnisolatedBuildDialog, "exec", second)
    window.open_case(toy_case.case_path)
    window.grade_submission(toy_case.submission("built"))  # asks once the case is checked
    qtbot.waitUntil(lambda: bool(reasons))
    assert SWITCH in reasons[0] and not window.grading.running and Run.select().count() == 0
    jobs = []
    window.grading.job_started.connect(jobs.append)
    with qtbot.waitSignal(window.page_shown, timeout=GRADE_TIMEOUT) as shown:
        window.grade_submission(toy_case.submission("built"))
    assert jobs[0].allow_build and jobs[0].allow_unisolated
    assert "warning: build isolation is unavailable" in shown.args[0].run.build_log
