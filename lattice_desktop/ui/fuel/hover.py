"""Hovering a plot shows the exact value under the cursor: points by distance on screen,
bars by their rectangle."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtWidgets import QToolTip

RADIUS_PX = 10


class HoverTips:
    def __init__(self, plot: pg.PlotWidget) -> None:
        self.plot = plot
        self.points: list[tuple[float, float, str]] = []
        self.rects: list[tuple[QRectF, str]] = []
        self.last = ""
        plot.scene().sigMouseMoved.connect(self._moved)

    def clear(self) -> None:
        self.points, self.rects = [], []

    def add_point(self, x: float, y: float, text: str) -> None:
        self.points.append((x, y, text))

    def add_rect(self, rect: QRectF, text: str) -> None:
        self.rects.append((rect, text))

    def text_at(self, scene_pos: QPointF) -> str:
        box = self.plot.getViewBox()
        if not box.sceneBoundingRect().contains(scene_pos):
            return ""
        best, best_d = "", RADIUS_PX
        for x, y, text in self.points:
            p = box.mapViewToScene(QPointF(x, y))
            d = ((p.x() - scene_pos.x()) ** 2 + (p.y() - scene_pos.y()) ** 2) ** 0.5
            if d <= best_d:
                best, best_d = text, d
        if best:
            return best
        point = box.mapSceneToView(scene_pos)
        for rect, text in self.rects:
            if rect.contains(point):
                return text
        return ""

    def _moved(self, scene_pos: QPointF) -> None:
        text = self.text_at(scene_pos)
        self.last = text
        if text:
            view = self.plot
            QToolTip.showText(view.mapToGlobal(view.mapFromScene(scene_pos)), text, view)
        else:
            QToolTip.hideText()
