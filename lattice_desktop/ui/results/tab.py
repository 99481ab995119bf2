"""The Results tab: verdict and score against the field, the smoke tests first (each with
the behaviour it isolates), then the stress cases' fuel against the ceiling, and the
build log. Everything can be copied."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.formatting import fuel, grouped, short_hash
from lattice_desktop.outcomes import Verdict
from lattice_desktop.services.run_failure import RunFailure, run_failure
from lattice_desktop.services.run_report import detail_text, report_text
from lattice_desktop.store.pages import RunPage
from lattice_desktop.ui.common import theme
from lattice_desktop.ui.common.copy_table import CopyTable
from lattice_desktop.ui.common.delegates import BarDelegate, ChipDelegate
from lattice_desktop.ui.results.diagnosis import DiagnosisPanel
from lattice_desktop.ui.results.model import ResultsModel

NO_RESULTS = {
    Verdict.RUNNING: "This run is being graded — its results appear when it finishes.",
    Verdict.CANCELLED: "This run was cancelled: it has no results. Grade the submission again "
    "(Ctrl+G) to get them.",
    Verdict.INTERRUPTED: "This run was interrupted (the app closed while it ran): it has no "
    "results. Grade the submission again (Ctrl+G).",
}


def section_title(text: str) -> QLabel:
    label = QLabel(text)
    font = label.font()
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() * 1.1)
    label.setFont(font)
    return label


def banner_style(colour: QColor) -> str:
    return (
        f"QLabel {{ background: {theme.tint(colour, 40).name(QColor.NameFormat.HexArgb)};"
        f" border: 1px solid {colour.name()}; border-radius: 4px; padding: 8px; }}"
    )


def failure_html(failure: RunFailure) -> str:
    """The one failure that stopped every case: headline, command and status, log tail.
    Long lines wrap (pre-wrap), so a long command never widens the window."""
    rows = [f"<b>✗ {html.escape(failure.headline)}</b>"]
    if failure.command is not None:
        rows.append(f"Command: <code>{html.escape(failure.command)}</code>")
    if failure.exit_status is not None:
        rows.append(f"Exit status: <b>{failure.exit_status}</b>")
    else:
        rows.append(f"Reason: {html.escape(failure.reason)}")
    text = "<br>".join(rows)
    if failure.log_tail:
        tail = html.escape("\n".join(failure.log_tail))
        text += (
            "<br>Last lines of its log (the whole log is below):"
            f"<pre style='white-space: pre-wrap; margin: 4px 0 0 0'>{tail}</pre>"
        )
    return text


class ResultsTab(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.page: RunPage | None = None
        self.smoke_model = ResultsModel(smoke=True, parent=self)
        self.stress_model = ResultsModel(smoke=False, parent=self)

        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setTextFormat(Qt.TextFormat.RichText)
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.diagnosis = DiagnosisPanel()  # why a wrong run is wrong (issue 41)
        copy = QPushButton("Copy report")
        copy.setToolTip("Copy the whole result as text")
        copy.clicked.connect(self.copy_report)

        self.smoke_title = section_title("Smoke tests (correctness only)")
        self.smoke_table = self._table(self.smoke_model)
        self.stress_title = section_title("Stress cases (fuel)")
        self.stress_table = self._table(self.stress_model)
        self.stress_table.setItemDelegateForColumn(
            self.stress_model.column("% of ceiling"), BarDelegate(self.stress_table)
        )

        self.log_toggle = QToolButton()
        self.log_toggle.setText("Build log")
        self.log_toggle.setCheckable(True)
        self.log_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.log_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.log_toggle.toggled.connect(self._toggle_log)
        self.log = QPlainTextEdit(readOnly=True)
        self.log.setFont(theme.monospace())
        self.log.setMinimumHeight(160)
        self.log.hide()

        head = QHBoxLayout()
        head.addWidget(self.summary, 1)
        head.addWidget(copy, 0, Qt.AlignmentFlag.AlignTop)
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.addWidget(self.banner)
        layout.addLayout(head)
        layout.addWidget(self.notice)
        layout.addWidget(self.diagnosis)
        layout.addWidget(self.smoke_title)
        layout.addWidget(self.smoke_table)
        layout.addWidget(self.stress_title)
        layout.addWidget(self.stress_table)
        layout.addWidget(self.log_toggle)
        layout.addWidget(self.log)
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(content)

        self.empty = QLabel(
            "No run open.\n\nPick a run in the list on the left, or Grade submission… (Ctrl+G) to grade one."
        )
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(scroll)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.stack)
        self.show_page(None)

    def _table(self, model: ResultsModel) -> CopyTable:
        table = CopyTable(fit_rows=True)
        table.setModel(model)
        table.setItemDelegateForColumn(model.column("Outcome"), ChipDelegate(table))
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # Long text shares the width left over (elided, whole in the tooltip), so the
        # outcome and fuel columns are never pushed out of sight.
        for name in ("Behaviour", "Detail"):
            if name in model.columns:
                header.setSectionResizeMode(model.column(name), QHeaderView.ResizeMode.Stretch)
        table.setTextElideMode(Qt.TextElideMode.ElideRight)
        return table

    def show_page(self, page: RunPage | None) -> None:
        self.page = page
        self.diagnosis.show_run(page.run if page is not None else None)
        if page is None:
            self.smoke_model.set_results([])
            self.stress_model.set_results([])
            self.stack.setCurrentIndex(0)
            return
        run = page.run
        self.stack.setCurrentIndex(1)
        failure = run_failure(run.results, run.build_log)
        self.smoke_model.set_results(run.results, failure)
        self.stress_model.set_results(run.results, failure)
        self._show_banner(page, failure)
        self.summary.setText(self._summary_html(page))
        missing = NO_RESULTS.get(run.summary.verdict) if not run.results else None
        self.notice.setText(missing or "")
        self.notice.setVisible(bool(missing))
        has_smoke, has_stress = bool(self.smoke_model.results), bool(self.stress_model.results)
        for widget, shown in (
            (self.smoke_title, has_smoke),
            (self.smoke_table, has_smoke),
            (self.stress_title, has_stress),
            (self.stress_table, has_stress),
        ):
            widget.setVisible(shown)
        if has_stress:
            self.stress_title.setText(f"Stress cases (fuel; ceiling {fuel(run.fuel_limit)} per case)")
        for table in (self.smoke_table, self.stress_table):
            table.fit_height()
        self.log.setPlainText(
            run.build_log or run.build_detail or "(no build: the submission shipped its module)"
        )
        self.log_toggle.setText("Build log" + ("" if run.build_ok is not False else " — build failed"))
        if run.build_ok is False:
            self.log_toggle.setChecked(True)

    def _show_banner(self, page: RunPage, failure: RunFailure | None) -> None:
        failed = [r for r in page.run.results if r.is_smoke and not r.outcome.correct]
        if failure is not None:
            self.banner.setText(failure_html(failure))
            self.banner.setStyleSheet(banner_style(theme.RED))
            self.banner.show()
        elif failed:
            names = ", ".join(f"<code>{r.name}</code>" for r in failed)
            plural = "s" if len(failed) > 1 else ""
            behaviours = "; ".join(r.behaviour for r in failed if r.behaviour)
            first = detail_text(failed[0])
            text = (
                f"✗ Smoke test{plural} {names} failed — stress cases skipped (counted failed)"
                + (f"<br>Behaviour at fault: {html.escape(behaviours)}" if behaviours else "")
                + (f"<br><code>{failed[0].name}</code>: <code>{html.escape(first)}</code>" if first else "")
            )
            self.banner.setText(text)
            self.banner.setStyleSheet(banner_style(theme.RED))
            self.banner.show()
        elif page.case_problem:
            self.banner.setText(f"▲ The case manifest could not be read again: {page.case_problem}")
            self.banner.setStyleSheet(banner_style(theme.AMBER))
            self.banner.show()
        else:
            self.banner.hide()

    def _summary_html(self, page: RunPage) -> str:
        run, s = page.run, page.run.summary
        colour = theme.verdict_colour(s.verdict).name()
        parts = [
            f"<span style='color:{colour}; font-weight:bold'>{s.verdict.symbol} {s.verdict.label}</span>"
        ]
        if s.score is not None:
            parts.append(f"score <b>{fuel(s.score)}</b> ({grouped(s.score)})")
        elif s.stress_fuel is not None:
            parts.append(f"stress fuel {fuel(s.stress_fuel)} — not a score")
        if s.max_percent_over is not None:
            parts.append(f"▲ up to {s.max_percent_over:.1f}% over the ceiling")
        if page.standing is not None:
            parts.append(f"rank {page.standing.describe()} (efficiency percentile)")
        passed = sum(1 for r in run.results if r.outcome.passed)
        lines = [" · ".join(parts)]
        if note := s.identity.note:  # a case shipped under a registered name, or of its own
            lines.append(f"▲ case {html.escape(note)} — ranked apart")
        if run.results:
            lines.append(f"{passed} of {len(run.results)} cases passed")
        lines.append(
            f"<span style='font-family:monospace'>module {short_hash(run.module_sha256)}"
            f"</span> · {run.fuel_settings}"
        )
        return "<br>".join(lines)

    @Slot(bool)
    def _toggle_log(self, shown: bool) -> None:
        self.log.setVisible(shown)
        self.log_toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)

    @Slot()
    def copy_report(self) -> None:
        if self.page is not None:
            QApplication.clipboard().setText(report_text(self.page))
