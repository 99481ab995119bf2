"""The scrub slider: a mark per snapshot (short green where the checksums match, tall
red where they differ, a red triangle at the first divergence), a yellow diamond at the
first tick whose state departs (once found) and a faint bar for the stretch of the run
whose keyframes are cached."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPolygonF
from PySide6.QtWidgets import QSlider, QStyle, QStyleOptionSlider

from lattice_desktop.lattice.snapshots import Snapshots
from lattice_desktop.ui.factory.snapshots import MATCH, MISMATCH


class Timeline(QSlider):
    def __init__(self, parent=None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setMinimumHeight(34)
        self.setPageStep(1)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.snapshots: Snapshots | None = None
        self._status = np.zeros(0, np.int8)
        self.prepared = 0.0
        self.first_wrong: int | None = None  # the first tick whose state departs, once found

    def set_snapshots(self, snapshots: Snapshots | None) -> None:
        self.snapshots = snapshots
        self._status = snapshots.status() if snapshots else np.zeros(0, np.int8)
        self.update()

    def set_first_wrong(self, tick: int | None) -> None:
        self.first_wrong = tick
        self.update()

    def set_prepared(self, fraction: float) -> None:
        self.prepared = fraction
        self.update()

    def _track(self) -> tuple[float, float, QRect]:
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        style = self.style()
        groove = style.subControlRect(
            QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderGroove, self
        )
        handle = style.subControlRect(
            QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderHandle, self
        )
        left = groove.left() + handle.width() / 2
        return left, max(1.0, groove.width() - handle.width()), groove

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        left, span, groove = self._track()
        base = groove.center().y() + 7
        if self.prepared > 0:
            painter.fillRect(int(left), base + 4, int(span * self.prepared), 2, QColor(120, 160, 220, 110))
        if self.snapshots is not None and len(self._status):
            self._paint_marks(painter, left, span, base)
        if self.first_wrong is not None:  # a diamond: the moment the submission went wrong
            x = left + span * (self.first_wrong - self.minimum()) / max(1, self.maximum() - self.minimum())
            painter.setBrush(QColor("#FFD84D"))
            painter.setPen(QColor(MISMATCH))
            painter.drawPolygon(
                QPolygonF(
                    [
                        QPointF(x, base - 16),
                        QPointF(x + 4, base - 11),
                        QPointF(x, base - 6),
                        QPointF(x - 4, base - 11),
                    ]
                )
            )
        painter.end()
        super().paintEvent(event)

    def _paint_marks(self, painter: QPainter, left: float, span: float, base: int) -> None:
        if self.snapshots is None:
            return
        ticks = (np.arange(len(self._status)) + 1) * self.snapshots.interval
        total = max(1, self.maximum() - self.minimum())
        xs = (left + span * (ticks - self.minimum()) / total).astype(np.int64)
        # One mark per pixel column: a mismatch anywhere in the column wins.
        for status, colour, height in ((1, MATCH, 4), (-1, "#777777", 4), (0, MISMATCH, 9)):
            columns = np.unique(xs[self._status == status])
            painter.setPen(QColor(colour))
            for x in columns.tolist():
                painter.drawLine(x, base - height + 2, x, base + 2)
        first = self.snapshots.first_divergence
        if first is not None:
            x = float(xs[first])
            painter.setBrush(QColor(MISMATCH))
            painter.setPen(Qt.PenStyle.NoPen)
            painter.drawPolygon(
                QPolygonF([QPointF(x - 4, base - 13), QPointF(x + 4, base - 13), QPointF(x, base - 8)])
            )
