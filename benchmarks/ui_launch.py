"""Time from launch to the first window shown (and to the runs list filled).

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/ui_launch.py [--db PATH] [--repeat N]

Each launch is a fresh process, so imports are counted, as a user would feel them.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import sys, time
start = time.perf_counter()
from lattice_desktop.ui.app import make_application
from lattice_desktop.ui.window.main_window import MainWindow
from PySide6.QtCore import QTimer
app = make_application()
window = MainWindow(sys.argv[1], auto_demo=False)
window.show()
app.processEvents()
shown = time.perf_counter() - start
def check():
    if window.runs_loaded:
        print(f"{shown:.4f} {time.perf_counter() - start:.4f}")
        window.close()
        app.quit()
timer = QTimer()
timer.timeout.connect(check)
timer.start(5)
app.exec()
"""


def launch(db: str) -> tuple[float, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, db], capture_output=True, text=True, check=True
    ).stdout.split()
    return float(out[0]), float(out[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database to open (default: a fresh temporary one)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or str(Path(tmp) / "bench.db")
        times = [launch(db) for _ in range(args.repeat)]
    shown = [t[0] for t in times]
    listed = [t[1] for t in times]
    print(
        f"launch → first window shown: median {statistics.median(shown) * 1000:.0f} ms "
        f"(min {min(shown) * 1000:.0f}, max {max(shown) * 1000:.0f}; {args.repeat} launches)"
    )
    print(f"launch → runs list filled:   median {statistics.median(listed) * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
