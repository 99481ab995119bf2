"""`lattice-desktop screenshots OUTDIR`: in a temporary database of its own (the user's is
never read, so what it shows does not depend on what they graded), grade the demo and
import the bundled harness examples, then save the twelve pictures `capture` lists
(widget.grab(), so it works under offscreen Qt)."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication, QSplitter

from lattice_desktop.lattice.generator import generate
from lattice_desktop.store.queries import RunSummary
from lattice_desktop.ui.common.qt_messages import quiet_platform
from lattice_desktop.ui.window.main_window import MainWindow
from lattice_desktop.ui.window.tabs import FACTORY, FUEL, LEADERBOARD, RESULTS

if TYPE_CHECKING:
    from lattice_desktop.ui.profile.profile_tab import ProfileTab

GRADE_MS = 30 * 60 * 1000  # grading the bundled case can take minutes on a slow machine
WAIT_MS = 3 * 60 * 1000  # anything else: opening a run, a scenario, a diff
PROFILE_SIZE = (1760, 1000)  # the Profile tab's picture: room for the Source view
RUNS_WIDTH = 400  # its runs list, narrower than the window's default
TABLE_WIDTH = 560  # its Functions and Lines views


def wait_until(condition: Callable[[], bool], timeout_ms: int = WAIT_MS, *, what: str = "the app") -> None:
    """Run the event loop until `condition()` holds (or raise TimeoutError naming `what`)."""
    loop = QEventLoop()
    timer = QTimer()
    timer.setInterval(20)

    def check() -> None:
        if condition():
            loop.quit()

    timer.timeout.connect(check)
    deadline = QTimer()
    deadline.setSingleShot(True)
    deadline.timeout.connect(loop.quit)
    timer.start()
    deadline.start(timeout_ms)
    if not condition():
        loop.exec()
    timer.stop()
    if not condition():
        raise TimeoutError(f"screenshots: waited {timeout_ms / 1000:.0f} s for {what}")


def open_and_wait(window: MainWindow, run_id: int) -> None:
    window.open_run(run_id)
    wait_until(
        lambda: window.page is not None and window.page.run.id == run_id and not window.reading,
        what=f"run #{run_id} to open",
    )


def open_harness_and_wait(window: MainWindow, stored_id: int) -> None:
    window.harness.open(stored_id)
    wait_until(
        lambda: (
            window.harness.page is not None
            and window.harness.page.id == stored_id
            and not window.harness.busy
        ),
        what=f"harness run #{stored_id} to open",
    )


def import_bundled_harness(window: MainWindow) -> None:
    window.harness.import_bundled()
    wait_until(lambda: not window.harness.busy, what="the harness examples to be imported")
    window.refresh_runs()
    wait_until(lambda: not window.reading, what="the runs list")


def open_largest_scenario(window: MainWindow) -> bool:
    """Open the open run's last (largest) scenario in the Factory tab, as a user choosing it."""
    tab = window.factory_tab
    last = tab.case_box.count() - 1
    if last <= tab.case_box.currentIndex():
        return False
    tab.case_box.setCurrentIndex(last)
    tab.case_box.activated.emit(last)
    wait_until(lambda: not tab.engine_label.text().startswith("opening"), what="the largest scenario to open")
    return True


def show_why_trail(window: MainWindow) -> bool:
    """Ask "Why?" of the ringed differing cell, as the W key does, and wait for its trail."""
    tab = window.factory_tab
    nav, why = tab.navigator, tab.why
    if nav.submission is None or nav.cell_index is None or not nav.cells:
        return False
    why.why(nav.cells[nav.cell_index])
    wait_until(lambda: not why.busy, what="the Why? trail")
    return bool(why.overlay.steps)


def pick(summaries: list[RunSummary], submission: str) -> RunSummary | None:
    return next((s for s in summaries if s.submission == submission), None)


