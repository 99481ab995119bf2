"""The Profile tab's flame graph: a breadcrumb back from a zoomed frame, a search that
highlights its matches and sums their share, a sandwich view of the selected function,
and the compared run's graph on the same scale, coloured by the change.

Keys (while the graph has the focus): click a frame to zoom into it, drag or ←/→ to pan,
Ctrl+wheel or +/− to zoom, 0 or Esc to zoom out, / to search, S for the sandwich view.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from lattice_desktop.formatting import fuel
from lattice_desktop.profile.flame import Bar, ancestors, icicle, sandwich, search, widths_by_path
from lattice_desktop.profile.model import Profile
from lattice_desktop.ui.profile.flame_graph import FlameGraph

KEYS = "click: zoom · drag, ←/→: pan · Ctrl+wheel, +/−: zoom · 0, Esc: all · /: search · S: sandwich"
LEGEND = "Coloured by change against the compared run: ▲ vermillion more fuel · ▼ blue less · ✚ only here"


class FlamePanel(QWidget):
    function_chosen = Signal(int)  # a function's index in the open run's module

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.profile: Profile | None = None
        self.other: Profile | None = None
        self.selected: int | None = None
        self.crumbs: list[Bar] = []
        self._build()

    def _build(self) -> None:
        self.breadcrumb = QLabel(self)
        self.breadcrumb.setTextFormat(Qt.TextFormat.RichText)
        self.breadcrumb.linkActivated.connect(self._crumb)
        self.breadcrumb.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.search_box = QLineEdit(self)
        self.search_box.setPlaceholderText("Search functions ( / )")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.setMaximumWidth(220)
        self.search_box.textChanged.connect(self._search)
        self.found = QLabel(self)
        self.found.setMinimumWidth(1)  # cut rather than widen the tab
        self.sandwich_button = QToolButton(self)
        self.sandwich_button.setText("Sandwich")
        self.sandwich_button.setCheckable(True)
        self.sandwich_button.setToolTip(
            "The selected function's callers merged above it, its callees below (S)"
        )
        self.sandwich_button.toggled.connect(self._sandwich_toggled)
        self.reset_button = QToolButton(self)
        self.reset_button.setText("Zoom out")
        self.reset_button.setToolTip("Show the whole graph again (0 or Esc)")
        self.reset_button.clicked.connect(self.zoom_out)
        bar = QHBoxLayout()
        bar.addWidget(self.breadcrumb, 1)
        for widget in (self.found, self.search_box, self.sandwich_button, self.reset_button):
            bar.addWidget(widget)

        self.chart, self.other_chart = FlameGraph(self), FlameGraph(self)
        self.chart_label, self.other_label, self.legend = QLabel(self), QLabel(self), QLabel(LEGEND, self)
        self.chart.frame_clicked.connect(self._frame_clicked)
        self.other_chart.frame_clicked.connect(self._other_frame_clicked)
        self.chart.view_changed.connect(self._show_breadcrumb)
        self.callers_label, self.callees_label = QLabel(self), QLabel(self)
        self.callers_chart, self.callees_chart = FlameGraph(self, inverted=True), FlameGraph(self)
        for chart in (self.callers_chart, self.callees_chart):
            chart.frame_clicked.connect(self._sandwich_clicked)
        self.pages = QStackedWidget(self)
        self.pages.addWidget(
            _scrolled(self, [self.chart_label, self.chart, self.other_label, self.legend, self.other_chart])
        )
        self.pages.addWidget(
            _scrolled(self, [self.callers_label, self.callers_chart, self.callees_chart, self.callees_label])
        )
        self.keys = QLabel(KEYS, self)
        self.keys.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.keys.setEnabled(False)  # greyed: a hint, not content
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.keys)
        for keys, slot in (("/", self.search_box.setFocus), ("S", self.sandwich_button.toggle)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        escape_key = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        escape_key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        escape_key.activated.connect(self._escape)

    # What is shown -------------------------------------------------------------------

    def set_profiles(self, profile: Profile, other: Profile | None) -> None:
        """Draw `profile`'s graph, and `other`'s below it on the same scale."""
        self.profile, self.other = profile, other
        scale = max(profile.total, other.total if other else 0)
        ours = icicle(profile)
        self.chart.set_bars(ours, scale=scale, case_total=profile.total)
        self.chart_label.setText(f"This run · {profile.case_name} · {fuel(profile.total)}")
        for widget in (self.other_chart, self.other_label, self.legend):
            widget.setVisible(other is not None)
        if other is not None:
            theirs = icicle(other)
            self.other_chart.set_bars(theirs, scale=scale, case_total=other.total)
            ratio = f" ({other.total / profile.total:.2f}× this run)" if profile.total else ""
            self.other_label.setText(f"Compared run · {other.case_name} · {fuel(other.total)}{ratio}")
            self.chart.set_compared(widths_by_path(theirs))
            self.other_chart.set_compared(widths_by_path(ours))
        else:
            self.other_chart.set_bars([], scale=0, case_total=0)
            self.chart.set_compared(None)
        self._search(self.search_box.text())
        self._show_sandwich()

    def select(self, index: int | None) -> None:
        """Outline the function's frames, and make it the sandwich's middle."""
        self.selected = index
        for chart in (self.chart, self.other_chart):
            chart.select(index if chart is self.chart else self._their_index(index))
        self._show_sandwich()

    def _their_index(self, index: int | None) -> int | None:
        if index is None or self.profile is None or self.other is None:
            return None
        name = self.profile.name_of(index)
        return next((f.index for f in self.other.functions if f.name == name), None)

    # Zoom and breadcrumb ---------------------------------------------------------------

    @Slot()
    def zoom_out(self) -> None:
        self.chart.zoom_to(None)
        self.other_chart.zoom_to(None)

    @Slot()
    def _escape(self) -> None:
        if self.search_box.hasFocus() and self.search_box.text():
            self.search_box.clear()
        else:
            self.zoom_out()

    def zoom_into(self, bar: Bar | None) -> None:
        """Zoom this run's graph into `bar`, and the compared graph into the frame on the same
        path, keeping one scale (the same fuel across the width)."""
        self.chart.zoom_to(bar)
        if bar is None:
            self.other_chart.zoom_to(None)
            return
        theirs = next((b for b in self.other_chart.bars if b.path == bar.path), None)
        if theirs is not None:
            self.other_chart.set_view(theirs.start, bar.width)

    @Slot(object)
    def _frame_clicked(self, bar: Bar) -> None:
        self.zoom_into(bar)
        self.function_chosen.emit(bar.index)

    @Slot(object)
    def _other_frame_clicked(self, bar: Bar) -> None:
        ours = next((b for b in self.chart.bars if b.path == bar.path), None)
        if ours is not None:
            self._frame_clicked(ours)
        else:  # a frame only the compared run has: zoom there, on the shared scale
            self.other_chart.zoom_to(bar)

    @Slot()
    def _show_breadcrumb(self) -> None:
        zoomed = self.chart.zoomed
        self.crumbs = [*ancestors(self.chart.bars, zoomed), zoomed] if zoomed is not None else []
        links = ['<a href="all">All</a>' if self.crumbs else "<b>All</b>"]
        for i, crumb in enumerate(self.crumbs):
            name = escape(crumb.name)
            links.append(name if i == len(self.crumbs) - 1 else f'<a href="{i}">{name}</a>')
        self.breadcrumb.setText(" › ".join(links))
        self.breadcrumb.setToolTip(" › ".join(c.name for c in self.crumbs) or "the whole graph")

    @Slot(str)
    def _crumb(self, href: str) -> None:
        self.zoom_into(None if href == "all" else self.crumbs[int(href)])

    # Search ----------------------------------------------------------------------------

    @Slot(str)
    def _search(self, text: str) -> None:
        searching = bool(text.strip())
        parts = []
        for chart, profile, who in (
            (self.chart, self.profile, "this run"),
            (self.other_chart, self.other, "compared"),
        ):
            found = search(chart.bars, text)
            chart.highlight(found.indices, searching=searching)
            if searching and profile is not None and profile.total:
                parts.append(f"{who}: {fuel(round(found.fuel))} · {100 * found.fuel / profile.total:.1f}%")
        self.found.setText(" · ".join(parts))
        self.found.setToolTip("Fuel spent inside any matching function (a match under another counted once)")

    # Sandwich --------------------------------------------------------------------------

    @Slot(bool)
    def _sandwich_toggled(self, on: bool) -> None:
        self.pages.setCurrentIndex(1 if on else 0)
        self._show_sandwich()

    def _show_sandwich(self) -> None:
        if not self.sandwich_button.isChecked() or self.profile is None:
            return
        ranked = self.profile.ranked()
        index = self.selected if self.selected is not None else ranked[0].index if ranked else None
        if index is None:
            return
        view = sandwich(self.profile, index)
        scale = max((b.width for b in view.callees if b.depth == 0), default=0.0)
        name = self.profile.name_of(index)
        self.callers_chart.set_bars(view.callers, scale=scale, case_total=self.profile.total)
        self.callees_chart.set_bars(view.callees, scale=scale, case_total=self.profile.total)
        self.callers_label.setText(f"Callers of {name}, merged (each as wide as its calls into {name}) ↑")
        self.callees_label.setText(f"↓ Callees of {name}, merged over all its calls")

    @Slot(object)
    def _sandwich_clicked(self, bar: Bar) -> None:
        self.function_chosen.emit(bar.index)


def _scrolled(parent: QWidget, widgets: list[QWidget]) -> QScrollArea:
    """`widgets` stacked at the top of a scroll area that grows with the tab."""
    inner = QWidget(parent)
    layout = QVBoxLayout(inner)
    layout.setContentsMargins(2, 2, 2, 2)
    for widget in widgets:
        layout.addWidget(widget)
    layout.addStretch(1)
    area = QScrollArea(parent)
    area.setWidgetResizable(True)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setWidget(inner)
    return area
