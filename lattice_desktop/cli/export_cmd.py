"""`export run ID`, `export runs` and `export leaderboard CASE`: stored results as CSV and
as one self-contained HTML report with its plots."""

from __future__ import annotations

import argparse
import sys

from lattice_desktop.cli.common import add_board_options, add_db_option, chosen_board, open_storage
from lattice_desktop.cli.run_ids import run_id
from lattice_desktop.cli.terminal import shown
from lattice_desktop.errors import UserError
from lattice_desktop.outcomes import Verdict
from lattice_desktop.services.exports import Export, board_export, run_export, runs_export, write_export
from lattice_desktop.store.queries import list_every_run


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "export",
        help="write a run, the runs list or a leaderboard as CSV or as an HTML report",
        description="Write stored results as CSV (one row per case, run or model) or as one "
        "self-contained HTML file with its plots. FILE may be - for standard output; without "
        "FILE, --csv and --html write run-ID.csv, runs.html, leaderboard-CASE.csv … in the "
        "current folder.",
    )
    what = p.add_subparsers(dest="what", metavar="WHAT", required=True)

    run = what.add_parser(
        "run", help="one run's case results (and, in HTML, its fuel plots), or a harness run's metrics"
    )
    run.add_argument("run", type=run_id, help="run id (see `runs`)")
    _outputs(run)
    run.set_defaults(func=_export_run)

    runs = what.add_parser("runs", help="the runs list, graded and harness runs, newest first")
    runs.add_argument("--case", help="only this case name")
    runs.add_argument("--model", help="only this model")
    runs.add_argument("--verdict", choices=[v.value for v in Verdict.filters()], help="only this verdict")
    runs.add_argument("--all", action="store_true", help="hidden runs too")
    _outputs(runs)
    runs.set_defaults(func=_export_runs)

    board = what.add_parser("leaderboard", help="a case's leaderboard (and, in HTML, its bars)")
    add_board_options(board)
    _outputs(board)
    board.set_defaults(func=_export_leaderboard)


def _outputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--csv", metavar="FILE", nargs="?", const=NAMED, help="write CSV here")
    parser.add_argument("--html", metavar="FILE", nargs="?", const=NAMED, help="write the HTML report here")
    add_db_option(parser)


NAMED = ""  # --csv or --html without FILE: the export's own name in the current folder


def _targets(args: argparse.Namespace, stem: str) -> list[tuple[str, str]]:
    """(kind, path) per output asked for; `stem` names a file where none was given."""
    targets = [
        (kind, getattr(args, kind) or f"{stem}.{kind}")
        for kind in ("csv", "html")
        if getattr(args, kind) is not None
    ]
    if not targets:
        raise UserError(
            "name a file to write with --csv FILE, --html FILE or both "
            f"(FILE - is the terminal; --csv alone writes {stem}.csv here, --html alone {stem}.html)"
        )
    if [path for _, path in targets].count("-") > 1:
        raise UserError("only one of --csv and --html can write to standard output (-)")
    return targets


def _write(export: Export, path: str) -> None:
    if path == "-":
        sys.stdout.write(export.text)
        return
    written = write_export(export, path)
    print(f"wrote {export.what} as {export.kind.upper()} to {shown(str(written))}", file=sys.stderr)


def _export_run(args: argparse.Namespace) -> int:
    targets = _targets(args, f"run-{args.run}")
    open_storage(args)
    for kind, path in targets:
        _write(run_export(args.run, kind), path)
    return 0


def _export_runs(args: argparse.Namespace) -> int:
    targets = _targets(args, "runs")
    open_storage(args)
    rows = list_every_run(case=args.case, model=args.model, verdict=args.verdict, include_hidden=args.all)
    scope = " · ".join(
        part
        for part in (
            f"case {args.case}" if args.case else "",
            f"model {args.model}" if args.model else "",
            f"verdict {args.verdict}" if args.verdict else "",
            "hidden runs included" if args.all else "",
        )
        if part
    )
    for kind, path in targets:
        _write(runs_export(rows, kind, scope=scope), path)
    return 0


def _export_leaderboard(args: argparse.Namespace) -> int:
    open_storage(args)
    board = chosen_board(args)
    targets = _targets(args, f"leaderboard-{_file_part(board.case_name)}")
    for kind, path in targets:
        _write(board_export(board, kind), path)
    return 0


def _file_part(name: str) -> str:
    """A case name as part of a file name: letters, digits, "-", "_" and "." only."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in name).strip(".") or "case"
