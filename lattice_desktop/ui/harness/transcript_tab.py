"""The Transcript tab of a harness run: every event in order with the trace's own times,
filterable by kind, searchable, and the evidence behind each metric of the Results view
(`show_evidence`: Score's captures, Cost's spend to the last capture, Focus's worst loop
and the repetitions it exempted, Time's span and pauses, Compliance's probes, Tools'
rejected calls). A virtual table over the stored pages: a million events open at once."""

from __future__ import annotations

import html

from PySide6.QtCore import QItemSelection, Qt, Slot
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStackedLayout,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.harness import HarnessResult
from lattice_desktop.harness.transcript import EVIDENCE, KINDS, evidence_mask, not_measured
from lattice_desktop.store.transcripts import TranscriptHead, load_transcript_head, search_pages
from lattice_desktop.ui.common import theme
from lattice_desktop.ui.common.latest_query import LatestQuery
from lattice_desktop.ui.harness.transcript_model import COLUMNS, TranscriptModel, detail_text

EVIDENCE_WORDS = {
    "score": "Score: the first capture of each objective",
    "cost": "Cost: the model calls before the last capture, and that capture (Spend is the running total)",
    "focus": "Focus: the worst loop's repetitions, and the repetitions exempted (polling, retries, rereads)",
    "time": "Time: where running time starts, the last capture it ends at, and the pauses excluded",
    "compliance": "Compliance: the boundary probes and gaming checks",
    "tools": "Tools: the rejected calls and the findings",
    "execution": "Execution: the evidence of the Cost, Focus, Time and Compliance it weighed",
}


