"""Item delegates shared by the tables: a verdict/outcome chip and an inline bar.

Models hand them plain values through custom roles, so the models stay testable
without painting anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from lattice_desktop.outcomes import Look
from lattice_desktop.ui.common import theme

CHIP_ROLE = Qt.ItemDataRole.UserRole + 1  # Chip
BAR_ROLE = Qt.ItemDataRole.UserRole + 2  # Bar
SORT_ROLE = Qt.ItemDataRole.UserRole + 3  # an exact value to sort by
ID_ROLE = Qt.ItemDataRole.UserRole + 4  # a run id
COPY_ROLE = Qt.ItemDataRole.UserRole + 5  # the exact value, for the clipboard


@dataclass(frozen=True)
class Chip:
    """A coloured pill with a symbol and a word: the colour is never the only signal."""

    symbol: str
    label: str
    colour: QColor

    @property
    def text(self) -> str:
        return f"{self.symbol} {self.label}"

    @classmethod
    def of(cls, look: Look) -> Chip:
        """The chip of an outcome's or a verdict's one look (lattice_desktop/outcomes.py)."""
        return cls(look.symbol, look.words, QColor(look.colour))


@dataclass(frozen=True)
class Bar:
    """An inline bar: `fraction` of the cell filled; optional marks at `ceiling` (solid)
    and `runway` (dotted), all as fractions of the cell width."""

    fraction: float
    colour: QColor
    text: str = ""
    ceiling: float | None = None
    runway: float | None = None


Index = QModelIndex | QPersistentModelIndex


class ChipDelegate(QStyledItemDelegate):
    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        chip = index.data(CHIP_ROLE)
        if not isinstance(chip, Chip):
            super().paint(painter, option, index)
            return
        self._background(painter, option, index)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        metrics = option.fontMetrics
        width = metrics.horizontalAdvance(chip.text) + 14
        height = min(option.rect.height() - 4, metrics.height() + 4)
        rect = QRectF(
            option.rect.left() + 4,
            option.rect.center().y() - height / 2 + 0.5,
            min(width, option.rect.width() - 8),
            height,
        )
        painter.setPen(QPen(chip.colour, 1))
        painter.setBrush(theme.tint(chip.colour, 60))
        painter.drawRoundedRect(rect, height / 2, height / 2)
        painter.setPen(option.palette.color(option.palette.ColorRole.Text))
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, chip.text)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        chip = index.data(CHIP_ROLE)
        base = super().sizeHint(option, index)
        if isinstance(chip, Chip):
            return QSize(option.fontMetrics.horizontalAdvance(chip.text) + 24, base.height() + 4)
        return base

    @staticmethod
    def _background(painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        opt = QStyleOptionViewItem(option)
        QStyledItemDelegate().initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)


class BarDelegate(QStyledItemDelegate):
    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        bar = index.data(BAR_ROLE)
        if not isinstance(bar, Bar):
            super().paint(painter, option, index)
            return
        ChipDelegate._background(painter, option, index)
        painter.save()
        r = option.rect.adjusted(4, 5, -4, -5)
        text_width = (
            max(
                option.fontMetrics.horizontalAdvance("0000.0%"),
                option.fontMetrics.horizontalAdvance(bar.text),
            )
            + 10
        )
        track = QRectF(r.left(), r.top(), max(10, r.width() - text_width), r.height())
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(theme.tint(option.palette.color(option.palette.ColorRole.Text), 24))
        painter.drawRect(track)
        painter.setBrush(bar.colour)
        painter.drawRect(
            QRectF(
                track.left(), track.top(), track.width() * max(0.0, min(1.0, bar.fraction)), track.height()
            )
        )
        text_colour = option.palette.color(option.palette.ColorRole.Text)
        if bar.ceiling is not None:
            x = track.left() + track.width() * bar.ceiling
            painter.setPen(QPen(text_colour, 1.5))
            painter.drawLine(int(x), int(track.top()) - 2, int(x), int(track.bottom()) + 2)
        if bar.runway is not None and bar.runway <= 1.0:
            x = track.left() + track.width() * bar.runway
            pen = QPen(text_colour, 1, Qt.PenStyle.DotLine)
            painter.setPen(pen)
            painter.drawLine(int(x), int(track.top()) - 2, int(x), int(track.bottom()) + 2)
        painter.setPen(text_colour)
        text_rect = option.rect.adjusted(0, 0, -4, 0)
        painter.drawText(text_rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, bar.text)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        base = super().sizeHint(option, index)
        return QSize(max(base.width(), 170), base.height())
