"""Save docs/screenshots/profile.png: `lines` on the bundled case's largest stress case,
compared with `reference` (graded first if the database has no run of them).

    python -m lattice_desktop.ui.profile.screenshot OUT.png [--db PATH]

Grading the reference and profiling it on the largest case take a few minutes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.resources import demo_case
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.database import open_database
from lattice_desktop.store.queries import list_runs
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.screenshots import open_and_wait, wait_until

SAMPLES = ("lines", "reference")


def graded_runs(db: str) -> dict[str, int]:
    """The newest run of each sample on the bundled case, grading those missing."""
    case = load_case(demo_case())
    writer = Writer(open_database(db))
    try:
        found: dict[str, int] = {}
        for name in SAMPLES:
            runs = [r for r in list_runs(case=case.name, limit=500) if r.submission == name]
            if runs:
                found[name] = runs[0].id
            else:
                submission = load_submission(case.path.parent / "submissions" / name)
                found[name] = grade_and_store(case, submission, writer=writer).run_id
        return found
    finally:
        writer.close()


def save(out: Path, db: str, *, size: tuple[int, int] = (1500, 920)) -> Path:
    from lattice_desktop.ui.main_window import MainWindow

    runs = graded_runs(db)
    settings = QSettings(str(Path(tempfile.mkdtemp()) / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(db, auto_demo=False, settings=settings)
    window.resize(*size)
    window.show()
    wait_until(lambda: window._runs_loaded)
    open_and_wait(window, runs["lines"])
    window.tabs.setCurrentWidget(window.profile_tab)
    tab = window.profile_tab
    wait_until(lambda: tab.profile is not None)
    fuel = window.fuel_tab
    wait_until(lambda: fuel.compare_box.findData(runs["reference"]) >= 0)
    fuel.compare_with(runs["reference"])
    wait_until(lambda: tab.other is not None)
    QApplication.processEvents()
    out.parent.mkdir(parents=True, exist_ok=True)
    window.grab().save(str(out))
    window.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--db", help="database (default: a new one in a temp folder)")
    args = parser.parse_args(argv)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from lattice_desktop.ui.theme import apply_theme

    apply_theme(app)
    with tempfile.TemporaryDirectory() as folder:
        print(save(args.out, args.db or str(Path(folder) / "shots.db")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