class TranscriptTab(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = TranscriptModel(self)
        self._open = LatestQuery(self._on_head, self)
        self._search = LatestQuery(self._on_hits, self)
        self._evidence: str | None = None
        self._hits: list[int] | None = None
        self._pending_evidence: str | None = None
        self.run_id: int | None = None
        self._result: tuple[int, HarnessResult] | None = None  # the open run's, for its evidence

        self.kind_buttons: dict[str, QToolButton] = {}
        kinds = QHBoxLayout()
        for kind in KINDS:
            button = QToolButton()
            button.setText(kind.replace("_", " "))
            button.setCheckable(True)
            button.setChecked(True)
            button.setToolTip(f"Show {kind.replace('_', ' ')} events")
            button.toggled.connect(self._apply)
            self.kind_buttons[kind] = button
            kinds.addWidget(button)
        kinds.addStretch(1)
        self.search_box = QLineEdit(placeholderText="Search the transcript (Enter): tool, argument, message…")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.returnPressed.connect(self.search)
        self.search_box.textChanged.connect(self._on_search_text)
        search = QHBoxLayout()
        search.addWidget(self.search_box, 1)

        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.show_all = QPushButton("Show every event")
        self.show_all.clicked.connect(self.clear_evidence)
        banner = QHBoxLayout()
        banner.addWidget(self.banner, 1)
        banner.addWidget(self.show_all)
        self.count = QLabel()
        self.count.setEnabled(False)
        search.addWidget(self.count)

        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        self.table.setAlternatingRowColors(True)
        rows = self.table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # uniform rows: a million scroll smoothly
        rows.setDefaultSectionSize(self.fontMetrics().height() + 6)
        rows.hide()
        header = self.table.horizontalHeader()
        for name, width in (("Line", 60), ("Time", 90), ("Kind", 90), ("Spend $", 90), ("Evidence", 260)):
            header.resizeSection(COLUMNS.index(name), width)
        header.setSectionResizeMode(COLUMNS.index("Event"), QHeaderView.ResizeMode.Stretch)
        self.table.selectionModel().selectionChanged.connect(self._on_selected)
        self.detail = QPlainTextEdit(readOnly=True)
        self.detail.setFont(theme.monospace())
        self.detail.setPlaceholderText("Select an event to read it whole, as recorded.")

        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.detail)
        split.setSizes([520, 180])
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addLayout(kinds)
        layout.addLayout(search)
        layout.addLayout(banner)
        layout.addWidget(split, 1)
        self.empty = QLabel("No harness run open — pick one in the runs list.")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.stack = QStackedLayout(self)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(page)
        self._show_banner()

    @property
    def busy(self) -> bool:
        return self._open.busy or self._search.busy or self.model.fetcher.busy

    def set_result(self, run_id: int, result: HarnessResult) -> None:
        """The scored result of run `run_id`: which metrics were measured, and what
        Execution weighed, decide which events are a metric's evidence."""
        self._result = (run_id, result)
        if self._evidence is not None and run_id == self.run_id and self.model.head is not None:
            self._apply()

    def _marks_of(self, metric: str) -> tuple[int, str | None]:
        """The evidence marks of `metric` for the open run, and why it has none (not measured)."""
        if self._result is None or self._result[0] != self.run_id:
            return EVIDENCE[metric], None  # the page is not read yet: every event so marked
        _run, result = self._result
        return evidence_mask(result, metric), not_measured(result, metric)

    def show_run(self, run_id: int | None) -> None:
        """Open a harness run's transcript (None: none is open). The run already shown is
        kept as it is, filters and all: a run id always names the same stored run."""
        if run_id is not None and run_id == self.run_id:
            return
        self.run_id = run_id
        self._pending_evidence = None
        self.model.set_head(None)
        self.stack.setCurrentWidget(self.empty)
        if run_id is None:
            self._open.forget()
            self.empty.setText("No harness run open — pick one in the runs list.")
            return
        self.empty.setText("Reading the transcript…")
        self._open.request(load_transcript_head, run_id)

    def _on_head(self, head: TranscriptHead | None) -> None:
        if head is None:
            self.run_id = None
            self.empty.setText("That harness run is no longer in the database.")
            return
        self._hits, self._evidence = None, None
        self.model.set_head(head)
        for kind, button in self.kind_buttons.items():
            button.setText(f"{kind.replace('_', ' ')} {self.model.count_of(kind):,}")
        self.stack.setCurrentIndex(1)
        self._apply()
        if self._pending_evidence is not None:
            self.show_evidence(self._pending_evidence)

    # Filters ---------------------------------------------------------------------------

    def show_evidence(self, metric: str) -> None:
        """Only the events behind `metric` (as named on the Results view), the first selected."""
        name = metric.lower()
        if name not in EVIDENCE:
            return
        if self.model.head is None:  # still reading: shown when it arrives
            self._pending_evidence = name
            return
        self._pending_evidence = None
        self._evidence, self._hits = name, None
        self.search_box.blockSignals(True)
        self.search_box.clear()
        self.search_box.blockSignals(False)
        self._apply()
        if self.model.rowCount():
            self.table.selectRow(0)
            self.table.scrollTo(self.model.index(0, 0))

    @Slot()
    def clear_evidence(self) -> None:
        self._evidence = None
        self._apply()

    @Slot()
    def search(self) -> None:
        text = self.search_box.text().strip()
        head = self.model.head
        if not text or head is None:
            self._hits = None
            self._apply()
            return
        self.count.setText(f"Searching for “{text}”…")
        self._search.request(search_pages, head.run_id, text, head.memory, work=True)

    @Slot(str)
    def _on_search_text(self, text: str) -> None:
        if not text.strip() and self._hits is not None:
            self._hits = None
            self._apply()

    def _on_hits(self, hits: list[int]) -> None:
        self._hits = hits
        self._apply()

    @Slot()
    def _apply(self) -> None:
        kinds = {k for k, b in self.kind_buttons.items() if b.isChecked()}
        marks = self._marks_of(self._evidence)[0] if self._evidence else None
        self.model.set_filter(kinds=None if len(kinds) == len(KINDS) else kinds, marks=marks, hits=self._hits)
        self._show_banner()
        total = len(self.model.head.kinds) if self.model.head else 0
        shown = self.model.rowCount()
        searched = f" matching “{self.search_box.text().strip()}”" if self._hits is not None else ""
        self.count.setText(f"{shown:,} of {total:,} events{searched}")
        self.detail.clear()

    def _show_banner(self) -> None:
        self.banner.setVisible(self._evidence is not None)
        self.show_all.setVisible(self._evidence is not None)
        if self._evidence is not None:
            why = self._marks_of(self._evidence)[1]
            if why is not None:
                self.banner.setText(f"<b>{html.escape(why)}</b> — no event is evidence for it")
            else:
                self.banner.setText(
                    f"<b>Evidence for {EVIDENCE_WORDS[self._evidence]}</b> — highlighted rows"
                )

    @Slot(QItemSelection, QItemSelection)
    def _on_selected(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        rows = selected.indexes()
        event = self.model.event_at(rows[0].row()) if rows else None
        self.detail.setPlainText("" if event is None else detail_text(event))
