"""The factory canvas: one ARGB32 image of the visible cells at a zoom-dependent detail,
painted by `raster.Rasterizer` and drawn as it is (no lookup table, no levels). On top:
differing cells tinted in one RGBA image over the whole grid (or coloured by how many
records differ: the heatmap) and, those in view once zoomed in, outlined; the focused
difference ringed, the hovered
cell outlined. Wheel zooms, drag pans, F fits the factory to the window; a click on a
cell emits `clicked(cell)`."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsRectItem, QToolTip

from lattice_desktop.lattice.scenario import Scenario
from lattice_desktop.lattice.view import FactoryState, describe_cell, layout
from lattice_desktop.ui.factory import lod
from lattice_desktop.ui.factory import palette as pal
from lattice_desktop.ui.factory.raster import Rasterizer, Region, Static, argb_palette, scale_for

ARGB = argb_palette()
MAX_OUTLINES = 4000  # outlines drawn as one path; past that the tint and the minimap show them
MIN_OUTLINE_PIXELS = 4.0  # a cell narrower than this on screen shows its mark by the tint alone


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

    def boundingRect(self) -> QRectF:
        return QRectF(self._rect)

    def paint(self, painter: QPainter, _option, _widget=None) -> None:
        if self._image is None:
            return
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
        painter.drawImage(self._rect, self._image)


class FactoryCanvas(pg.GraphicsView):
    """Shows one `FactoryState`; emits `hovered(text)` with the hovered cell's description."""

    hovered = Signal(str)
    clicked = Signal(int)  # a cell index c = y·W + x
    moved = Signal()  # the visible range changed
    scenario_set = Signal()  # another scenario (or none) is shown

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
        self.marks = pg.ImageItem(axisOrder="row-major")
        self.marks.setZValue(9)
        self.box.addItem(self.marks)
        self.focus = QGraphicsRectItem(0, 0, 1, 1)
        self.focus.setPen(_cosmetic(pal.FOCUS_OUTLINE, 3))
        self.focus.setZValue(12)
        self.focus.hide()
        self.box.addItem(self.focus)
        self.heatmap = False
        self.counts: np.ndarray | None = None  # (H, W) differing records per cell
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
        self.pool = 1  # cells per pixel each way when zoomed out past a pixel a cell (lod.py)
        self.pooled: lod.PooledRaster | None = None
        self._hover: tuple[int, int] | None = None
        self._redraw = QTimer(self, singleShot=True, interval=0)
        self._redraw.timeout.connect(self.draw)
        self.box.sigRangeChanged.connect(self._range_changed)
        self.scene().sigMouseMoved.connect(self._mouse_moved)
        self.scene().sigMouseClicked.connect(self._mouse_clicked)

    # --- content ----------------------------------------------------------------------------

    def set_scenario(self, scenario: Scenario | None, raster: Rasterizer | None = None) -> None:
        """`raster`: one made for `scenario` off the GUI thread (a 2048² one takes seconds)."""
        self.scenario, self.state, self.region = scenario, None, None
        if raster is None and scenario is not None:
            raster = Rasterizer(Static.of(scenario), layout(scenario), ARGB)
        self.raster = raster if scenario is not None else None
        self.static = self.raster.static if self.raster is not None else None
        self.pixels = None
        self.set_marked(())
        self.image.clear()
        if scenario is not None:
            self.fit()
        self.scenario_set.emit()

    def set_state(self, state: FactoryState) -> None:
        self.state = state
        self.draw()
        if self._hover is not None:
            self._describe(*self._hover)

    def set_marked(self, cells, counts: dict[int, int] | None = None) -> None:
        """Mark these cells (indices c = y·W + x), e.g. where two engines differ; `counts`
        gives how many records differ per cell, for the heatmap."""
        self.counts = None
        if self.scenario is not None and cells:
            w, h = self.scenario.width, self.scenario.height
            flat = np.zeros(w * h, np.int32)
            index = np.fromiter(cells, np.int64, len(cells))
            flat[index] = np.fromiter((counts.get(c, 1) for c in index.tolist()), np.int32) if counts else 1
            self.counts = flat.reshape(h, w)
        self._outline_visible()
        self._paint_marks()
        if not cells:
            self.focus.hide()

    def _outline_visible(self) -> None:
        """Outline the marked cells in view (a path of every marked cell of a big divergence
        would cost a frame its budget); zoomed out, the tint marks them alone."""
        path = QPainterPath()
        view = self.visible_cells()
        if self.counts is not None and self.box.width() / max(view.width(), 1e-9) >= MIN_OUTLINE_PIXELS:
            h, w = self.counts.shape
            x0, y0 = max(0, int(np.floor(view.left()))), max(0, int(np.floor(view.top())))
            x1, y1 = min(w, int(np.ceil(view.right()))), min(h, int(np.ceil(view.bottom())))
            if x0 < x1 and y0 < y1:
                ys, xs = np.nonzero(self.counts[y0:y1, x0:x1])
                shown = (xs[:MAX_OUTLINES] + x0).tolist(), (ys[:MAX_OUTLINES] + y0).tolist()
                for x, y in zip(*shown, strict=True):
                    path.addRect(QRectF(x, y, 1, 1))
        self.outlines.setPath(path)

    def set_heatmap(self, on: bool) -> None:
        self.heatmap = on
        self._paint_marks()

    def _paint_marks(self) -> None:
        if self.counts is None or self.scenario is None:
            self.marks.clear()
            return
        k = self.pool
        pooled = lod.pool_counts(self.counts, k)
        self.marks.setImage(pal.mark_image(pooled, heatmap=self.heatmap), autoLevels=False)
        self.marks.setRect(QRectF(0, 0, pooled.shape[1] * k, pooled.shape[0] * k))

    def focus_cell(self, cell: int | None, *, span: float | None = 40.0) -> None:
        """Ring `cell` (None: no ring) and centre it as far as the grid allows, zoomed so
        about `span` cells fit across (`span` None: the view stays); a factory no wider
        than `span` is fitted to the view instead, so a tiny one is not drawn tiny."""
        if cell is None or self.scenario is None:
            self.focus.hide()
            return
        w = self.scenario.width
        x, y = cell % w, cell // w
        self.focus.setRect(QRectF(x - 0.25, y - 0.25, 1.5, 1.5))
        self.focus.show()
        if span is not None and max(w, self.scenario.height) <= span:
            # A factory smaller than the span: all of it, as large as the view allows, with
            # room for the ring round an edge cell.
            self.box.setRange(QRectF(-0.3, -0.3, w + 0.6, self.scenario.height + 0.6), padding=0)
        elif span is not None:
            self.box.setRange(QRectF(x + 0.5 - span / 2, y + 0.5 - span / 2, span, span), padding=0)
            (left, right), (top, bottom) = self.box.viewRange()
            dx = _inside(left, right, self.scenario.width)
            dy = _inside(top, bottom, self.scenario.height)
            if dx or dy:  # a cell near an edge: show as much of the grid as possible around it
                self.box.translateBy(x=dx, y=dy)

    def centre_at(self, x: float, y: float) -> None:
        """Move the view so (x, y) is at its centre, keeping the zoom."""
        (left, right), (top, bottom) = self.box.viewRange()
        dx, dy = x - (left + right) / 2, y - (top + bottom) / 2
        self.box.translateBy(x=dx, y=dy)

    def visible_cells(self) -> QRectF:
        (left, right), (top, bottom) = self.box.viewRange()
        return QRectF(left, top, right - left, bottom - top)

    def fit(self) -> None:
        if self.scenario is not None:
            self.box.setRange(QRectF(0, 0, self.scenario.width, self.scenario.height), padding=0.02)

    # --- drawing ----------------------------------------------------------------------------

    def pixels_per_cell(self) -> float:
        (left, right), _ = self.box.viewRange()
        return max(1.0, self.box.width()) / max(1e-9, right - left)

    def visible_region(self) -> Region | None:
        if self.scenario is None:
            return None
        (left, right), (top, bottom) = self.box.viewRange()
        w, h = self.scenario.width, self.scenario.height
        scale = scale_for(self.pixels_per_cell())
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
        k = self.pool if region.scale == 1 else 1
        if k > 1:  # zoomed out past a pixel a cell: each pixel the busiest of its k×k cells
            if self.pooled is None or self.pooled.raster is not self.raster:
                self.pooled = lod.PooledRaster(self.raster)
            self.pixels = self.pooled.render(self.state, k)
            self.image.set_pixels(
                self.pixels, QRectF(0, 0, self.pixels.shape[1] * k, self.pixels.shape[0] * k)
            )
            return
        self.pixels = self.raster.render(self.state, region)
        self.image.set_pixels(
            self.pixels, QRectF(region.x0, region.y0, region.x1 - region.x0, region.y1 - region.y0)
        )

    def _range_changed(self, *_args) -> None:
        self.moved.emit()
        if self.counts is not None:
            self._outline_visible()
        pool = lod.pool_factor(self.pixels_per_cell())
        if pool != self.pool:
            self.pool = pool
            self._paint_marks()
            self._redraw.start()
        region = self.visible_region()
        if region != self.region and (
            region is None or self.region is None or region.scale > 1 or self.region.scale > 1
        ):
            self._redraw.start()

    # --- hover and keys ---------------------------------------------------------------------

    @property
    def hovered_cell(self) -> tuple[int, int] | None:
        """The (x, y) cell under the pointer, None when it is off the map."""
        return self._hover

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

    def _mouse_clicked(self, event) -> None:
        cell = self.cell_at(event.scenePos())
        if cell is not None and self.scenario is not None and event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(cell[1] * self.scenario.width + cell[0])

    def _describe(self, x: int, y: int) -> str:
        if self.scenario is None or self.state is None:
            return ""
        text = describe_cell(self.scenario, self.state, x, y)
        self.hovered.emit(text)
        return text

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_F and not event.modifiers():
            self.fit()
            event.accept()
            return
        super().keyPressEvent(event)

    def leaveEvent(self, event) -> None:
        self._hover = None
        self.cursor.hide()
        self.hovered.emit("")
        super().leaveEvent(event)


_TIP_OFFSET = pg.QtCore.QPoint(14, 14)


def _inside(low: float, high: float, size: int) -> float:
    """How far to shift a view [low, high) so it stays on the grid [0, size), when it fits."""
    if high - low >= size:
        return 0.0
    if low < 0:
        return -low
    return size - high if high > size else 0.0


def _cosmetic(colour: str, width: float) -> QPen:
    pen = QPen(QColor(colour), width)
    pen.setCosmetic(True)
    pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
    return pen