def capture(window: MainWindow, outdir: Path) -> list[Path]:
    """Save results, factory (buggy sample at its first divergence, then its "Why?" trail
    from the ringed cell), the scale divergence
    (scale_bug at its first wrong tick, then with the heatmap over the whole grid), fuel,
    leaderboard, a harness run's results and its box's leaderboard, and a scenario file
    opened alone."""
    outdir.mkdir(parents=True, exist_ok=True)
    window.refresh_runs()
    wait_until(lambda: not window.reading, what="the runs list")
    summaries = window.runs_panel.model.summaries
    if not summaries:
        raise RuntimeError("no run to show: grade a submission first")
    correct = [s for s in summaries if s.verdict.value == "correct"]
    main = pick(summaries, "lines") or pick(summaries, "reference") or (correct or summaries)[0]
    buggy = pick(summaries, "buggy") or next((s for s in summaries if s.verdict.value == "incorrect"), main)
    saved = []

    def shot(tab: int, name: str) -> None:
        window.tabs.setCurrentIndex(tab)
        QApplication.processEvents()
        board = window.leaderboard_tab
        wait_until(lambda: not board.busy, what="the leaderboard")
        QApplication.processEvents()
        path = outdir / f"{name}.png"
        window.grab().save(str(path))
        saved.append(path)

    open_and_wait(window, main.id)
    window.runs_panel.select_run(main.id, notify=False)
    shot(RESULTS, "results")
    slow = pick(summaries, "reference")
    if slow is not None and slow.id != main.id:  # O(n) against O(n^2) at a glance
        fuel = window.fuel_tab
        wait_until(lambda: fuel.compare_box.findData(slow.id) >= 0, what="the runs to compare with")
        if fuel.compare_with(slow.id):
            wait_until(lambda: fuel.other is not None, what="the run to compare with")
    shot(FUEL, "fuel")
    shot(LEADERBOARD, "leaderboard")
    open_and_wait(window, buggy.id)
    window.runs_panel.select_run(buggy.id, notify=False)
    panel = window.results_tab.diagnosis
    wait_until(lambda: panel.done, what="the diagnosis")
    shot(RESULTS, "results_incorrect")
    window.tabs.setCurrentIndex(FACTORY)
    factory = window.factory_tab
    wait_until(lambda: factory.snapshots is not None and factory.settled, what="the factory")
    wait_until(lambda: factory.divergence is not None or not factory.has_records, what="the first wrong tick")
    factory.go_to_first_divergence()  # after the search, which moves to the first wrong tick
    wait_until(lambda: factory.settled, what="the first divergence")
    shot(FACTORY, "factory")
    if show_why_trail(window):
        shot(FACTORY, "factory_why")
    if open_largest_scenario(window):
        shot(FACTORY, "factory_largest")
    scale = pick(summaries, "scale_bug")
    if scale is not None:
        open_and_wait(window, scale.id)
        window.runs_panel.select_run(scale.id, notify=False)
        window.tabs.setCurrentIndex(FACTORY)
        wait_until(
            lambda: (
                factory.divergence is not None
                and factory.tick == factory.divergence.tick
                and factory.settled
                and factory.cell_index == 0
            ),
            what="scale_bug's first wrong tick",
        )
        shot(FACTORY, "factory_scale")
        factory.bar.heatmap.setChecked(True)
        factory.canvas.fit()
        shot(FACTORY, "factory_scale_heatmap")
        factory.bar.heatmap.setChecked(False)
    harness = window.runs_panel.model.harness
    shown = next(
        (h for h in harness if h.result.run_id.startswith("looping")), harness[0] if harness else None
    )
    if shown is not None:
        open_harness_and_wait(window, shown.id)
        shot(RESULTS, "harness_results")
        shot(LEADERBOARD, "harness_leaderboard")
    with tempfile.TemporaryDirectory(prefix="lattice-shots-") as scratch:
        # As `scenario generate --seed 7 --size 40 28 --ticks 400 --snapshot 20 --density 0.2` makes it.
        scenario = Path(scratch) / "seed-7-40x28.lat"
        scenario.write_text(generate(7, width=40, height=28, ticks=400, snapshot=20, density=0.2))
        show_scenario_file(window, scenario, snapshots=5)
        shot(FACTORY, "scenario_file")
    return saved


def show_scenario_file(window: MainWindow, path: Path, *, snapshots: int) -> None:
    """`lattice-desktop open FILE.lat`: the file in the Factory tab, a few snapshots in."""
    window.open_paths([path])
    tab, data = window.factory_tab, path.read_bytes()
    wait_until(  # settled: its checksums too, which come after the first frame
        lambda: tab.playback is not None and tab.playback.data == data and tab.settled,
        what=f"{path.name} to open",
    )
    for _ in range(snapshots):
        tab.step_snapshot(+1)
    wait_until(lambda: tab.settled and tab.census.census is not None, what=f"{path.name}'s snapshots")


