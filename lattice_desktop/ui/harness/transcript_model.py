"""The transcript as a table model over the stored pages: a row per event of the filter
in force, read a page at a time off the GUI thread as the view asks for rows (a row not
read yet shows "…" until its page arrives). Filtering by kind, by the evidence behind a
metric or by a search's hits is a pass over one byte per event, never over the rows."""

from __future__ import annotations

import json

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer, Slot

from lattice_desktop.harness.transcript import KINDS, Row
from lattice_desktop.store.transcripts import PAGE_ROWS, TranscriptHead, load_pages
from lattice_desktop.ui.common import theme
from lattice_desktop.ui.common.latest_query import LatestQuery

Index = QModelIndex | QPersistentModelIndex
ROOT = QModelIndex()
COLUMNS = ("Line", "Time", "Kind", "Event", "Spend $", "Evidence")
NUMERIC = frozenset({"Line", "Time", "Spend $"})
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
LOADING = "…"
MOST_PAGES = 256  # pages kept in memory (128k rows): scrolling back re-reads the rest
KIND_LOOK = {
    "message": theme.BLUE,
    "tool_call": None,
    "model_call": theme.PURPLE,
    "capture": theme.GREEN,
    "probe": theme.AMBER,
    "refusal": theme.GREEN,
    "check": theme.AMBER,
    "paused": theme.GREY,
    "error": theme.RED,
    "run": theme.GREY,
}


class TranscriptModel(QAbstractTableModel):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.head: TranscriptHead | None = None
        self.rows = np.zeros(0, dtype=np.int64)  # event positions shown, in order
        self.highlight = 0  # evidence marks drawn tinted
        self._kinds = np.zeros(0, dtype=np.uint8)
        self._marks = np.zeros(0, dtype=np.uint8)
        self._pages: dict[int, list[Row]] = {}
        self._wanted: set[int] = set()
        self._asked: set[int] = set()
        self._fetch = LatestQuery(self._on_pages, self)
        self._batch = QTimer(self, singleShot=True, interval=0)
        self._batch.timeout.connect(self._request)

    @property
    def fetcher(self) -> LatestQuery:
        return self._fetch

    def set_head(self, head: TranscriptHead | None) -> None:
        self.beginResetModel()
        self.head = head
        self._pages, self._wanted, self._asked = {}, set(), set()
        self._fetch.forget()
        if head is None:
            self._kinds = self._marks = np.zeros(0, dtype=np.uint8)
        else:
            self._kinds = np.frombuffer(head.kinds, dtype=np.uint8)
            self._marks = np.frombuffer(head.marks, dtype=np.uint8)
            self._pages[0] = head.first_page
        self.rows = np.arange(len(self._kinds), dtype=np.int64)
        self.highlight = 0
        self.endResetModel()

    def count_of(self, kind: str) -> int:
        return int(np.count_nonzero(self._kinds == KINDS.index(kind)))

    def set_filter(
        self, *, kinds: set[str] | None = None, marks: int | None = None, hits: list[int] | None = None
    ) -> None:
        """Show the events of these kinds (None: all), carrying any of `marks` (None: any;
        0: none, the evidence of a metric that was not measured), among a search's `hits`
        (None: no search)."""
        mask = np.ones(len(self._kinds), dtype=bool)
        if kinds is not None:
            mask &= np.isin(self._kinds, [KINDS.index(k) for k in kinds])
        if marks is not None:
            mask &= (self._marks & marks) != 0
        if hits is not None:
            chosen = np.zeros(len(self._kinds), dtype=bool)
            chosen[np.asarray(hits, dtype=np.int64)] = True
            mask &= chosen
        self.beginResetModel()
        self.rows = np.flatnonzero(mask)
        self.highlight = marks or 0
        self.endResetModel()

    def event_at(self, row: int) -> Row | None:
        """The row's event, or None while its page is being read."""
        position = int(self.rows[row])
        page = self._pages.get(position // PAGE_ROWS)
        if page is None:
            self._want(position // PAGE_ROWS)
            return None
        return page[position % PAGE_ROWS]

    def row_of(self, position: int) -> int | None:
        found = int(np.searchsorted(self.rows, position))
        return found if found < len(self.rows) and self.rows[found] == position else None

    # Qt's side -----------------------------------------------------------------------

    def rowCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = ROOT) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.TextAlignmentRole and COLUMNS[section] in NUMERIC:
            return RIGHT
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        col = COLUMNS[index.column()]
        event = self.event_at(index.row())
        if event is None:
            return LOADING if role == Qt.ItemDataRole.DisplayRole and col == "Event" else None
        line, t, kind, title, _detail, spend, marks, note = event
        if role == Qt.ItemDataRole.DisplayRole:
            return {
                "Line": str(line) if line else "",
                "Time": f"{t:,.3f}",
                "Kind": KINDS[kind].replace("_", " "),
                "Event": title,
                "Spend $": spend,
                "Evidence": note,
            }[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            when = f"t = {t!r} s (as the trace records it)"
            return "\n".join(p for p in (title, when, note) if p)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in NUMERIC:
            return RIGHT
        if role == Qt.ItemDataRole.FontRole and col in ("Event", "Spend $"):
            return theme.monospace()
        if role == Qt.ItemDataRole.ForegroundRole and col == "Kind":
            return KIND_LOOK.get(KINDS[kind])
        if role == Qt.ItemDataRole.BackgroundRole and marks & self.highlight:
            return theme.tint(theme.accent(), 40)
        return None

    # Reading pages ---------------------------------------------------------------------

    def _want(self, page: int) -> None:
        if page not in self._asked:
            self._wanted.add(page)
            self._batch.start()

    @Slot()
    def _request(self) -> None:
        if not self._wanted or self.head is None:
            return
        # A newer request drops the older one: ask again for every page still awaited.
        pages, self._wanted = sorted(self._asked | self._wanted), set()
        self._asked = set(pages)
        memory = self.head.memory
        if memory is not None:  # made from the stored trace: already in memory, compressed
            self._on_pages({n: memory.page(n) for n in pages if n < len(memory.pages)})
            return
        self._fetch.request(load_pages, self.head.run_id, pages)

    def _on_pages(self, pages: dict[int, list[Row]]) -> None:
        self._asked -= set(pages)
        while len(self._pages) + len(pages) > MOST_PAGES and self._pages:
            self._pages.pop(next(iter(self._pages)))
        self._pages.update(pages)
        for page in pages:
            first = int(np.searchsorted(self.rows, page * PAGE_ROWS))
            last = int(np.searchsorted(self.rows, (page + 1) * PAGE_ROWS)) - 1
            if first <= last:
                self.dataChanged.emit(self.index(first, 0), self.index(last, len(COLUMNS) - 1))


def detail_text(event: Row) -> str:
    """The event as recorded (JSON pretty-printed when it is JSON), with its evidence note."""
    line, t, _kind, _title, detail, spend, _marks, note = event
    head, _, rest = detail.partition("\n\nresult:\n")
    try:
        body = json.dumps(json.loads(head), ensure_ascii=False, indent=2)
    except ValueError:
        body = head
    parts = [f"line {line} · t = {t!r} s" if line else f"t = {t!r} s (from the log, not a trace line)"]
    if spend:
        parts.append(f"spend so far ${spend}")
    if note:
        parts.append(note)
    return "\n".join(parts) + "\n\n" + body + (f"\n\nresult:\n{rest}" if rest else "")
