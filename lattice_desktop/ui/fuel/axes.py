"""Axes for log-scaled plots: data lives as log10 values, ticks read as SI numbers."""

from __future__ import annotations

import math

import pyqtgraph as pg

from lattice_desktop.formatting import si


class SILogAxis(pg.AxisItem):
    """An axis over log10 values whose ticks read '10 M', '1 G' (with the unit)."""

    def __init__(self, orientation: str, unit: str, **kwargs) -> None:
        super().__init__(orientation, **kwargs)
        self.unit = unit
        self.enableAutoSIPrefix(False)

    def tickValues(self, minVal, maxVal, size):
        lo, hi = math.floor(minVal), math.ceil(maxVal)
        majors = [float(v) for v in range(lo, hi + 1)]
        minors = []
        if hi - lo <= 3:
            minors = [v + math.log10(k) for v in range(lo, hi + 1) for k in (2, 5)]
        return [(1.0, majors), (0.5, [m for m in minors if minVal <= m <= maxVal])]

    def tickStrings(self, values, scale, spacing):
        return [si(10**v, self.unit) for v in values]


class CategoryAxis(pg.AxisItem):
    """A bottom axis naming categories at 0, 1, 2, …"""

    def __init__(self, **kwargs) -> None:
        super().__init__("bottom", **kwargs)
        self.names: list[str] = []

    def set_names(self, names: list[str]) -> None:
        self.names = names
        self.setTicks([[(i, n) for i, n in enumerate(names)]])
