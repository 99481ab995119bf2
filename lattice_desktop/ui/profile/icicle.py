"""The icicle chart: the call graph's fuel as bars by depth, drawn in one paint pass.

The layout (`profile.flame.icicle`) is plain Python; this widget only scales and paints
it. Bars whose width is apportioned (under a shared callee) are hatched and say so in
their tooltip. Each chart fills its width; with a compared run, a ruler above the bars
shows this chart's total on a scale shared with the other (`set_scale_total`).
"""

from __future__ import annotations

import hashlib

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QHelpEvent, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from lattice_desktop.formatting import fuel
from lattice_desktop.profile.flame import Bar, icicle
from lattice_desktop.profile.model import Profile

ROW = 20
RULER = 8
# Okabe–Ito, colour-blind safe; a function keeps its colour across runs (hash of its name).
PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999")


def colour_of(name: str) -> QColor:
    digest = hashlib.blake2s(name.encode("utf-8", "replace"), digest_size=2).digest()
    return QColor(PALETTE[int.from_bytes(digest, "big") % len(PALETTE)])


class IcicleChart(QWidget):
    function_clicked = Signal(int)  # a function's index

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.profile: Profile | None = None
        self.bars: list[Bar] = []
        self.scale_total = 0
        self.selected: int | None = None
        self.setMouseTracking(True)
        self.setMinimumHeight(ROW * 4)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    def set_profile(self, profile: Profile | None) -> None:
        self.profile = profile
        self.bars = icicle(profile) if profile is not None else []
        self.scale_total = profile.total if profile is not None else 0
        self._fit()

    def _fit(self) -> None:
        self.setMinimumHeight(self.sizeHint().height())
        self.updateGeometry()
        self.update()

    def set_scale_total(self, total: int) -> None:
        """Show a ruler: this chart's total as a share of `total` (the larger of two runs)."""
        self.scale_total = max(total, self.profile.total if self.profile else 0)
        self._fit()

    def _top(self) -> int:
        return RULER if self.profile is not None and self.scale_total != self.profile.total else 0

    def select(self, index: int | None) -> None:
        self.selected = index
        self.update()

    def depth(self) -> int:
        return 1 + max((b.depth for b in self.bars), default=-1)

    def sizeHint(self) -> QSize:
        return QSize(600, max(4, self.depth()) * ROW + 2 + self._top())

    def _rect(self, bar: Bar) -> QRectF:
        total = self.profile.total if self.profile is not None else 0
        per = (self.width() - 1) / total if total else 0.0
        return QRectF(bar.start * per, self._top() + bar.depth * ROW, max(1.0, bar.width * per), ROW - 1)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        hatch = QBrush(QColor(0, 0, 0, 70), Qt.BrushStyle.BDiagPattern)
        text = QColor("#111111")
        metrics = painter.fontMetrics()
        if self._top() and self.profile is not None:
            painter.fillRect(QRectF(0, 1, self.width() - 1, RULER - 3), QColor(128, 128, 128, 60))
            share = self.profile.total / self.scale_total
            painter.fillRect(QRectF(0, 1, max(2.0, (self.width() - 1) * share), RULER - 3), QColor("#0072B2"))
        for bar in self.bars:
            rect = self._rect(bar)
            if rect.width() < 1.0:
                continue
            painter.fillRect(rect, colour_of(bar.name))
            if not bar.exact:
                painter.fillRect(rect, hatch)
            if bar.index == self.selected:
                painter.setPen(QPen(QColor("#000000"), 2))
                painter.drawRect(rect.adjusted(1, 1, -1, -1))
            if rect.width() > 40:
                label = metrics.elidedText(
                    f"{bar.name} {fuel(round(bar.width))}", Qt.TextElideMode.ElideRight, int(rect.width()) - 6
                )
                painter.setPen(text)
                painter.drawText(rect.adjusted(3, 0, -3, 0), Qt.AlignmentFlag.AlignVCenter, label)
        painter.end()

    def bar_at(self, point: QPointF) -> Bar | None:
        for bar in self.bars:
            if self._rect(bar).contains(point):
                return bar
        return None

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            bar = self.bar_at(QPointF(event.pos()))
            if bar is None or self.profile is None:
                QToolTip.hideText()
            else:
                share = self.profile.percent(round(bar.width))
                how = "exact" if bar.exact else "apportioned: under a function with several callers"
                QToolTip.showText(
                    event.globalPos(),
                    f"{bar.name}\n{round(bar.width):,} fuel ({share:.1f}% of the case)\n{how}",
                    self,
                )
            return True
        return super().event(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        bar = self.bar_at(event.position())
        if bar is not None:
            self.function_clicked.emit(bar.index)
