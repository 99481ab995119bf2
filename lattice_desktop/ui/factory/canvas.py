"""The factory canvas: one ARGB32 image of the visible cells at a zoom-dependent detail,
painted by `raster.Rasterizer` and drawn as it is (no lookup table, no levels); differing
cells and the hovered cell are outlined on top. Wheel zooms, drag pans, F fits the
factory to the window."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsRectItem, QToolTip

from lattice_desktop.lattice.scenario import Scenario
from lattice_desktop.lattice.view import FactoryState, describe_cell, layout
from lattice_desktop.ui.factory import palette as pal
from lattice_desktop.ui.factory.raster import Rasterizer, Region, Static, argb_palette, scale_for

ARGB = argb_palette()


class RasterItem(pg.GraphicsObject):
    """An ARGB32 pixel array shown over a rectangle of view coordinates, nearest-neighbour.

    The QImage wraps the array without copying, so redrawing into the same array and
    calling `update()` is a whole frame; a new array (another size) gets a new QImage.
    """

    def __init__(self) -> None:
        super().__init__()
        self._pixels: np.ndarray | None = None
        self._image: QImage | None = None
        self._rect = QRectF()

    def set_pixels(self, pixels: np.ndarray, rect: QRectF) -> None:
        if pixels is not self._pixels or self._image is None:
            h, w = pixels.shape
            self._pixels = pixels
            self._image = QImage(pixels.data, w, h, 4 * w, QImage.Format.Format_RGB32)
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = QRectF(rect)
        self.update()

    def clear(self) -> None:
        self.prepareGeometryChange()
        self._pixels, self._image, self._rect = None, None, QRectF()
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt's name)
        return QRectF(self._rect)

    def paint(self, painter: QPainter, _option, _widget=None) -> None:
        if self._image is None:
            return
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
        painter.drawImage(self._rect, self._image)


class FactoryCanvas(pg.GraphicsView):
    """Shows one `FactoryState`; emits `hovered(text)` with the hovered cell's description."""

    hovered = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent, background=pal.GROUND)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.box = pg.ViewBox(lockAspect=True, invertY=True, enableMenu=False)
        self.setCentralItem(self.box)
        self.image = RasterItem()
        self.box.addItem(self.image)
        self.outlines = QGraphicsPathItem()
        self.outlines.setPen(_cosmetic(pal.DIFF_OUTLINE, 2))
        self.outlines.setZValue(10)
        self.box.addItem(self.outlines)
        self.cursor = QGraphicsRectItem(0, 0, 1, 1)
        self.cursor.setPen(_cosmetic(pal.HOVER_OUTLINE, 1))
        self.cursor.setZValue(11)
        self.cursor.hide()
        self.box.addItem(self.cursor)
        self.scenario: Scenario | None = None
        self.state: FactoryState | None = None
        self.static: Static | None = None
        self.raster: Rasterizer | None = None
        self.region: Region | None = None
        self.pixels: np.ndarray | None = None  # the ARGB32 image last drawn (reused next frame)
        self._hover: tuple[int, int] | None = None
        self._redraw = QTimer(self, singleShot=True, interval=0)
        self._redraw.timeout.connect(self.draw)
        self.box.sigRangeChanged.connect(self._range_changed)
        self.scene().sigMouseMoved.connect(self._mouse_moved)

    # --- content ----------------------------------------------------------------------------

    def set_scenario(self, scenario: Scenario | None) -> None:
        self.scenario, self.state, self.region = scenario, None, None
        self.static = Static.of(scenario) if scenario is not None else None
        self.raster = Rasterizer(self.static, layout(scenario), ARGB) if scenario is not None else None
        self.pixels = None
        self.set_marked(())
        self.image.clear()
        if scenario is not None:
            self.fit()

    def set_state(self, state: FactoryState) -> None:
        self.state = state
        self.draw()
        if self._hover is not None:
            self._describe(*self._hover)

    def set_marked(self, cells) -> None:
        """Outline these cells (indices c = y·W + x), e.g. where two engines differ."""
        path = QPainterPath()
        if self.scenario is not None:
            w = self.scenario.width
            for c in sorted(cells)[:20000]:
                path.addRect(QRectF(c % w, c // w, 1, 1))
        self.outlines.setPath(path)

    def fit(self) -> None:
        if self.scenario is not None:
            self.box.setRange(QRectF(0, 0, self.scenario.width, self.scenario.height), padding=0.02)

    # --- drawing ----------------------------------------------------------------------------

    def visible_region(self) -> Region | None:
        if self.scenario is None:
            return None
        (left, right), (top, bottom) = self.box.viewRange()
        w, h = self.scenario.width, self.scenario.height
        width_px = max(1.0, self.box.width())
        pixels_per_cell = width_px / max(1e-9, right - left)
        scale = scale_for(pixels_per_cell)
        if scale == 1:
            return Region(0, 0, w, h, 1)
        x0, y0 = max(0, int(np.floor(left)) - 1), max(0, int(np.floor(top)) - 1)
        x1, y1 = min(w, int(np.ceil(right)) + 1), min(h, int(np.ceil(bottom)) + 1)
        if x0 >= x1 or y0 >= y1:
            return Region(0, 0, 1, 1, scale)
        return Region(x0, y0, x1, y1, scale)

    def draw(self) -> None:
        region = self.visible_region()
        if region is None or self.state is None or self.raster is None:
            return
        self.region = region
        self.pixels = self.raster.render(self.state, region)
        self.image.set_pixels(self.pixels, QRectF(region.x0, region.y0, region.x1 - region.x0,
                                                  region.y1 - region.y0))

    def _range_changed(self, *_args) -> None:
        region = self.visible_region()
        if region != self.region and (region is None or self.region is None or region.scale > 1
                                      or self.region.scale > 1):
            self._redraw.start()

    # --- hover and keys ---------------------------------------------------------------------

    def cell_at(self, scene_pos: QPointF) -> tuple[int, int] | None:
        if self.scenario is None:
            return None
        point = self.box.mapSceneToView(scene_pos)
        x, y = int(np.floor(point.x())), int(np.floor(point.y()))
        if 0 <= x < self.scenario.width and 0 <= y < self.scenario.height:
            return x, y
        return None

    def _mouse_moved(self, scene_pos: QPointF) -> None:
        cell = self.cell_at(scene_pos)
        self._hover = cell
        if cell is None:
            self.cursor.hide()
            QToolTip.hideText()
            self.hovered.emit("")
            return
        self.cursor.setRect(QRectF(cell[0], cell[1], 1, 1))
        self.cursor.show()
        text = self._describe(*cell)
        if text:
            QToolTip.showText(self.mapToGlobal(self.mapFromScene(scene_pos)) + _TIP_OFFSET, text, self)

    def _describe(self, x: int, y: int) -> str:
        if self.scenario is None or self.state is None:
            return ""
        text = describe_cell(self.scenario, self.state, x, y)
        self.hovered.emit(text)
        return text

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        if event.key() == Qt.Key.Key_F and not event.modifiers():
            self.fit()
            event.accept()
            return
        super().keyPressEvent(event)

    def leaveEvent(self, event) -> None:  # noqa: N802
        self._hover = None
        self.cursor.hide()
        self.hovered.emit("")
        super().leaveEvent(event)


_TIP_OFFSET = pg.QtCore.QPoint(14, 14)


def _cosmetic(colour: str, width: float) -> QPen:
    pen = QPen(QColor(colour), width)
    pen.setCosmetic(True)
    pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
    return pen
