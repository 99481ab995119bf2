"""A divergence at scale in the Factory tab: `scale_bug` on the largest bundled stress case.

    QT_QPA_PLATFORM=offscreen python benchmarks/divergence.py [--screenshots DIR]

Grades `scale_bug` on a copy of the bundled case trimmed to one smoke test and the largest
stress case, stores the run, then, as the app does (the tab's own workers and signals):

* open the run -> the first differing cell ringed and centred on screen, with the
  reference's keyframes on disk (a later session) and without (the first look);
* finding the first divergent tick (started the moment the tab opens at the snapshot);
* frame times (state drawn, then painted) with every differing cell marked and the heatmap
  on, against the same frames without markers (the machine is shared: the ratio is the figure).

Prints figures; asserts nothing about time. Targets: first cell <= 1 s with keyframes on
disk, first tick <= 5 s, frames <= 16 ms median.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QApplication

from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.resources import CASES
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.database import open_database
from lattice_desktop.store.queries import load_run
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.factory.tab import FactoryTab

LATTICE = CASES / "lattice"


def trimmed_case(root: Path, smoke: str = "turn", stress: str | None = None) -> Path:
    """A copy of the bundled case with one smoke test and one stress case (the largest
    unless `stress` names another)."""
    case = load_case(LATTICE / "case.toml")
    keep = {smoke, stress or max(case.stress, key=lambda e: e.size).name}
    head, *blocks = (LATTICE / "case.toml").read_text().split("[[case]]")
    kept = ["[[case]]" + b for b in blocks if re.search(r'name = "([^"]+)"', b).group(1) in keep]
    for folder in ("smoke", "stress", "expected"):
        shutil.copytree(LATTICE / folder, root / folder)
    (root / "submissions").symlink_to(LATTICE / "submissions")
    if (LATTICE / "census.json").is_file():  # the census the case ships, as the app reads it
        shutil.copyfile(LATTICE / "census.json", root / "census.json")
    (root / "case.toml").write_text(head + "".join(kept))
    return root / "case.toml"


def wait(app: QApplication, condition, timeout: float = 60.0) -> float:
    started = time.perf_counter()
    while not condition():
        if time.perf_counter() - started > timeout:
            raise TimeoutError("the tab did not get there in time")
        app.processEvents()
        time.sleep(0.002)
    return time.perf_counter() - started


def first_cell_on_screen(tab: FactoryTab) -> bool:
    return tab.cell_index == 0 and tab.canvas.focus.isVisible()


def open_run(app: QApplication, run, case) -> tuple[FactoryTab, float, float]:
    """(tab, seconds to the first differing cell on screen, seconds to the first wrong tick)."""
    tab = FactoryTab()
    tab.resize(1400, 860)
    tab.show()
    tab.show_run(run, case)
    cell = wait(app, lambda: first_cell_on_screen(tab))
    found = wait(app, lambda: tab.divergence is not None) + cell
    return tab, cell, found


def close(app: QApplication, tab: FactoryTab) -> None:
    """Stop the tab's work and remove it, so it does not paint during the next measurements."""
    tab.shutdown()
    QThreadPool.globalInstance().waitForDone(30000)
    tab.close()
    tab.deleteLater()
    app.processEvents()


def frames(app: QApplication, tab: FactoryTab, count: int = 30) -> list[float]:
    playback = tab.playback
    states = [playback.state_at(t) for t in range(tab.tick - 3, tab.tick + 1)]
    times = []
    for i in range(count):
        started = time.perf_counter()
        tab.canvas.set_state(states[i % len(states)])
        tab.canvas.viewport().repaint()
        app.processEvents()
        times.append(time.perf_counter() - started)
    return times


