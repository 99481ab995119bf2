"""The Results view of a harness run: Score and Execution, every metric with its value,
evidence and the formula with its inputs filled in (so each can be recomputed from the
page), the loops Focus found and the tool-call findings. Shown in the Results tab's
place when a harness run is open."""

from __future__ import annotations

import html
from decimal import Decimal

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.formatting import rounded
from lattice_desktop.harness.provenance import provenance_lines
from lattice_desktop.harness.run_text import format_result
from lattice_desktop.store.harness_runs import run_name
from lattice_desktop.store.pages import HarnessPage
from lattice_desktop.ui.common.copy_table import CopyTable
from lattice_desktop.ui.common.delegates import BarDelegate, ChipDelegate
from lattice_desktop.ui.harness.models import FindingsModel, LoopsModel, MetricsModel, metric_rows
from lattice_desktop.ui.leaderboard.model import UNRANKED_MARK
from lattice_desktop.ui.results.tab import section_title

LEGEND = (
    "Score ranks first; Execution is the weighted mean of the measured Cost, Focus, "
    "Time and Compliance (its formula shows the weights); Tools is published for "
    'debugging only (weight 0). "-" means there was nothing to measure — never 0.'
)


class BandBarDelegate(BarDelegate):
    """The inline bar in a one-line band at the top of a cell whose row has grown with
    wrapped text, so a tall row does not make a tall block of colour."""

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        ChipDelegate._background(painter, option, index)
        band = QStyleOptionViewItem(option)
        line = option.fontMetrics.height() + 6
        band.rect = QRect(
            option.rect.left(), option.rect.top(), option.rect.width(), min(option.rect.height(), line)
        )
        super().paint(painter, band, index)


class WrapTable(CopyTable):
    """A copyable table whose long text wraps and whose rows grow to fit it; it shows
    every row without an inner scroll bar, the page scrolls instead."""

    def __init__(self, model, *, stretch: tuple[str, ...] = (), fixed: dict[str, int] | None = None) -> None:
        super().__init__(fit_rows=True)
        self.setModel(model)
        self.setWordWrap(True)
        self.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        for name in stretch:
            header.setSectionResizeMode(model.column(name), QHeaderView.ResizeMode.Stretch)
        for name, width in (fixed or {}).items():
            header.setSectionResizeMode(model.column(name), QHeaderView.ResizeMode.Fixed)
            header.resizeSection(model.column(name), width)
        # Wrapped rows change height with their column's width: refit once the header
        # has settled (section sizes change after the resize event is handled).
        self._refit = QTimer(self, singleShot=True, interval=0)
        self._refit.timeout.connect(self.fit_height)
        header.sectionResized.connect(self._refit.start)
        model.modelReset.connect(self._refit.start)

    def fit_height(self) -> None:
        self.resizeRowsToContents()
        model = self.model()
        rows = model.rowCount() if model is not None else 0
        height = self.horizontalHeader().height() + 2 * self.frameWidth()
        height += sum(self.rowHeight(r) for r in range(rows))
        self.setFixedHeight(max(height, self.horizontalHeader().height() + 8))


