"""The overview of the whole grid in a corner of the map: the factory's layout, where the
differences are (each grown to at least a few pixels so a lone cell still shows), and the
visible region outlined; click or drag it to move the map there."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QWidget

from lattice_desktop.lattice.scenario import Entity
from lattice_desktop.ui.factory import palette as pal

SIDE = 168  # the overview's longer side at most, pixels
MIN_SIDE = 72
MIN_MARK = 3  # a difference covers at least this many pixels each way

_LAYOUT_RGB = {
    Entity.EMPTY: (21, 23, 28),
    Entity.WALL: (90, 90, 96),
    Entity.BELT: (58, 64, 78),
    Entity.SOURCE: (120, 150, 200),
    Entity.SINK: (70, 70, 70),
    Entity.ASSEMBLER: (150, 120, 80),
}


def overview(entity: np.ndarray, counts: np.ndarray | None, side: int = SIDE) -> np.ndarray:
    """(h, w, 4) RGBA of the grid shrunk to fit `side` pixels, differences painted on top."""
    height, width = entity.shape
    scale = min(side / width, side / height)
    out_w, out_h = max(1, round(width * scale)), max(1, round(height * scale))
    ys = np.minimum((np.arange(out_h) / scale).astype(np.int64), height - 1)
    xs = np.minimum((np.arange(out_w) / scale).astype(np.int64), width - 1)
    lut = np.zeros((256, 4), np.uint8)
    lut[:, 3] = 255
    for code, rgb in _LAYOUT_RGB.items():
        lut[code, :3] = rgb
    image = lut[entity[np.ix_(ys, xs)]]
    if counts is not None and counts.any():
        cy, cx = np.nonzero(counts)
        py, px = (cy * scale).astype(np.int64), (cx * scale).astype(np.int64)
        grow = max(MIN_MARK, int(np.ceil(scale)))
        mark = np.zeros((out_h, out_w), bool)
        for dy in range(grow):
            for dx in range(grow):
                mark[
                    np.minimum(py + dy - grow // 2, out_h - 1).clip(0),
                    np.minimum(px + dx - grow // 2, out_w - 1).clip(0),
                ] = True
        image[mark] = (*pal.MARK_RGBA[:3], 255)
    return np.ascontiguousarray(image)


class Minimap(QWidget):
    """Emits `centre(x, y)` in cell coordinates when clicked or dragged."""

    centre = Signal(float, float)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        self.setToolTip("Overview: red marks where the factories differ; drag to move the map")
        self._image: QImage | None = None
        self._pixels: np.ndarray | None = None
        self._source: tuple[np.ndarray, np.ndarray | None] | None = None
        self.side = SIDE
        self._grid = (1, 1)
        self._visible = QRectF()
        self.hide()

    def set_grid(self, entity: np.ndarray | None, counts: np.ndarray | None) -> None:
        if entity is None:
            self._image, self._pixels, self._source = None, None, None
            self.hide()
            return
        self._source = (entity, counts)
        self._grid = (entity.shape[1], entity.shape[0])
        self._pixels = overview(entity, counts, self.side)
        h, w = self._pixels.shape[:2]
        self._image = QImage(self._pixels.data, w, h, 4 * w, QImage.Format.Format_RGBA8888)
        self.setFixedSize(w + 2, h + 2)
        self.show()
        self.update()

    def fit_to(self, width: int) -> None:
        """Take about a fifth of a map `width` pixels wide (between MIN_SIDE and SIDE)."""
        side = max(MIN_SIDE, min(SIDE, width // 5))
        if side != self.side:
            self.side = side
            if self._source is not None:
                self.set_grid(*self._source)

    def set_visible_region(self, cells: QRectF) -> None:
        self._visible = QRectF(cells)
        self.update()

    def _scale(self) -> float:
        if self._pixels is None:
            return 1.0
        return self._pixels.shape[1] / self._grid[0]

    def paintEvent(self, _event) -> None:
        if self._image is None:
            return
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(pal.GROUND))
        painter.drawImage(1, 1, self._image)
        scale = self._scale()
        view = QRectF(
            1 + self._visible.x() * scale,
            1 + self._visible.y() * scale,
            self._visible.width() * scale,
            self._visible.height() * scale,
        )
        painter.setPen(QPen(QColor(pal.FOCUS_OUTLINE), 1.5))
        painter.drawRect(view.intersected(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)))
        painter.setPen(QPen(QColor("#888888"), 1))
        painter.drawRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5))
        painter.end()

    def _emit_at(self, point: QPointF) -> None:
        scale = self._scale()
        self.centre.emit((point.x() - 1) / scale, (point.y() - 1) / scale)

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.setCursor(Qt.CursorShape.ClosedHandCursor)
            self._emit_at(event.position())

    def mouseMoveEvent(self, event) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._emit_at(event.position())

    def mouseReleaseEvent(self, _event) -> None:
        self.setCursor(Qt.CursorShape.OpenHandCursor)