def measure_frames(app: QApplication, tab: FactoryTab, screenshots: Path | None) -> None:
    """Frames at the first wrong tick: without markers, then marked, heatmap off and on."""
    marked, counts = set(tab.navigator.marked), dict(tab.navigator.counts)
    tab.canvas.set_marked(())
    for label, fit in (("zoomed to the first cell", False), ("whole grid", True)):
        if fit:
            tab.canvas.fit()
        times = frames(app, tab)
        print(
            f"  frames, baseline without markers, {label}: median {1000 * statistics.median(times):.1f} ms, "
            f"max {1000 * max(times):.1f} ms"
        )
    tab.canvas.set_marked(marked, counts)
    tab.navigator.focus_cell(0, zoom=True)
    for heatmap in (False, True):
        tab.bar.heatmap.setChecked(heatmap)
        for label, fit in (("zoomed to the first cell", False), ("whole grid", True)):
            if fit:
                tab.canvas.fit()
            else:
                tab.navigator.focus_cell(0, zoom=True)
            times = frames(app, tab)
            print(
                f"  frames, {len(tab.cells):,} cells marked, heatmap {'on' if heatmap else 'off'}, {label}: "
                f"median {1000 * statistics.median(times):.1f} ms, max {1000 * max(times):.1f} ms"
            )
            if screenshots and heatmap and fit:
                tab.grab().save(str(screenshots / "factory-scale-heatmap.png"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screenshots", type=Path, help="save the tab's pictures here")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    root = Path(tempfile.mkdtemp(prefix="lattice-divergence-bench-"))
    os.environ["LATTICE_DESKTOP_CACHE"] = str(root / "cache")
    case = load_case(trimmed_case(root / "case"))
    writer = Writer(open_database(root / "runs.db"))
    started = time.perf_counter()
    stored = grade_and_store(case, load_submission(LATTICE / "submissions" / "scale_bug"), writer=writer)
    writer.close()
    run = load_run(stored.run_id)
    wrong = next(r for r in run.results if r.mismatch is not None)
    print(
        f"scale_bug graded in {time.perf_counter() - started:.1f} s: {wrong.name} wrong at snapshot "
        f"{wrong.mismatch.index + 1} (tick {wrong.mismatch.tick:,})"
    )

    tab, cell, found = open_run(app, run, case)  # the first look: nothing cached yet
    width = tab.playback.scenario.width
    first = tab.divergence
    print(
        f"first look (no keyframes on disk): first differing cell on screen {cell:.2f} s, "
        f"first wrong tick found {found:.2f} s"
    )
    print(
        f"  first wrong tick {first.tick:,} (agrees through {first.agreed:,}), {len(first.diffs):,} records "
        f"in {len(first.cells):,} cells, first cell ({first.cells[0] % width}, {first.cells[0] // width}), "
        f"by {first.how}, {first.submission_runs} runs of the submission"
    )
    wait(
        app,
        lambda: (
            tab.tick == first.tick and first_cell_on_screen(tab) and tab.navigator.diff_tick == first.tick
        ),
    )
    if args.screenshots:
        args.screenshots.mkdir(parents=True, exist_ok=True)
        tab.grab().save(str(args.screenshots / "factory-scale-divergence.png"))
    wait(app, lambda: tab.playback.prepared >= 1.0)
    tab.playback.prepare()  # keyframes on disk for the next session
    measure_frames(app, tab, args.screenshots)
    close(app, tab)

    answers = root / "cache" / "answers"
    kept = root / "answers-kept"
    answers.rename(kept)
    tab, cell, found = open_run(app, run, case)  # keyframes on disk, the submission's answers not
    print(
        f"keyframes on disk, the submission not yet run: first differing cell on screen {cell:.2f} s, "
        f"first wrong tick found {found:.2f} s"
    )
    close(app, tab)
    shutil.rmtree(answers, ignore_errors=True)
    kept.rename(answers)

    tab, cell, found = open_run(app, run, case)  # a later session: keyframes and answers on disk
    print(
        f"later session (keyframes and answers on disk): first differing cell on screen {cell:.2f} s, "
        f"first wrong tick found {found:.2f} s"
    )
    close(app, tab)
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