class HarnessResultsTab(QWidget):
    evidence_requested = Signal(str)  # a metric's name: show the events behind it

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.page: HarnessPage | None = None
        self.metrics_model = MetricsModel(self)
        self.loops_model = LoopsModel(self)
        self.findings_model = FindingsModel(self)

        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        copy = QPushButton("Copy report")
        copy.setToolTip("Copy the metrics, formulas, loops and findings as text")
        copy.clicked.connect(self.copy_report)
        copy_json = QPushButton("Copy JSON")
        copy_json.setToolTip("Copy the whole published result, exact inputs included")
        copy_json.clicked.connect(self.copy_json)

        self.metrics_table = WrapTable(self.metrics_model, stretch=("Formula",), fixed={"Value": 150})
        self.metrics_table.setItemDelegateForColumn(
            self.metrics_model.column("Value"), BandBarDelegate(self.metrics_table)
        )
        self.metrics_table.setItemDelegateForColumn(
            self.metrics_model.column("Evidence"), ChipDelegate(self.metrics_table)
        )
        self.metrics_table.clicked.connect(self._on_metric_clicked)
        self.metrics_table.setToolTip("Click a metric to see the events behind it in the Transcript tab")
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setTextFormat(Qt.TextFormat.RichText)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.legend = QLabel(LEGEND)
        self.legend.setWordWrap(True)
        self.legend.setEnabled(False)  # the palette's quieter text
        self.loops_title = section_title("Loops (Focus)")
        self.loops_note = QLabel()
        self.loops_note.setWordWrap(True)
        self.loops_table = WrapTable(self.loops_model, stretch=("Repeated calls",))
        self.findings_title = section_title("Tool-call findings (Tools)")
        self.findings_note = QLabel()
        self.findings_note.setWordWrap(True)
        self.findings_table = WrapTable(self.findings_model, stretch=("Message",))
        self.inputs_title = section_title("Inputs shown for recomputation")
        self.inputs = QLabel()
        self.inputs.setTextFormat(Qt.TextFormat.PlainText)
        self.inputs.setWordWrap(True)
        self.inputs.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.sources = QLabel()
        self.sources.setWordWrap(True)
        self.sources.setEnabled(False)
        self.sources.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        head = QHBoxLayout()
        head.addWidget(self.summary, 1)
        head.addWidget(copy, 0, Qt.AlignmentFlag.AlignTop)
        head.addWidget(copy_json, 0, Qt.AlignmentFlag.AlignTop)
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.addLayout(head)
        layout.addWidget(section_title("Metrics"))
        layout.addWidget(self.metrics_table)
        layout.addWidget(self.notes)
        layout.addWidget(self.legend)
        layout.addWidget(self.loops_title)
        layout.addWidget(self.loops_note)
        layout.addWidget(self.loops_table)
        layout.addWidget(self.findings_title)
        layout.addWidget(self.findings_note)
        layout.addWidget(self.findings_table)
        layout.addWidget(self.inputs_title)
        layout.addWidget(self.inputs)
        layout.addWidget(self.sources)
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

    def show_page(self, page: HarnessPage | None) -> None:
        self.page = page
        result = None if page is None else page.result
        self.metrics_model.set_result(result)
        self.loops_model.set_loops(result.loops if result else (), page.loop_calls if page else ())
        self.findings_model.set_findings(result.tool_findings if result else ())
        if page is None or result is None:
            self.summary.clear()
            self.sources.clear()
            self.inputs.clear()
            self.inputs_title.hide()
            self.notes.clear()
            return
        self.summary.setText(self._summary_html(page))
        notes = [
            f"<b>{name}</b>: {html.escape(note)}"
            for name, metric in metric_rows(result)
            for note in metric.notes
        ]
        self.notes.setText(
            "Notes<ul style='margin-top:0; -qt-list-indent:1'>"
            + "".join(f"<li>{n}</li>" for n in notes)
            + "</ul>"
            if notes
            else ""
        )
        self.notes.setVisible(bool(notes))
        focus = result.metrics.get("focus")
        has_loops, has_findings = bool(result.loops), bool(result.tool_findings)
        self.loops_table.setVisible(has_loops)
        self.loops_note.setText(
            "Only the worst loop counts; calls are compared on tool name and arguments as "
            "recorded, so a unique id or timestamp in every call hides a loop."
            if has_loops
            else f"No loop of 3 or more repetitions — Focus {focus.shown if focus else '-'}. "
            "Calls are compared on tool name and arguments as recorded."
        )
        self.findings_table.setVisible(has_findings)
        tools = result.metrics.get("tools")
        self.findings_note.setText(
            f"{len(result.tool_findings)} finding{'s' if len(result.tool_findings) != 1 else ''}"
            " — Tools is for debugging only and does not change the ranking."
            if has_findings
            else f"No finding: every call was well formed, matched its schema and adapted after a "
            f"rejection — Tools {tools.shown if tools else '-'}."
        )
        provenance = provenance_lines(result)
        self.inputs.setText("\n".join(provenance))
        self.inputs_title.setVisible(bool(provenance))
        self.inputs.setVisible(bool(provenance))
        self.sources.setText(
            f"box {page.box_source} · trace {page.trace_source} · scorer version {result.scorer_version}"
        )
        for table in (self.metrics_table, self.loops_table, self.findings_table):
            table.fit_height()

    @staticmethod
    def _summary_html(page: HarnessPage) -> str:
        r = page.result
        score, execution = r.metrics["score"], r.execution
        board = f"{html.escape(r.box)} · {html.escape(r.stage)}"
        if page.position is None:
            standing = f"not on the board: run #{page.best_id} is this agent's best"
        elif r.unranked is None:
            standing = f"#{page.position} of {page.board_size} on {board}"
        else:
            standing = f"#{page.position}{UNRANKED_MARK} of {page.board_size} on {board}, placed by its Score"
        if r.unranked is not None:
            standing += f" · <b>not ranked</b>: {html.escape(r.unranked)}"
        lines = [f"Score <b>{score.shown}</b> · Execution <b>{execution.shown}</b> · {standing}"]
        if r.status != "completed":
            lines.append(f"Status <b>{html.escape(r.status)}</b> — the run did not complete")
        ties = []
        if r.last_capture_elapsed_s is not None:
            ties.append(f"last capture after {shown_number(r.last_capture_elapsed_s)} s of running time")
        if r.spend_to_last_capture_usd is not None:
            ties.append(f"${shown_number(r.spend_to_last_capture_usd)} spent to it")
        lines.append("Tie-breakers: " + (", ".join(ties) if ties else "none (nothing captured)"))
        name = run_name(r)
        lines.append(
            (f"{html.escape(_clip(name))} · " if name != r.run_id else "")
            + f"<span style='font-family:monospace'>{html.escape(_clip(r.run_id))}</span> · "
            f"{html.escape(_clip(r.harness))} / {html.escape(_clip(r.model))}"
        )
        return "<br>".join(lines)

    @Slot(QModelIndex)
    def _on_metric_clicked(self, index: QModelIndex) -> None:
        if index.isValid():
            self.evidence_requested.emit(self.metrics_model.rows[index.row()][0])

    @Slot()
    def copy_report(self) -> None:
        if self.page is not None:
            QApplication.clipboard().setText(format_result(self.page.result))

    @Slot()
    def copy_json(self) -> None:
        if self.page is not None:
            QApplication.clipboard().setText(self.page.result.to_json())


def shown_number(value: float) -> str:
    """A tie-breaker as the page's other numbers print: `rounded` (two decimals, half up from
    the exact value), thousands grouped; the exact value is in Copy JSON."""
    return f"{Decimal(rounded(value)):,}"


def _clip(name: str, most: int = 64) -> str:
    """A name a trace chose, cut to `most` characters: one without spaces would not wrap and
    widen the page by its whole length (the full name is in Copy report)."""
    return name if len(name) <= most else name[: most - 1] + "…"
