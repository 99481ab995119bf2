"""Pieces every subcommand shares: exit codes, the --db option, opening storage, which
leaderboard a command names."""

from __future__ import annotations

import argparse
import sys

from lattice_desktop.cli.terminal import shown
from lattice_desktop.errors import UserError
from lattice_desktop.outcomes import Verdict
from lattice_desktop.store.database import open_database
from lattice_desktop.store.field import Leaderboard, leaderboard
from lattice_desktop.store.queries import distinct_values
from lattice_desktop.store.writer import Writer

EXIT_CORRECT, EXIT_INCORRECT, EXIT_USAGE, EXIT_OVER_CEILING, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_BUILD_FAILED = 5  # no module to grade: not a wrong answer
EXIT_CANCELLED = 130

VERDICT_EXIT = {
    Verdict.CORRECT: EXIT_CORRECT,
    Verdict.OVER_CEILING: EXIT_OVER_CEILING,
    Verdict.INCORRECT: EXIT_INCORRECT,
    Verdict.BUILD_FAILED: EXIT_BUILD_FAILED,
    Verdict.INTERNAL_ERROR: EXIT_INTERNAL,
}


def add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        metavar="PATH_OR_URL",
        help="database file or postgresql:// URL (default: $LATTICE_DESKTOP_DB, else the user data folder)",
    )


def add_board_options(parser: argparse.ArgumentParser) -> None:
    """Which leaderboard of a case name: its version, variant and case content."""
    parser.add_argument("case", help="case name, e.g. lattice")
    parser.add_argument("--version", type=int, dest="case_version")
    parser.add_argument("--variant")
    parser.add_argument(
        "--content",
        metavar="HASH",
        help="the case content to rank (a manifest hash or its prefix; default: the registered "
        "content of the name: the bundled case's, else the first graded)",
    )


def chosen_board(args: argparse.Namespace) -> Leaderboard:
    """The board `add_board_options` named, or a `UserError` saying which cases have runs."""
    known = distinct_values("case_name")
    if args.case not in known:
        from lattice_desktop.store.harness_runs import harness_box_names

        if args.case in harness_box_names():
            raise UserError(
                f"'{shown(args.case)}' is a harness box, not a case: "
                f"`lattice-desktop harness leaderboard --box {shown(args.case)}` ranks its runs"
            )
        listed = f" (cases with runs: {', '.join(map(shown, known))})" if known else " (no runs yet)"
        raise UserError(f"no runs of a case named '{shown(args.case)}'" + listed)
    board = leaderboard(args.case, args.case_version, args.variant, content=args.content)
    if args.content and not board.content.startswith(args.content):
        raise UserError(f"no runs of '{shown(args.case)}' with case content {shown(args.content)}")
    return board


def add_build_options(parser: argparse.ArgumentParser) -> None:
    """--build and --allow-unisolated-build: a submission's build commands are someone else's code."""
    parser.add_argument(
        "--build",
        action="store_true",
        help="allow running the submission's [build] commands (they are someone else's code)",
    )
    parser.add_argument(
        "--allow-unisolated-build",
        action="store_true",
        help="where the build jail cannot be set up, run the build commands anyway, "
        "with your user's rights (never the default)",
    )


def open_storage(args: argparse.Namespace) -> Writer:
    return Writer(open_database(getattr(args, "db", None)))


def err(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def unit_interval(text: str) -> float:
    """An argparse type: a number from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], not {value:g}")
    return value
