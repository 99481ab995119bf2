"""The `lattice-desktop` entry point: the app without a command, the CLI otherwise.

Kept apart from `cli` so the command line never imports Qt.
"""

from __future__ import annotations

import sys

GUI_COMMANDS = {"open", "screenshots", "demo"}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in GUI_COMMANDS or argv[0].startswith("--db"):
        from lattice_desktop.ui.app import main as gui_main

        return gui_main(argv)
    from lattice_desktop.cli.main import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
