"""The two fuel plots: fuel per case (bars on a log axis) and fuel against input size
(log–log, with fitted slopes). Items are created once and updated with setData/setOpts."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QColor, QPalette, QPen
from PySide6.QtWidgets import QApplication

from lattice_desktop.formatting import si
from lattice_desktop.grading.fuel_growth import fit_slope
from lattice_desktop.grading.report import CaseResult
from lattice_desktop.outcomes import Outcome
from lattice_desktop.store.fuel_queries import CaseBest
from lattice_desktop.ui.fuel.axes import CategoryAxis, SILogAxis
from lattice_desktop.ui.fuel.hover import HoverTips

FIELD, COMPARE = "#56B4E9", "#CC79A7"
LEGEND_ALPHA = 230  # of 255: the panel hides the grid and bars behind the legend's words


def outcome_style(outcome: Outcome) -> tuple[str, str]:
    """(colour, symbol and words) for an outcome: its one look, shared with every view."""
    return outcome.look.colour, outcome.look.text


def _pen(colour: str, style: Qt.PenStyle = Qt.PenStyle.SolidLine, width: float = 1.5) -> QPen:
    pen = pg.mkPen(QColor(colour), width=width)
    pen.setStyle(style)
    pen.setCosmetic(True)
    return pen


def style_legend(legend: pg.LegendItem) -> None:
    """The legend in the palette's own text colour on a nearly opaque panel of its base
    colour, with a border: legible over bars and grid lines, light theme or dark (it was
    pyqtgraph's grey on a 12% grey wash)."""
    palette = QApplication.palette()
    panel = QColor(palette.color(QPalette.ColorRole.Base))
    panel.setAlpha(LEGEND_ALPHA)
    legend.setBrush(pg.mkBrush(panel))
    legend.setPen(pg.mkPen(palette.color(QPalette.ColorRole.Mid)))
    legend.setLabelTextColor(palette.color(QPalette.ColorRole.Text))


class _LegendFollowsPalette:
    """Restyles `self.legend` when the light/dark theme (the application palette) changes."""

    def changeEvent(self, event: QEvent) -> None:
        legend = self.__dict__.get("legend")  # None while the plot is being built
        if legend is not None and event.type() in (
            QEvent.Type.PaletteChange,
            QEvent.Type.ApplicationPaletteChange,
        ):
            style_legend(legend)
        super().changeEvent(event)  # type: ignore[misc]


def exact(fuel: int) -> str:
    return f"{fuel:,} fuel ({si(fuel, 'fuel')})"


class FuelBars(_LegendFollowsPalette, pg.PlotWidget):
    """Fuel per case, coloured by outcome; ceiling dashed, runway's end dotted, field's
    best as diamonds, a compared run as narrower bars with its ratio written above."""

    def __init__(self, parent=None) -> None:
        self.names_axis = CategoryAxis()
        super().__init__(parent, axisItems={"bottom": self.names_axis, "left": SILogAxis("left", "fuel")})
        self.setBackground(None)
        self.setMenuEnabled(False)
        self.setMouseEnabled(x=False, y=False)
        self.hideButtons()
        self.getAxis("left").setLabel("fuel per case")
        self.showGrid(y=True, alpha=0.15)
        self.legend = self.addLegend(offset=(8, 2), labelTextSize="8pt", colCount=6)
        style_legend(self.legend)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.6, y0=0)
        self.compare_bars = pg.BarGraphItem(x=[], height=[], width=0.25, y0=0)
        self.addItem(self.bars)
        self.addItem(self.compare_bars)
        # Labelled near the left end (1% in, so no rounding puts it on the plot's edge), text to
        # the right of its anchor and above the line: inside the plot at any width (at the
        # right end it was cut off), clear of the tallest bars.
        self.ceiling = pg.InfiniteLine(
            angle=0,
            pen=_pen("#B0B4BC", Qt.PenStyle.DashLine),
            label="ceiling",
            labelOpts={"position": 0.01, "anchors": [(0, 1), (0, 1)], "color": "#8A8F98"},
        )
        self.ceiling.setZValue(10)
        self.addItem(self.ceiling)
        self.runway = pg.PlotDataItem(pen=_pen("#B0B4BC", Qt.PenStyle.DotLine), connect="pairs")
        self.addItem(self.runway)
        self.best = pg.ScatterPlotItem(symbol="d", size=11, pen=pg.mkPen("#15171C"), brush=FIELD)
        self.addItem(self.best)
        self.labels: list[pg.TextItem] = []
        self.tips = HoverTips(self)
        self._legend_keys: tuple = ()

    def show_fuel(
        self,
        results: list[CaseResult],
        best: dict[str, CaseBest],
        compare: dict[str, CaseResult] | None,
        compare_name: str = "",
    ) -> None:
        self.tips.clear()
        for label in self.labels:
            self.removeItem(label)
        self.labels = []
        fuels = [r.fuel for r in results if r.fuel] + [b.fuel for b in best.values()]
        fuels += [r.ceiling for r in results] + [r.fuel for r in (compare or {}).values() if r.fuel]
        floor = math.floor(math.log10(max(1, min(fuels)))) - 0.3 if fuels else 0.0
        self.names_axis.set_names([r.name for r in results])
        xs, heights, colours = [], [], []
        for i, r in enumerate(results):
            colour, words = outcome_style(r.outcome)
            top = math.log10(r.fuel) if r.fuel else floor
            xs.append(i - (0.12 if compare else 0))
            heights.append(top - floor)
            colours.append(colour)
            text = f"{r.name} · {words}\n" + (exact(r.fuel) if r.fuel else "no fuel measured")
            if r.fuel:
                text += f" · {100 * r.fuel / r.ceiling:.1f}% of the ceiling"
            self.tips.add_rect(QRectF(xs[-1] - 0.3, floor, 0.6, top - floor), text)
        self.bars.setOpts(
            x=xs,
            height=heights,
            y0=floor,
            width=0.5 if compare else 0.6,
            brushes=[pg.mkBrush(c) for c in colours],
            pens=[pg.mkPen(None)] * len(xs),
        )
        self._compare(results, compare or {}, floor, compare_name)
        if results:
            self.ceiling.setPos(math.log10(results[0].ceiling))
            self.tips.add_point(-0.4, math.log10(results[0].ceiling), f"ceiling: {exact(results[0].ceiling)}")
        runway = []
        for i, r in enumerate(results):
            if r.budget > r.ceiling:
                y = math.log10(r.budget)
                runway += [(i - 0.4, y), (i + 0.4, y)]
                self.tips.add_point(i + 0.4, y, f"{r.name}: the runway ends at {exact(r.budget)}")
        self.runway.setData(*(np.array(runway).T if runway else ([], [])))
        bests = [(i, r.name, best[r.name]) for i, r in enumerate(results) if r.name in best]
        self.best.setData(pos=[(i, math.log10(b.fuel)) for i, _, b in bests])
        for i, name, b in bests:
            tip = f"{name}: the field's best is {exact(b.fuel)}\n{b.model} (run #{b.run_id})"
            self.tips.add_point(i, math.log10(b.fuel), tip)
        top = (
            max(
                [floor + h for h in heights]
                + [self.ceiling.value()]
                + [math.log10(r.budget) for r in results if r.budget]
            )
            if results
            else 1
        )
        self.setYRange(floor, top + 1.2, padding=0)  # headroom for the legend row
        self.setXRange(-0.6, max(0, len(results) - 1) + 0.6, padding=0)
        self._legend(results, bool(best), bool(compare), compare_name)

    def _compare(
        self, results: list[CaseResult], compare: dict[str, CaseResult], floor: float, name: str
    ) -> None:
        xs, heights = [], []
        for i, r in enumerate(results):
            other = compare.get(r.name)
            if other is None or not other.fuel:
                continue
            top = math.log10(other.fuel)
            xs.append(i + 0.26)
            heights.append(top - floor)
            ratio = f"×{r.fuel / other.fuel:.2f}" if r.fuel else "—"
            label = pg.TextItem(ratio, color="#6B7280", anchor=(0.5, 1.0))
            label.setPos(i, max(top, math.log10(r.fuel) if r.fuel else floor) + 0.02)
            self.addItem(label)
            self.labels.append(label)
            self.tips.add_rect(
                QRectF(i + 0.14, floor, 0.25, top - floor),
                f"{r.name} · {name}: {exact(other.fuel)}\nthis run {ratio} of it",
            )
        self.compare_bars.setOpts(
            x=xs, height=heights, y0=floor, brush=pg.mkBrush(COMPARE), pen=pg.mkPen(None)
        )

    def _legend(self, results: list[CaseResult], best: bool, compare: bool, name: str) -> None:
        styles = sorted({outcome_style(r.outcome) for r in results}, key=lambda s: s[1])
        key = (tuple(styles), best, compare, name)
        if key == self._legend_keys:
            return
        self._legend_keys = key
        self.legend.clear()
        for colour, words in styles:
            self.legend.addItem(pg.BarGraphItem(x=[0], height=[0], width=1, brush=colour), words)
        if best:
            self.legend.addItem(pg.ScatterPlotItem(symbol="d", brush=FIELD, pen=None), "◆ field's best")
        if compare:
            self.legend.addItem(pg.BarGraphItem(x=[0], height=[0], width=1, brush=COMPARE), f"■ {name}")
        self.legend.addItem(pg.PlotDataItem(pen=_pen("#B0B4BC", Qt.PenStyle.DashLine)), "ceiling")
        self.legend.addItem(pg.PlotDataItem(pen=_pen("#B0B4BC", Qt.PenStyle.DotLine)), "runway's end")


