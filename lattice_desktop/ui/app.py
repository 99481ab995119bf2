"""Starting the app: `lattice-desktop [--db PATH] [open PATH… | demo | screenshots OUTDIR]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from lattice_desktop.errors import UserError
from lattice_desktop.resources import ICONS
from lattice_desktop.ui.common import tasks
from lattice_desktop.ui.common.qt_messages import quiet_platform
from lattice_desktop.ui.window.preferences import stored_database
from lattice_desktop.ui.window.stop_signals import StopSignals

APP_NAME = "Lattice Desktop"
DESKTOP_FILE = "lattice-desktop"  # packaging/lattice-desktop.desktop: the application id
DB_HELP = "database file or postgresql:// URL (default: $LATTICE_DESKTOP_DB, else the user data folder)"


def app_icon() -> QIcon:
    """The icon at every size drawn for the hicolor theme (PNGs: no SVG plugin needed)."""
    icon = QIcon()
    for png in sorted((ICONS / "hicolor").glob(f"*x*/apps/{DESKTOP_FILE}.png")):
        icon.addFile(str(png))
    return icon


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lattice-desktop", description="Open the app.")
    parser.add_argument("--db", metavar="PATH_OR_URL", help=DB_HELP)
    commands = parser.add_subparsers(dest="command")
    open_cmd = commands.add_parser(
        "open", help="open the app on scenario files (*.lat, shown in the Factory tab), cases or submissions"
    )
    open_cmd.add_argument("paths", nargs="*", type=Path)
    commands.add_parser("demo", help="open the app and grade the bundled demo samples")
    shots = commands.add_parser(
        "screenshots",
        help="save twelve PNGs of the tabs and views (in a temporary database of its own)",
        description="Grade the bundled demo and import the harness examples into a temporary "
        "database (yours is not used), then save twelve PNGs: Results, Fuel and Leaderboard "
        'of a correct run, Results and Factory of wrong runs (also a "Why?" trail, the largest '
        "scenario and "
        "scale_bug with and without the heatmap), a harness run's Results and board, and a "
        "scenario file opened alone.",
    )
    shots.add_argument("outdir", type=Path)
    shots.add_argument(
        "--size",
        type=window_size,
        default=(1500, 920),
        metavar="WxH",
        help="window size of the pictures (default 1500x920; e.g. 1366x768)",
    )
    open_cmd.add_argument("--db", metavar="PATH_OR_URL", dest="sub_db", help=DB_HELP)
    return parser


def window_size(text: str) -> tuple[int, int]:
    """An argparse type: `1366x768` as (1366, 768)."""
    width, _, height = text.lower().partition("x")
    if not (width.isdigit() and height.isdigit() and int(width) >= 320 and int(height) >= 240):
        raise argparse.ArgumentTypeError(f"{text!r} is not a size like 1366x768 (at least 320x240)")
    return int(width), int(height)


def make_application(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication([sys.argv[0], *(argv or [])])
    app.setOrganizationName("lattice-desktop")
    app.setApplicationName(APP_NAME)
    # Wayland takes the icon from the desktop file named here; X11 from the window icon.
    app.setDesktopFileName(DESKTOP_FILE)
    app.setWindowIcon(app_icon())
    from lattice_desktop.ui.common import collector
    from lattice_desktop.ui.common.theme import apply_theme

    collector.install()  # garbage cycles are collected on the GUI thread only
    apply_theme(app)
    return app


def main(argv: list[str] | None = None, *, noted_signals: list[int] | None = None) -> int:
    """The app; `noted_signals` are stop signals the launcher noted before Qt was loaded."""
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    db = getattr(args, "sub_db", None) or args.db
    app = make_application()
    if db is None:  # neither --db nor LATTICE_DESKTOP_DB: the one chosen in Preferences, if any
        db = stored_database(QSettings())
    if args.command == "screenshots":
        from lattice_desktop.ui.window.screenshots import save_screenshots

        if db is not None:
            print(
                "screenshots: --db is not used; the pictures come from a database of their own",
                file=sys.stderr,
            )
        try:
            saved = save_screenshots(args.outdir, size=args.size)
        except TimeoutError as exc:
            print(exc, file=sys.stderr)
            return 1
        for path in saved:
            print(path)
        return 0
    paths = [path.resolve() for path in getattr(args, "paths", None) or []]
    missing = [str(path) for path in paths if not path.exists()]
    if missing:  # said before any window opens, as every other command says it
        print(f"lattice-desktop: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    with quiet_platform():
        return run_window(app, db, paths, grade_demo=args.command == "demo", noted_signals=noted_signals)


def close_app(_signum: int) -> None:
    """Ctrl+C or SIGTERM: every window closes as its close button would (the main window's
    closeEvent cancels every op), then the event loop ends, nested ones (a dialog) included."""
    QApplication.closeAllWindows()
    QApplication.quit()


def run_window(
    app: QApplication,
    db: str | None,
    paths: list[Path],
    *,
    grade_demo: bool,
    noted_signals: list[int] | None = None,
) -> int:
    """The main window on `db` until it is closed or told to stop (SIGINT, SIGTERM): the
    user's `paths` opened in it, the demo graded when asked for."""
    stops = StopSignals(app, already=noted_signals or ())
    stops.received.connect(close_app)
    try:
        return _run_window(app, db, paths, grade_demo=grade_demo)
    finally:
        stops.uninstall()
        stops.deleteLater()


def _run_window(app: QApplication, db: str | None, paths: list[Path], *, grade_demo: bool) -> int:
    from lattice_desktop.ui.common.errors_dialog import install_excepthook
    from lattice_desktop.ui.window import one_instance
    from lattice_desktop.ui.window.main_window import MainWindow

    install_excepthook()
    instance = one_instance.OneInstance(db, app)
    if instance.first_is_running() or not instance.listen():
        # Another instance has this database open: say so, and switch to it when asked.
        choice = one_instance.ask_what_to_do(instance.target)
        if choice == one_instance.CANCEL:
            return 0
        if choice == one_instance.SWITCH:
            if instance.ask_first(paths):
                return 0
            QMessageBox.warning(
                None, APP_NAME, "The other Lattice Desktop did not answer; opening a window here instead."
            )
    try:
        # Opening the user's own files, the first-start demo does not start beside them
        # (File › Grade the demo samples still does).
        window = MainWindow(db, auto_demo=not paths)
    except UserError as exc:  # the database cannot be opened: say so, with where
        QMessageBox.critical(None, APP_NAME, f"Cannot open the database.\n\n{exc}")
        return 2
    instance.attach(window, open_paths=window.open_paths)
    window.show()
    if grade_demo:
        window.grade_demo()
    window.open_paths(paths)
    code = app.exec()
    # Queued signals delivered as the window closed may have started short tasks (a runs
    # refresh); let them end while their signals still exist, or they die with a traceback.
    tasks.pool().waitForDone(30_000)
    return code
