"""Save docs/screenshots/profile.png: `lines` on the bundled case's largest stress case (it
and `reference` are graded first if the database has no run of them), on the Lines view with
the case's hottest source line chosen and the Source view on it in its function, so the
picture answers "which line of `lines` burns the fuel?".

    python -m lattice_desktop.ui.window.profile_screenshot OUT.png [--db PATH] [--compare]

With --compare, `reference` is the compared run (its profile is made too) and the table
gains its columns. Grading both and profiling `lines` took 15 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from PySide6.QtWidgets import QApplication

from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.resources import demo_case
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.database import open_database
from lattice_desktop.store.queries import list_runs
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.common.qt_messages import quiet_platform

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--db", help="database (default: a new one in a temp folder)")
    parser.add_argument("--compare", action="store_true", help="compare lines with reference (the Δ columns)")
    args = parser.parse_args(argv)
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    from lattice_desktop.ui.common.theme import apply_theme

    apply_theme(app)
    with tempfile.TemporaryDirectory() as folder, quiet_platform():
        from lattice_desktop.ui.window.screenshots import save_profile_screenshot

        db = args.db or str(Path(folder) / "shots.db")
        print(save_profile_screenshot(args.out, db, graded_runs(db), compare=args.compare))
    return 0


if __name__ == "__main__":
    sys.exit(main())