def save_screenshots(
    outdir: Path, db: str | None = None, *, size: tuple[int, int] = (1500, 920)
) -> list[Path]:
    """Save the pictures into `outdir`. `db`: a fresh database to grade into (None: a
    temporary one, removed afterwards)."""
    if db is not None:
        return _save(outdir, db, size)
    with tempfile.TemporaryDirectory(prefix="lattice-screenshots-") as scratch:
        print(
            f"screenshots: grading the demo into a temporary database ({scratch}); yours is not used",
            file=sys.stderr,
        )
        return _save(outdir, str(Path(scratch) / "screenshots.db"), size)


def _save(outdir: Path, db: str, size: tuple[int, int]) -> list[Path]:
    with quiet_platform():
        window = MainWindow(db, auto_demo=False)
        try:
            window.resize(*size)
            window.show()
            wait_until(lambda: window.runs_loaded, what="the runs list")
            if window.demo_case.is_file():
                window.grade_demo()
                wait_until(lambda: window.grading_actions.busy, what="the demo to start grading")
                wait_until(lambda: not window.grading_actions.busy, GRADE_MS, what="the demo to be graded")
            import_bundled_harness(window)
            return capture(window, outdir)
        finally:
            window.close()


def save_profile_screenshot(
    out: Path, db: str, runs: dict[str, int], *, size: tuple[int, int] = PROFILE_SIZE, compare: bool = False
) -> Path:
    """The Profile tab of `runs["lines"]` (with `compare`, compared with `runs["reference"]`)
    on its Lines view, the case's hottest line chosen and the Source view on it, saved to `out`
    (`python -m lattice_desktop.ui.window.profile_screenshot` grades them first if need be)."""
    from PySide6.QtCore import QSettings

    settings = QSettings(str(Path(tempfile.mkdtemp()) / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(db, auto_demo=False, settings=settings)
    try:
        window.resize(*size)
        window.show()
        wait_until(lambda: window.runs_loaded)
        open_and_wait(window, runs["lines"])
        window.tabs.setCurrentWidget(window.profile_tab)
        tab = window.profile_tab
        wait_until(lambda: tab.profile is not None, what="the profile of lines")
        if compare:
            fuel = window.fuel_tab
            wait_until(lambda: fuel.compare_box.findData(runs["reference"]) >= 0)
            fuel.compare_with(runs["reference"])
            wait_until(lambda: tab.other is not None, what="the profile of reference")
        _lay_out_profile(window, tab)
        _open_hottest_line(tab, compare=compare)
        out.parent.mkdir(parents=True, exist_ok=True)
        window.grab().save(str(out))
        return out
    finally:
        window.close()


def _lay_out_profile(window: MainWindow, tab: ProfileTab) -> None:
    """Room for the Lines and Source views: a narrower runs list, the Lines view as wide as its
    columns want."""
    runs_split = window.runs_panel.parentWidget()
    if isinstance(runs_split, QSplitter):
        runs_split.setSizes([RUNS_WIDTH, window.width() - RUNS_WIDTH])
    QApplication.processEvents()
    tab.upper.setSizes([TABLE_WIDTH, tab.upper.width() - TABLE_WIDTH])
    QApplication.processEvents()


def _open_hottest_line(tab: ProfileTab, *, compare: bool) -> None:
    """Open the Lines view as a click on its tab does (its top row, the case's hottest line,
    becomes current) and wait for the Source view to select that line in its function."""
    assert tab.profile is not None
    tab.views.setCurrentWidget(tab.lines_view)
    lines, view = tab.lines_view, tab.source_view
    if compare:
        wait_until(lambda: "Compared" in lines.model.columns, what="the compared run's lines")
    top = lines.model.rows[lines.sorted.mapToSource(lines.sorted.index(0, 0)).row()]

    def there() -> bool:
        current = view.table.currentIndex()
        return not view.loading and current.isValid() and view.model.rows[current.row()].number == top.line

    wait_until(there, what="the source of the hottest line")
    QApplication.processEvents()
