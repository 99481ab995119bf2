"""The Results tab over runs stored in a real database: banner, sections, bars, copy."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from lattice_desktop.grading.compare import Mismatch
from lattice_desktop.grading.report import CaseResult
from lattice_desktop.outcomes import Outcome
from lattice_desktop.services.run_report import detail_text
from lattice_desktop.store.pages import load_run_page
from lattice_desktop.ui.common import theme
from lattice_desktop.ui.common.delegates import BAR_ROLE, CHIP_ROLE
from lattice_desktop.ui.results.model import ResultsModel
from lattice_desktop.ui.results.tab import ResultsTab


def open_page(qtbot, window, run_id: int):
    with qtbot.waitSignal(window.page_shown, timeout=10_000) as shown:
        window.open_run(run_id)
    return shown.args[0]


def test_a_failed_smoke_test_comes_first_with_its_behaviour(qtbot, graded, window):
    open_page(qtbot, window, graded["wrong"])
    tab = window.results_tab
    assert not tab.banner.isHidden()
    banner = tab.banner.text()
    assert "Smoke test <code>hello</code> failed — stress cases skipped (counted failed)" in banner
    assert "echoes a short input" in banner
    smoke = tab.smoke_model
    assert [smoke.index(0, c).data() for c in range(3)] == ["hello", "echoes a short input", "✗ wrong answer"]
    assert smoke.index(0, smoke.column("Outcome")).data(CHIP_ROLE).label == "wrong answer"
    stress = tab.stress_model
    assert stress.index(0, stress.column("Outcome")).data() == "⊘ skipped"
    assert "counted failed" in stress.index(0, stress.column("Detail")).data()


def test_over_the_ceiling_is_marked_with_the_percentage_over(qtbot, graded, window):
    page = open_page(qtbot, window, graded["bytewise"])
    model = window.results_tab.stress_model
    result = page.run.results[1]
    over = 100.0 * result.overshoot / result.ceiling
    assert model.index(0, model.column("Overshoot")).data().startswith(f"▲ +{over:.1f}%")
    bar = model.index(0, model.column("% of ceiling")).data(BAR_ROLE)
    assert bar.colour == theme.AMBER
    assert bar.ceiling < bar.fraction <= 1.0 and bar.runway == 1.0  # a 20× runway is off-scale
    fuel_tip = model.index(0, model.column("Fuel")).data(3)  # ToolTipRole
    assert f"{result.fuel:,} fuel" in fuel_tip
    assert window.header.score.text().startswith("no score (+")


def test_a_correct_run_shows_score_and_standing(qtbot, graded, window):
    open_page(qtbot, window, graded["echo"])
    tab = window.results_tab
    assert tab.banner.isHidden()
    assert "score <b>10 fuel</b>" in tab.summary.text()
    assert "#1 of 1 · 100th percentile" in tab.summary.text()
    bar = tab.stress_model.index(0, tab.stress_model.column("% of ceiling")).data(BAR_ROLE)
    assert bar.colour == theme.accent() and bar.fraction < bar.ceiling


def test_everything_copies(qtbot, graded, window):
    open_page(qtbot, window, graded["bytewise"])
    tab = window.results_tab
    tab.stress_table.selectAll()
    text = tab.stress_table.selection_text()
    header, row = text.splitlines()
    assert header.split("\t")[:4] == ["Case", "Size", "Outcome", "Fuel"]
    fuel = tab.page.run.results[1].fuel
    assert row.split("\t")[3] == str(fuel)  # exact, not "779 fuel"
    tab.copy_report()
    report = QApplication.clipboard().text()
    assert "bytewise · echo 1/standard · model-b" in report and f"{fuel:,} fuel" in report


def test_the_build_log_is_collapsible(qtbot, graded, window):
    open_page(qtbot, window, graded["echo"])
    tab = window.results_tab
    assert tab.log.isHidden()
    tab.log_toggle.click()
    assert not tab.log.isHidden()
    assert "shipped module" in tab.log.toPlainText()


def test_a_snapshot_divergence_reads_at_a_glance():
    result = CaseResult(
        name="stress-64",
        kind="stress",
        behaviour="",
        size=64,
        outcome=Outcome.WRONG_ANSWER,
        ceiling=1000,
        budget=1000,
        fuel=900,
        mismatch=Mismatch(11, 0x3F0A_0000_0000_E21C, 0x9B1C_0000_0000_0A44, tick=1200, unit="snapshot"),
    )
    assert detail_text(result) == "snapshot 12 · tick 1200 · expected 3f0a…e21c · got 9b1c…0a44"
    assert "3f0a00000000e21c" in detail_text(result, exact=True)
    model = ResultsModel(smoke=False)
    model.set_results([result])
    assert model.index(0, model.column("Detail")).data(6) == theme.monospace()  # FontRole


def test_empty_state_says_what_to_do(qtbot):
    tab = ResultsTab()
    qtbot.addWidget(tab)
    assert "Grade submission…" in tab.empty.text()
    assert tab.stack.currentWidget() is tab.empty


def test_the_page_loader_reads_the_case_again(graded, db_path, toy_case):
    page = load_run_page(graded["echo"])
    assert page.case is not None and page.case.path == toy_case.case_path.resolve()
    assert page.standing is not None and page.standing.rank == 1
    toy_case.case_path.unlink()
    missing = load_run_page(graded["echo"])
    assert missing.case is None and "case.toml" in missing.case_problem


def test_an_exhausted_runway_is_its_own_reason_not_a_wrong_answer(qtbot):
    from lattice_desktop.sandbox.runner import runway_exhausted

    result = CaseResult(
        name="stress-512",
        kind="stress",
        behaviour="",
        size=512 * 512,
        outcome=Outcome.OUT_OF_FUEL,
        ceiling=2_600_000_000,
        budget=208_000_000_000,
        fuel=208_000_000_000,
        detail=f"{runway_exhausted(208_000_000_000, 2_600_000_000)}: no answer to judge",
    )
    model = ResultsModel(smoke=False)
    model.set_results([result])
    outcome = model.index(0, model.column("Outcome"))
    assert "runway exhausted" in outcome.data() and "wrong" not in outcome.data()
    assert "not a wrong answer" in outcome.data(3)  # ToolTipRole
    detail = model.index(0, model.column("Detail")).data()
    assert detail.startswith("exhausted the runway at 80× the ceiling (208,000,000,000 fuel)")
