"""Render the app icon at the hicolor theme's sizes: `python packaging/icons.py`.

The PNGs are committed under resources/icons/hicolor/, so installing needs no Qt; run this
again after changing the SVG (Qt's QSvgRenderer, offscreen)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HICOLOR = ROOT / "resources" / "icons" / "hicolor"
SVG = HICOLOR / "scalable" / "apps" / "lattice-desktop.svg"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)


def render_icons(svg: Path = SVG, root: Path = HICOLOR, sizes: tuple[int, ...] = SIZES) -> list[Path]:
    """One PNG per size at root/NxN/apps/, drawn from `svg` with antialiasing."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])  # QImage needs one
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg}: not an SVG Qt can draw")
    written = []
    for size in sizes:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        target = root / f"{size}x{size}" / "apps" / f"{svg.stem}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        if not image.save(str(target)):
            raise OSError(f"{target}: could not write the PNG")
        written.append(target)
    return written


if __name__ == "__main__":
    for path in render_icons():
        print(path)
