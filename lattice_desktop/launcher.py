"""The `lattice-desktop` entry point: the app without a command, the CLI otherwise.

Kept apart from `cli` so the command line never imports Qt.
"""

from __future__ import annotations

import os
import runpy
import signal
import sys
from types import FrameType

GUI_COMMANDS = {"open", "screenshots", "demo"}
HEADLESS_COMMANDS = (
    "grade, grade-batch, runs, show, leaderboard, export, hide, unhide, delete, profile, compare, "
    "explain, case, scenario, harness and screenshots OUTDIR"
)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if getattr(sys, "frozen", False) and argv[:1] in (["-m"], ["-I"], ["-IS"]):
        return run_as_python(argv)
    if argv and argv[0].endswith(".lat"):  # `lattice-desktop factory.lat` means open it
        argv = ["open", *argv]
    if not argv or argv[0] in GUI_COMMANDS or argv[0].startswith("--db"):
        if "screenshots" in argv:
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # pictures need no screen
        missing = no_display_reason(os.environ, sys.platform)
        if missing:
            print(missing, file=sys.stderr)
            return 2
        noted = note_stop_signals()  # importing Qt takes a while: Ctrl+C then must not raise
        from lattice_desktop.ui.app import main as gui_main

        return gui_main(argv, noted_signals=noted)
    from lattice_desktop.cli.main import main as cli_main

    return cli_main(argv)


def note_stop_signals() -> list[int]:
    """Until the app's own handlers take over (ui/window/stop_signals.py), SIGINT and SIGTERM are
    only noted in the list returned, which the app acts on once its event loop runs; one
    inherited ignored (`nohup`, `&` in a script) stays ignored."""
    noted: list[int] = []

    def note(signum: int, _frame: FrameType | None) -> None:
        noted.append(signum)

    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, note)
    return noted


def no_display_reason(environ: os._Environ | dict[str, str], platform: str) -> str | None:
    """One line saying the app has no screen to open on (None when it has one), so it never
    aborts inside Qt on a server."""
    if not platform.startswith("linux") or any(
        environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    ):
        return None
    return (
        "lattice-desktop: no display to open the app on (DISPLAY, WAYLAND_DISPLAY and "
        f"QT_QPA_PLATFORM are unset); without one, use the commands {HEADLESS_COMMANDS} "
        "(lattice-desktop --help)."
    )


def run_as_python(argv: list[str]) -> int:
    """In a PyInstaller bundle `sys.executable` is the app itself: when the app starts itself
    as `python -m MODULE ARGS` (the compile worker) or `python -IS SCRIPT ARGS` (the build
    jail), run that module or script as Python would."""
    flag, target, *rest = argv
    sys.argv = [target, *rest]
    try:
        if flag == "-m":
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(target, run_name="__main__")
    except SystemExit as done:
        code = done.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
