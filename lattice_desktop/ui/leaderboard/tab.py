"""The Leaderboard tab: pick a case, version, variant and content (or a harness box and
stage); models ranked by their best correct fuel (or harnesses placed by Score, then
Execution: one not ranked is marked "*" with its reason, as `harness leaderboard` prints it),
the open run's model highlighted. Registered boards come first, the bundled case's current
version first; boards of unregistered content follow them, labelled (docs/case-identity.md).
Queries run off the GUI thread; double-click opens that run."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from PySide6.QtCore import QModelIndex, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStackedWidget,
    QStyledItemDelegate,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.harness.ranking import UNRANKED_NOTE, agent_label
from lattice_desktop.manifest.case_identity import CaseIdentity, identify
from lattice_desktop.store.field import Leaderboard, leaderboard
from lattice_desktop.store.pages import (
    BoardChoices,
    BoardScope,
    HarnessBoardRow,
    HarnessRunRef,
    RunPage,
    board_choices,
)
from lattice_desktop.ui.common.copy_table import CopyTable
from lattice_desktop.ui.common.delegates import ID_ROLE, BarDelegate
from lattice_desktop.ui.common.latest_query import LatestQuery
from lattice_desktop.ui.leaderboard.harness_board import HarnessBoard
from lattice_desktop.ui.leaderboard.model import FuelBoardModel

PERF, HARNESS = "perf", "harness"


def find_data(picker: QComboBox, value: object) -> int:
    """The index of the item whose data equals `value`, or -1. (`QComboBox.findData`
    compares Python objects such as tuples by identity, so an equal tuple is not found.)"""
    return next((i for i in range(picker.count()) if picker.itemData(i) == value), -1)


class LeaderboardTab(QWidget):
    open_run = Signal(int)
    open_harness_run = Signal(int)
    failed = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.choices = BoardChoices([], {})
        self.preferred: tuple[str, str, object, object] | None = None  # kind, name, version, variant
        self.preferred_content: str | None = None  # the open run's case content
        self.open_model: str | None = None
        self.open_agent: tuple[str, str] | None = None  # the open harness run's harness, model
        self.fuel_model = FuelBoardModel(self)
        self.harness_model = HarnessBoard(self)
        self._choices_query = LatestQuery(self._on_choices, self)
        self._board_query = LatestQuery(self._on_board, self)
        for query in (self._choices_query, self._board_query):
            query.failed.connect(self.failed)

        self.case_picker, self.version_picker, self.variant_picker = QComboBox(), QComboBox(), QComboBox()
        self.content_picker = QComboBox()
        self.case_picker.setMinimumContentsLength(16)
        for picker in (self.version_picker, self.variant_picker, self.content_picker):
            picker.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)  # "stage qualifier" fits
        self.case_picker.currentIndexChanged.connect(self._on_case_picked)
        self.version_picker.currentIndexChanged.connect(self._on_version_picked)
        self.variant_picker.currentIndexChanged.connect(self._on_variant_picked)
        self.content_picker.currentIndexChanged.connect(self._request_board)
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh)
        self.scope_note = QLabel()
        self.scope_note.setEnabled(False)
        self.scope_note.setWordWrap(True)

        self.table = CopyTable()
        # The fuel board's column 2 draws bars (170 px wide); a harness board's is a number.
        self.bar_delegate, self.plain_delegate = BarDelegate(self.table), QStyledItemDelegate(self.table)
        self.table.doubleClicked.connect(self._on_double_click)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.empty = QLabel(
            "No leaderboard yet.\n\nA board ranks each model's best correct run — "
            "grade a submission (Ctrl+G) or the demo samples to start one."
        )
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.table)

        pickers = QHBoxLayout()
        for label, picker in (
            ("Case", self.case_picker),
            ("Version", self.version_picker),
            ("Variant", self.variant_picker),
            ("Content", self.content_picker),
        ):
            pickers.addWidget(QLabel(label))
            pickers.addWidget(picker)
        pickers.addStretch(1)
        pickers.addWidget(refresh)
        layout = QVBoxLayout(self)
        layout.addLayout(pickers)
        layout.addWidget(self.scope_note)
        layout.addWidget(self.stack, 1)

    # Public --------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """Its choices or its board are being read."""
        return self._choices_query.busy or self._board_query.busy

    def refresh(self) -> None:
        self._choices_query.request(board_choices)

    def show_page(self, page: RunPage | None) -> None:
        """Follow the open run: its case's board, its model highlighted."""
        if page is None:
            return
        s = page.run.summary
        self.open_model, self.open_agent = s.model, None
        self.preferred = (PERF, s.case_name, s.case_version, s.case_variant)
        self.preferred_content = page.run.manifest_hash
        self.fuel_model.set_highlight(s.model)
        self._select_preferred()

    def show_harness(self, box: str, stage: str, model: str, harness: str | None = None) -> None:
        """Follow an open harness run: its box's board, its harness and model highlighted."""
        self.open_model = model
        self.open_agent = (harness, model) if harness is not None else None
        self.preferred = (HARNESS, box, stage, None)
        self.harness_model.set_agent(self.open_agent)
        self._select_preferred()

    # Pickers -------------------------------------------------------------------------

    @Slot(object)
    def _on_choices(self, choices: BoardChoices) -> None:
        self.choices = replace(choices, scopes=sorted(choices.scopes, key=board_order))
        current = self.case_picker.currentData()
        self.case_picker.blockSignals(True)
        self.case_picker.clear()
        for name in dict.fromkeys(s.case_name for s in self.choices.scopes):  # registered first
            self.case_picker.addItem(name, (PERF, name))
        for box in sorted({box for _stage, box in choices.harness_keys()}):
            self.case_picker.addItem(f"{box} (harness box)", (HARNESS, box))
        self.case_picker.blockSignals(False)
        if not self._select_preferred():
            index = find_data(self.case_picker, current) if current else 0
            self.case_picker.setCurrentIndex(max(0, index))
            self._on_case_picked()
        if self.case_picker.count() == 0:
            self.stack.setCurrentIndex(0)

    def _select_preferred(self) -> bool:
        if self.preferred is None:
            return False
        kind, name, version, variant = self.preferred
        index = find_data(self.case_picker, (kind, name))
        if index < 0:
            return False
        self._set_quietly(self.case_picker, index)
        self._fill_versions()
        self._set_quietly(self.version_picker, max(0, find_data(self.version_picker, version)))
        self._fill_variants()
        if variant is not None:
            self._set_quietly(self.variant_picker, max(0, find_data(self.variant_picker, variant)))
        self._fill_contents()
        if kind == PERF:
            found = find_data(self.content_picker, self.preferred_content)
            self._set_quietly(self.content_picker, max(0, found))
        self._request_board()
        return True

    @staticmethod
    def _set_quietly(picker: QComboBox, index: int) -> None:
        picker.blockSignals(True)
        picker.setCurrentIndex(index)
        picker.blockSignals(False)

    def _scopes(self) -> list[BoardScope]:
        kind_name = self.case_picker.currentData()
        if not kind_name or kind_name[0] != PERF:
            return []
        return [s for s in self.choices.scopes if s.case_name == kind_name[1]]

    def _fill_versions(self) -> None:
        picker = self.version_picker
        picker.blockSignals(True)
        picker.clear()
        kind_name = self.case_picker.currentData()
        if kind_name and kind_name[0] == HARNESS:
            for stage in sorted({st for st, box in self.choices.harness_keys() if box == kind_name[1]}):
                picker.addItem(f"stage {stage}", stage)
        else:  # in board order: registered versions first, each labelled when it has none
            scopes = self._scopes()
            for version in dict.fromkeys(s.version for s in scopes):
                registered = any(scope_identity(s).registered for s in scopes if s.version == version)
                picker.addItem(str(version) if registered else f"{version} — unregistered", version)
        picker.blockSignals(False)

    def _fill_variants(self) -> None:
        picker = self.variant_picker
        picker.blockSignals(True)
        picker.clear()
        version = self.version_picker.currentData()
        variants = list(dict.fromkeys(s.variant for s in self._scopes() if s.version == version))
        for variant in variants:
            picker.addItem(variant, variant)
        picker.setEnabled(bool(variants))
        picker.blockSignals(False)

    def _fill_contents(self) -> None:
        """The case contents with runs at the picked version and variant: the registered one
        first, each other one labelled as unregistered."""
        picker = self.content_picker
        picker.blockSignals(True)
        picker.clear()
        for scope in self._picked_scopes():
            identity = scope_identity(scope)
            if find_data(picker, scope.content) < 0:
                text = f"registered {identity.content[:12]}" if identity.registered else identity.note
                picker.addItem(text, scope.content)
        picker.setEnabled(picker.count() > 1)
        picker.blockSignals(False)

    def _picked_scopes(self) -> list[BoardScope]:
        version, variant = self.version_picker.currentData(), self.variant_picker.currentData()
        return [s for s in self._scopes() if s.version == version and s.variant == variant]

    @Slot()
    def _on_case_picked(self) -> None:
        self._fill_versions()
        self._on_version_picked()

    @Slot()
    def _on_version_picked(self) -> None:
        self._fill_variants()
        self._on_variant_picked()

    @Slot()
    def _on_variant_picked(self) -> None:
        self._fill_contents()
        self._request_board()

    # Boards --------------------------------------------------------------------------

    @Slot()
    def _request_board(self) -> None:
        kind_name = self.case_picker.currentData()
        if not kind_name:
            return
        if kind_name[0] == HARNESS:
            self._show_harness_board(kind_name[1], self.version_picker.currentData())
            return
        version, variant = self.version_picker.currentData(), self.variant_picker.currentData()
        content = self.content_picker.currentData()
        scopes = [s for s in self._picked_scopes() if s.content == content]
        wasmtime = scopes[0].wasmtime_version if scopes else None  # the newest first
        self._board_query.request(
            partial(leaderboard, content=content if scopes else None),
            kind_name[1],
            version,
            variant,
            wasmtime,
        )

    @Slot(object)
    def _on_board(self, board: Leaderboard) -> None:
        kind_name = self.case_picker.currentData()
        if not kind_name or kind_name[0] != PERF:
            return  # a harness box was picked since: this answer is stale
        self.table.setModel(self.fuel_model)
        self.table.setItemDelegateForColumn(2, self.bar_delegate)
        self.fuel_model.set_board(board)
        self.fuel_model.set_highlight(self.open_model)
        self.table.clearSpans()
        if self.fuel_model.section_row is not None:
            self.table.setSpan(self.fuel_model.section_row, 0, 1, len(self.fuel_model.columns))
        self._fit_columns()
        ranked = len(board.entries)
        self.scope_note.setText(
            f"{board.case_name} {board.version}/{board.variant} · wasmtime {board.wasmtime_version}"
            f" · {board.content_label} · {ranked} model{'s' if ranked != 1 else ''} ranked by their best"
            " correct fuel (lower is better)"
        )
        self.stack.setCurrentIndex(1 if self.fuel_model.rows else 0)
        if not self.fuel_model.rows:
            self.empty.setText(
                "No correct run of this case yet — only correct runs are ranked.\n"
                "Grade a submission (Ctrl+G)."
            )

    def _show_harness_board(self, box: str, stage: str | None) -> None:
        rows = self.choices.harness.get((stage or "", box), [])
        unranked = self.choices.harness_unranked.get((stage or "", box), [])
        self.table.setModel(self.harness_model)
        self.table.setItemDelegateForColumn(2, self.plain_delegate)
        self.table.clearSpans()
        self.harness_model.set_rows(rows)
        self.harness_model.set_agent(self.open_agent)
        self._fit_columns()
        self.scope_note.setText(
            f"harness box {box} · stage {stage} · each agent at its best run, placed by Score, "
            'then Execution (0..1, higher is better); "-" is a metric that could not be '
            "measured, never 0" + unranked_note(rows, unranked)
        )
        self.stack.setCurrentIndex(1 if rows else 0)
        if not rows:
            self.empty.setText(
                "No harness run of this box and stage yet — File > Import harness run… to add one."
            )

    def _fit_columns(self) -> None:
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.resizeColumnsToContents()
        # The last column takes the spare width: a harness board's Run, so its metrics stay
        # next to the names.
        header.setStretchLastSection(True)
        if self.table.model() is self.fuel_model:
            self.table.setColumnWidth(2, max(self.table.columnWidth(2), 260))

    @Slot(QModelIndex)
    def _on_double_click(self, index: QModelIndex) -> None:
        run_id = index.data(ID_ROLE)
        if run_id is None:
            return
        if self.table.model() is self.harness_model:
            self.open_harness_run.emit(run_id)
        else:
            self.open_run.emit(run_id)