class FuelScaling(_LegendFollowsPalette, pg.PlotWidget):
    """Fuel against input size on log–log axes, one series per source, each with its fit."""

    SERIES = (("this run", "#E69F00", "o"), ("field's best", FIELD, "d"), ("compared", COMPARE, "s"))

    def __init__(self, parent=None) -> None:
        # A case's size is in its own unit (bytes of input by default, cells for Lattice).
        super().__init__(
            parent, axisItems={"bottom": SILogAxis("bottom", ""), "left": SILogAxis("left", "fuel")}
        )
        self.setBackground(None)
        self.setMenuEnabled(False)
        self.hideButtons()
        self.getAxis("bottom").setLabel("input size (the case's size: cells for Lattice)")
        self.getAxis("left").setLabel("fuel")
        self.showGrid(x=True, y=True, alpha=0.15)
        self.legend = self.addLegend(offset=(8, 8), labelTextSize="8pt")
        style_legend(self.legend)
        self.points, self.fits = {}, {}
        for name, colour, symbol in self.SERIES:
            self.points[name] = pg.ScatterPlotItem(
                symbol=symbol, size=9, brush=colour, pen=pg.mkPen("#15171C")
            )
            self.fits[name] = pg.PlotDataItem(pen=_pen(colour, Qt.PenStyle.DashLine, 1.2))
            self.addItem(self.fits[name])
            self.addItem(self.points[name])
            self.legend.addItem(self.points[name], name)
        self.tips = HoverTips(self)

    def show_series(self, series: dict[str, list[tuple[str, int, int]]]) -> dict[str, float | None]:
        """series: name -> [(case, size, fuel)]; returns each series' fitted slope."""
        self.tips.clear()
        slopes: dict[str, float | None] = {}
        for name, _, _ in self.SERIES:
            rows = [(c, s, f) for c, s, f in series.get(name, []) if s > 0 and f and f > 0]
            xs = [math.log10(s) for _, s, _ in rows]
            ys = [math.log10(f) for _, _, f in rows]
            self.points[name].setData(x=xs, y=ys)
            for (case, size, fuel), x, y in zip(rows, xs, ys, strict=True):
                self.tips.add_point(x, y, f"{name} · {case}\n{size:,} bytes · {exact(fuel)}")
            fit = fit_slope([s for _, s, _ in rows], [f for _, _, f in rows])
            slopes[name] = fit[0] if fit else None
            if fit:
                lo, hi = min(xs), max(xs)
                self.fits[name].setData([lo, hi], [fit[1] + fit[0] * lo, fit[1] + fit[0] * hi])
            else:
                self.fits[name].setData([], [])
            self.points[name].setVisible(bool(rows))
            self.fits[name].setVisible(bool(rows))
        self.autoRange(padding=0.08)
        return slopes
