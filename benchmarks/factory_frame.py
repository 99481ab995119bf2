"""Frame time of the factory canvas on a 512×512 factory holding ≥ 100k items (offscreen).

    QT_QPA_PLATFORM=offscreen python benchmarks/factory_frame.py

Prints figures; asserts nothing about time. Target: median under 16 ms per frame.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QApplication

from lattice_desktop.lattice.playback import Playback, reference_engine
from lattice_desktop.resources import CASES
from lattice_desktop.ui.factory.canvas import FactoryCanvas
from lattice_desktop.ui.factory.raster import SCALES

STRESS = CASES / "lattice" / "stress" / "stress-512.lat"


def report(label: str, canvas: FactoryCanvas, app: QApplication, frame) -> None:
    """40 frames: `frame(i)` changes what is shown, then the widget repaints at once and the
    event loop runs (which paints again when something is still pending)."""
    draw, paint = [], []
    for i in range(40):
        started = time.perf_counter()
        frame(i)
        if canvas._redraw.isActive():  # a range change queues its redraw
            canvas._redraw.stop()
            canvas.draw()
        drawn = time.perf_counter()
        canvas.viewport().repaint()
        app.processEvents()
        painted = time.perf_counter()
        draw.append(drawn - started)
        paint.append(painted - started)
    print(
        f"  {label:28s} scale {canvas.region.scale:2d}: raster median {1000 * statistics.median(draw):5.1f} ms,"
        f" frame (raster + paint) median {1000 * statistics.median(paint):5.1f} ms,"
        f" p90 {1000 * sorted(paint)[int(len(paint) * 0.9)]:5.1f} ms"
        f" ({canvas.pixels.shape[1]}x{canvas.pixels.shape[0]} px)"
    )


def main() -> None:
    app = QApplication.instance() or QApplication([])
    data = STRESS.read_bytes()
    playback = Playback(data, reference_engine())
    ticks = [playback.ticks - k for k in range(4)]
    states = [playback.state_at(t) for t in ticks]
    items = int((states[0].slots > 0).sum())
    canvas = FactoryCanvas()
    canvas.resize(1280, 800)
    canvas.show()
    canvas.set_scenario(playback.scenario)
    app.processEvents()
    print(
        f"{STRESS.name}: {playback.scenario.width}x{playback.scenario.height}, {items:,} items "
        f"on belts at tick {ticks[0]} ({playback.engine_name})"
    )
    # The three views of the issue, then the worst case of every scale: the zoom just
    # past the threshold where it kicks in, so its image holds the most pixels.
    views = [
        ("whole factory", None),
        ("zoomed in, 60x38 cells", QRectF(200, 200, 60, 38)),
        ("mid zoom, 160x100 cells", QRectF(100, 100, 160, 100)),
    ]
    for scale in SCALES[1:]:
        cells = canvas.width() / (0.86 * scale)
        views.append((f"{cells:.0f} cells wide", QRectF(40, 40, cells, cells * 0.6)))
    for label, rect in views:
        if rect is None:
            canvas.fit()
        else:
            canvas.box.setRange(rect, padding=0)
        app.processEvents()
        report(label, canvas, app, lambda i: canvas.set_state(states[i % len(states)]))
    # Panning at mid zoom: every frame a new region (its still layer is rebuilt).
    canvas.box.setRange(QRectF(100, 100, 160, 100), padding=0)
    app.processEvents()
    report("panning at mid zoom", canvas, app, lambda i: canvas.box.translateBy(x=1.5 + i % 3))
    canvas.close()
    canvas.deleteLater()
    app.processEvents()


if __name__ == "__main__":
    main()