def scope_identity(scope: BoardScope) -> CaseIdentity:
    return identify(scope.case_name, scope.version, scope.variant, scope.content)


def board_order(scope: BoardScope) -> tuple[bool, int, str, str, int]:
    """Registered boards first, each name's newest registered version (the bundled case's
    current one) first; then the boards of unregistered content, never ahead of a registered
    one however new their runs. Within a board, the newest wasmtime's runs come first."""
    return (
        not scope_identity(scope).registered,
        -scope.version,
        scope.variant,
        scope.content or "",
        -scope.latest,
    )


def unranked_note(board: list[HarnessBoardRow], unranked: list[HarnessRunRef], *, listed: int = 3) -> str:
    """Under a harness board: what its "*" means (when a row has one), then the runs of the box
    that are not ranked, the first few by id with their reasons."""
    if not unranked:
        return ""
    lines = [UNRANKED_NOTE] if any(not row.ranked for row in board) else []
    named = "; ".join(
        f"run {r.label} ({agent_label(r.result)}): {r.result.unranked}" for r in unranked[:listed]
    )
    more = f"; and {len(unranked) - listed} more" if len(unranked) > listed else ""
    runs = "1 run is" if len(unranked) == 1 else f"{len(unranked)} runs are"
    lines.append(f"{runs} not ranked — {named}{more} (lattice-desktop harness leaderboard lists them all)")
    return "\n" + "\n".join(lines)
