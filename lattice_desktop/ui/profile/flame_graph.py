"""One flame graph, painted in one pass: bars of fuel by depth (`profile.flame` lays them
out), zoomed into a frame by a click, panned by dragging or the arrow keys, searched, and
coloured by the change against a compared run.

The x axis is fuel: `scale` fuel fill the width when not zoomed, so two runs' graphs
given the same scale are drawn on one scale (the cheaper run's graph is narrower). A
label is the name and the bar's fuel when both fit, the name alone when only it fits, and
cut with "…" only when not even the name fits; the tooltip always has the full name and
the exact figures.
"""

from __future__ import annotations

import hashlib

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontMetrics,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QWheelEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from lattice_desktop.formatting import fuel
from lattice_desktop.profile.flame import Bar

ROW = 20
DRAG = 4  # pixels the mouse moves before a press is a pan, not a click
PAN_STEP = 0.2  # of the visible width, per arrow key
ZOOM_STEP = 1.5
# Okabe–Ito, colour-blind safe; a function keeps its colour across runs (hash of its name).
PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999")
MORE, LESS, SAME = QColor("#D55E00"), QColor("#0072B2"), QColor("#BBBBBB")


def colour_of(name: str) -> QColor:
    digest = hashlib.blake2s(name.encode("utf-8", "replace"), digest_size=2).digest()
    return QColor(PALETTE[int.from_bytes(digest, "big") % len(PALETTE)])


def change_colour(ours: float, theirs: float | None) -> QColor:
    """Vermillion where this run spends more than the compared one, blue where less, the
    deeper the larger the change (full at ±50%); grey when equal."""
    if theirs is None:
        return MORE
    ratio = (ours - theirs) / max(theirs, 1.0)
    if abs(ratio) < 0.005:
        return SAME
    strength = min(1.0, abs(ratio) / 0.5)
    return _blend(SAME, MORE if ratio > 0 else LESS, 0.35 + 0.65 * strength)


def change_mark(ours: float, theirs: float | None) -> str:
    """The change as a shape too: ✚ only here, ▲ more, ▼ less, nothing when equal."""
    if theirs is None:
        return "✚ "
    ratio = (ours - theirs) / max(theirs, 1.0)
    return "" if abs(ratio) < 0.005 else "▲ " if ratio > 0 else "▼ "


def _blend(a: QColor, b: QColor, t: float) -> QColor:
    return QColor.fromRgbF(
        a.redF() + (b.redF() - a.redF()) * t,
        a.greenF() + (b.greenF() - a.greenF()) * t,
        a.blueF() + (b.blueF() - a.blueF()) * t,
    )


def fitted_label(name: str, figure: str, room: float, metrics: QFontMetrics) -> str:
    """The most of "name · figure" that fits in `room` pixels: elided only if the name
    alone does not fit, and nothing when not even three letters would."""
    for text in (f"{name} · {figure}", name):
        if metrics.horizontalAdvance(text) <= room:
            return text
    if metrics.horizontalAdvance(name[:3] + "…") > room:
        return ""
    return metrics.elidedText(name, Qt.TextElideMode.ElideRight, int(room))


