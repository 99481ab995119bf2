"""Every chip's symbol — each verdict's, each outcome's, "not run" — has a glyph in the
app's font (with Qt's fallbacks), so no chip shows a missing-glyph box: the cancelled
chip once did (U+23F9, which neither DejaVu nor Liberation has)."""

from __future__ import annotations

from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication

from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.services.run_failure import NOT_RUN
from lattice_desktop.ui.common import theme


def test_every_chip_symbol_is_in_the_font(qapp):
    symbols = {v.look.symbol for v in Verdict} | {o.look.symbol for o in Outcome} | {NOT_RUN.split()[0]}
    fonts = {"app": QApplication.font(), "monospace": theme.monospace()}
    missing = {
        (name, symbol, f"U+{ord(symbol):04X}")
        for name, font in fonts.items()
        for symbol in symbols
        if not QFontMetrics(font).inFontUcs4(ord(symbol))
    }
    assert missing == set()
    assert len(symbols) >= 10  # the looks are all there to check
