"""The fuel plots' legends are legible in both themes: their words against their panel —
whatever lies behind it, the window or a bar — meet WCAG AA contrast (4.5:1). They were
pyqtgraph's grey on a 12% grey wash (about 2:1 in the light theme)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from lattice_desktop.outcomes import Outcome
from lattice_desktop.ui.common import theme
from lattice_desktop.ui.fuel.tab import FuelTab

AA = 4.5


def luminance(c: QColor) -> float:
    def channel(v: float) -> float:
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())


def contrast(a: QColor, b: QColor) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def over(top: QColor, below: QColor) -> QColor:
    """`top` (translucent) composited over the opaque `below`."""
    a = top.alphaF()
    return QColor.fromRgbF(
        *(a * t + (1 - a) * b for t, b in zip(top.getRgbF()[:3], below.getRgbF()[:3], strict=True))
    )


@pytest.fixture(params=["light", "dark"])
def themed(request, qapp):
    theme.use_theme(request.param)
    yield request.param
    theme.use_theme("system")


def test_legend_words_stand_out_from_their_panel(qtbot, themed):
    tab = FuelTab()
    qtbot.addWidget(tab)
    window = QApplication.palette().color(QPalette.ColorRole.Window)
    behind = [window] + [QColor(o.look.colour) for o in Outcome]
    for plot in (tab.bars, tab.scaling):
        legend = plot.legend
        text = QColor(legend.opts["labelTextColor"])
        panel = legend.opts["brush"].color()
        worst = min(contrast(text, over(panel, b)) for b in behind)
        assert worst >= AA, (themed, type(plot).__name__, round(worst, 2))


def test_a_theme_change_restyles_a_legend_already_shown(qtbot, qapp):
    theme.use_theme("light")
    try:
        tab = FuelTab()
        qtbot.addWidget(tab)
        light = QColor(tab.bars.legend.opts["labelTextColor"]).name()
        theme.use_theme("dark")
        qtbot.waitUntil(lambda: QColor(tab.bars.legend.opts["labelTextColor"]).name() != light, timeout=5_000)
        text = QColor(tab.bars.legend.opts["labelTextColor"])
        assert contrast(text, QApplication.palette().color(QPalette.ColorRole.Window)) >= AA
    finally:
        theme.use_theme("system")