class FlameGraph(QWidget):
    frame_clicked = Signal(object)  # the Bar clicked (zoomed into)
    view_changed = Signal()

    def __init__(self, parent: QWidget | None = None, *, inverted: bool = False) -> None:
        super().__init__(parent)
        self.inverted = inverted  # callers: depth 0 at the bottom
        self.bars: list[Bar] = []
        self.scale = 0.0  # fuel across the width, unzoomed
        self.case_total = 0  # for shares
        self.view = (0.0, 0.0)
        self.zoomed: Bar | None = None
        self.selected: int | None = None
        self.found: frozenset[int] = frozenset()
        self.searching = False
        self.compared: dict[tuple[str, ...], float] | None = None
        self._press: QPointF | None = None
        self._dragged = False
        self._hovered: Bar | None = None
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    # What is drawn -------------------------------------------------------------------

    def set_bars(self, bars: list[Bar], *, scale: float, case_total: int) -> None:
        self.bars, self.scale, self.case_total = bars, float(scale), case_total
        self.view, self.zoomed = (0.0, self.scale), None
        self.updateGeometry()
        self.update()
        self.view_changed.emit()

    def set_compared(self, widths: dict[tuple[str, ...], float] | None) -> None:
        """Colour each bar by its change against the same path's fuel in `widths`."""
        self.compared = widths
        self.update()

    def select(self, index: int | None) -> None:
        self.selected = index
        self.update()

    def highlight(self, indices: frozenset[int], *, searching: bool) -> None:
        self.found, self.searching = indices, searching
        self.update()

    def depth(self) -> int:
        return 1 + max((b.depth for b in self.bars), default=-1)

    def sizeHint(self) -> QSize:
        return QSize(600, max(1, self.depth()) * ROW + 2)

    def minimumSizeHint(self) -> QSize:
        return QSize(120, self.sizeHint().height())

    # Zoom and pan --------------------------------------------------------------------

    def zoom_to(self, bar: Bar | None) -> None:
        """Fill the width with `bar` (None: the whole graph)."""
        self.zoomed = bar
        self.view = (bar.start, bar.end) if bar is not None else (0.0, self.scale)
        self._changed()

    def set_view(self, start: float, width: float) -> None:
        width = min(max(width, 1.0), max(self.scale, 1.0))
        start = min(max(start, 0.0), max(self.scale - width, 0.0))
        self.view = (start, start + width)
        self._changed()

    def pan(self, fraction: float) -> None:
        start, end = self.view
        self.set_view(start + fraction * (end - start), end - start)

    def zoom_by(self, factor: float, *, at: float = 0.5) -> None:
        """Zoom in (`factor` > 1) or out around `at`, a fraction of the width."""
        start, end = self.view
        width = (end - start) / factor
        anchor = start + at * (end - start)
        self.set_view(anchor - at * width, width)

    def _changed(self) -> None:
        self.update()
        self.view_changed.emit()

    # Drawing -------------------------------------------------------------------------

    def rect_of(self, bar: Bar) -> QRectF:
        start, end = self.view
        per = (self.width() - 1) / (end - start) if end > start else 0.0
        row = (self.depth() - 1 - bar.depth) if self.inverted else bar.depth
        left = (bar.start - start) * per
        return QRectF(left, row * ROW, bar.width * per, ROW - 1)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        metrics = painter.fontMetrics()
        visible = QRectF(self.rect())
        for bar in self.bars:
            rect = self.rect_of(bar).intersected(visible)
            if rect.width() < 0.5:
                continue
            fill = self._fill(bar)
            dimmed = self.searching and bar.index not in self.found
            if dimmed:
                fill.setAlpha(60)
            painter.fillRect(rect, fill)
            if not bar.exact:
                hatch = QColor(0, 0, 0, 40 if dimmed else 70)
                painter.fillRect(rect, QBrush(hatch, Qt.BrushStyle.BDiagPattern))
            if bar.index == self.selected or (self.searching and bar.index in self.found):
                painter.setPen(QPen(QColor("#000000"), 2))
                painter.drawRect(rect.adjusted(1, 1, -1, -1))
            mark = change_mark(bar.width, self._theirs(bar)) if self.compared is not None else ""
            label = fitted_label(mark + bar.name, fuel(round(bar.width)), rect.width() - 6, metrics)
            if label:
                painter.setPen(QColor("#777777") if dimmed else QColor("#111111"))
                painter.drawText(rect.adjusted(3, 0, -3, 0), Qt.AlignmentFlag.AlignVCenter, label)
        painter.end()

    def _fill(self, bar: Bar) -> QColor:
        if self.compared is not None:
            return change_colour(bar.width, self._theirs(bar))
        return colour_of(bar.name)

    def _theirs(self, bar: Bar) -> float | None:
        return None if self.compared is None else self.compared.get(bar.path)

    # Hover, click, drag, wheel, keys ---------------------------------------------------

    def bar_at(self, point: QPointF) -> Bar | None:
        for bar in reversed(self.bars):
            if self.rect_of(bar).contains(point):
                return bar
        return None

    def tooltip_of(self, bar: Bar) -> str:
        share = 100.0 * bar.width / self.case_total if self.case_total else 0.0
        lines = [bar.name, f"{round(bar.width):,} fuel · {share:.2f}% of the case"]
        if len(bar.path) > 1:
            lines.append("path: " + " › ".join(bar.path))
        lines.append(
            "exact"
            if bar.exact
            else "apportioned: under a function with several callers, split by their calls"
        )
        if self.compared is not None:
            theirs = self._theirs(bar)
            if theirs is None:
                lines.append("compared run: not on this path")
            else:
                delta = bar.width - theirs
                pct = 100.0 * delta / theirs if theirs else 0.0
                lines.append(f"compared run: {round(theirs):,} fuel · Δ {round(delta):+,} ({pct:+.1f}%)")
        lines.append("click: zoom in · drag: pan")
        return "\n".join(lines)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._press, self._dragged = event.position(), False
        self.setFocus()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        hovered = self.bar_at(event.position())
        if hovered is not self._hovered:  # the widget's tooltip is the hovered frame's
            self._hovered = hovered
            self.setToolTip(self.tooltip_of(hovered) if hovered is not None else "")
        if self._press is None or not event.buttons() & Qt.MouseButton.LeftButton:
            return
        moved = event.position().x() - self._press.x()
        if self._dragged or abs(moved) >= DRAG:
            self._dragged = True
            self.pan(-moved / max(self.width(), 1))
            self._press = event.position()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._press is not None and not self._dragged:
            bar = self.bar_at(event.position())
            if bar is not None:
                self.zoom_to(bar)
                self.frame_clicked.emit(bar)
        self._press = None

    def wheelEvent(self, event: QWheelEvent) -> None:
        delta = event.angleDelta()
        at = event.position().x() / max(self.width(), 1)
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier and delta.y():
            self.zoom_by(ZOOM_STEP if delta.y() > 0 else 1 / ZOOM_STEP, at=at)
        elif delta.x() or event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            steps = (delta.x() or delta.y()) / 120
            self.pan(-steps * PAN_STEP / 2)
        else:
            event.ignore()  # the scroll area scrolls the rows
            return
        event.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = Qt.Key(event.key())
        actions = {
            Qt.Key.Key_Left: lambda: self.pan(-PAN_STEP),
            Qt.Key.Key_Right: lambda: self.pan(PAN_STEP),
            Qt.Key.Key_Plus: lambda: self.zoom_by(ZOOM_STEP),
            Qt.Key.Key_Equal: lambda: self.zoom_by(ZOOM_STEP),
            Qt.Key.Key_Minus: lambda: self.zoom_by(1 / ZOOM_STEP),
            Qt.Key.Key_0: lambda: self.zoom_to(None),
        }
        if key in actions:
            actions[key]()
            event.accept()
        else:
            super().keyPressEvent(event)
