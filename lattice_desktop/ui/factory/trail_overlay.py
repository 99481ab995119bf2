"""The "Why?" trail drawn on the Factory map: a line through the cells it passes, from the
wrong cell back to the first wrong decision, which is ringed."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem

from lattice_desktop.lattice.explain.trail import TrailStep

TRAIL_COLOUR = QColor(255, 0, 200)


class TrailOverlay(QGraphicsPathItem):
    """Added to the map's view box; `show_trail` draws, `clear` hides."""

    def __init__(self) -> None:
        super().__init__()
        pen = QPen(TRAIL_COLOUR, 3)
        pen.setCosmetic(True)
        self.setPen(pen)
        self.setZValue(13)
        self.steps: list[TrailStep] = []
        self.hide()

    def show_trail(self, steps: list[TrailStep]) -> None:
        self.steps = list(steps)
        path = QPainterPath()
        for i, step in enumerate(steps):
            centre = QPointF(step.cell[0] + 0.5, step.cell[1] + 0.5)
            if i == 0:
                path.moveTo(centre)
            else:
                path.lineTo(centre)
            if step.origin:
                path.addEllipse(QRectF(step.cell[0] - 0.5, step.cell[1] - 0.5, 2, 2))
        self.setPath(path)
        self.setVisible(bool(steps))

    def clear(self) -> None:
        self.steps = []
        self.setPath(QPainterPath())
        self.hide()
