"""Look: Fusion style, the system's light or dark scheme, one accent colour, and the
colours that carry meaning (always paired with a symbol or a word where they are used)."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from lattice_desktop import outcomes
from lattice_desktop.outcomes import Verdict

ACCENT = QColor("#2f6fde")
ACCENT_DARK = QColor("#5b93f0")

# The colours that carry meaning are the core's (lattice_desktop/outcomes.py), so the CLI and every
# view agree; here they only become QColors.
GREEN, AMBER, RED, BLUE, PURPLE, GREY = (
    QColor(c)
    for c in (outcomes.GREEN, outcomes.AMBER, outcomes.RED, outcomes.BLUE, outcomes.PURPLE, outcomes.GREY)
)


def verdict_colour(verdict: Verdict) -> QColor:
    return QColor(verdict.look.colour)


_chosen = {"theme": "system"}  # the Preferences choice: system, light or dark


def is_dark() -> bool:
    """The system's scheme, unless LATTICE_DESKTOP_THEME or the Preferences say `dark` or `light`."""
    forced = os.environ.get("LATTICE_DESKTOP_THEME", "").lower() or _chosen["theme"]
    if forced in ("dark", "light"):
        return forced == "dark"
    app = QGuiApplication.instance()
    if app is None:
        return False
    scheme = QGuiApplication.styleHints().colorScheme()
    if scheme == Qt.ColorScheme.Dark:
        return True
    if scheme == Qt.ColorScheme.Light:
        return False
    return QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128


def accent() -> QColor:
    return ACCENT_DARK if is_dark() else ACCENT


def monospace() -> QFont:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


def styled(*, bold: bool = False, italic: bool = False) -> QFont:
    """The application font, bold or italic (for a table's highlighted or marked cells)."""
    font = QFont()
    font.setBold(bold)
    font.setItalic(italic)
    return font


def tint(colour: QColor, alpha: int = 48) -> QColor:
    """A translucent version of `colour`, for chip and banner backgrounds."""
    c = QColor(colour)
    c.setAlpha(alpha)
    return c


def apply_theme(app: QApplication) -> None:
    """Fusion, the system scheme, and the accent as the highlight colour."""
    app.setStyle("Fusion")
    app.setPalette(_palette(is_dark()))
    QGuiApplication.styleHints().colorSchemeChanged.connect(_follow_scheme)


def use_theme(choice: str) -> None:
    """Follow the system (`system`) or force `light` or `dark`, from now on. The palette is
    set again only when the choice changes (setting it repolishes every widget)."""
    if choice != _chosen["theme"]:
        _chosen["theme"] = choice
        _follow_scheme(Qt.ColorScheme.Unknown)


def _follow_scheme(_scheme: Qt.ColorScheme) -> None:
    app = QApplication.instance()
    if isinstance(app, QApplication):
        app.setPalette(_palette(is_dark()))


def _palette(dark: bool) -> QPalette:
    app = QApplication.instance()
    palette = QPalette(app.style().standardPalette()) if isinstance(app, QApplication) else QPalette()
    role = QPalette.ColorRole
    if dark:
        colours = {
            role.Window: "#1f2126",
            role.WindowText: "#e6e6e6",
            role.Base: "#17181c",
            role.AlternateBase: "#23252b",
            role.Text: "#e6e6e6",
            role.Button: "#2a2c33",
            role.ButtonText: "#e6e6e6",
            role.ToolTipBase: "#2a2c33",
            role.ToolTipText: "#e6e6e6",
            role.PlaceholderText: "#8a8f98",
            role.BrightText: "#ffffff",
            role.Mid: "#3a3d45",
            role.Dark: "#111215",
            role.Light: "#3a3d45",
            role.Midlight: "#30333a",
            role.Shadow: "#000000",
        }
        for r, value in colours.items():
            palette.setColor(r, QColor(value))
        disabled = QColor("#6b6f78")
        for r in (role.WindowText, role.Text, role.ButtonText):
            palette.setColor(QPalette.ColorGroup.Disabled, r, disabled)
    palette.setColor(role.Highlight, ACCENT_DARK if dark else ACCENT)
    palette.setColor(role.HighlightedText, QColor("#ffffff"))
    palette.setColor(role.Link, ACCENT_DARK if dark else ACCENT)
    palette.setColor(role.Accent, ACCENT_DARK if dark else ACCENT)
    return palette
