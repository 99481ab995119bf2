"""`runs`, `show RUN` and `leaderboard CASE`: reading stored results; `hide`, `unhide` and
`delete`: taking runs out of the field for a while or for good."""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata

from lattice_desktop.cli.common import add_board_options, add_db_option, chosen_board, open_storage
from lattice_desktop.cli.report_text import result_rows, verdict_line
from lattice_desktop.cli.run_ids import run_id
from lattice_desktop.cli.terminal import shown
from lattice_desktop.errors import UserError
from lattice_desktop.formatting import fuel, moment
from lattice_desktop.grading.report_json import result_to_dict
from lattice_desktop.harness.ranking import agent_label
from lattice_desktop.harness.run_text import format_result
from lattice_desktop.outcomes import Verdict
from lattice_desktop.services.exports.tables import metric_value
from lattice_desktop.services.run_failure import run_failure
from lattice_desktop.store.field import standing
from lattice_desktop.store.harness_runs import StoredHarnessRun, load_harness_run
from lattice_desktop.store.hidden_runs import hide_runs, unhide_runs
from lattice_desktop.store.pages import HarnessPage, load_harness_page
from lattice_desktop.store.queries import ListedRun, list_every_run, load_run
from lattice_desktop.store.run_numbers import GRADED, HARNESS, no_such_run
from lattice_desktop.store.runs import delete_runs

HARNESS_WORD = "◇ harness"  # where a graded run's verdict is: a harness run has none


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("runs", help="list stored runs, graded and harness, newest first")
    p.add_argument("--case", help="only this case name (or harness box)")
    p.add_argument("--model", help="only this model")
    p.add_argument(
        "--verdict",
        choices=[v.value for v in Verdict.filters()],
        help="only graded runs of this verdict",
    )
    p.add_argument("--limit", type=int, default=50)
    p.add_argument("--all", action="store_true", help="hidden runs too (marked hidden)")
    p.add_argument("--json", action="store_true", help="one JSON array of runs, for scripts")
    add_db_option(p)
    p.set_defaults(func=_runs)

    p = commands.add_parser("show", help="show one stored run with every case result")
    p.add_argument("run", type=run_id, help="run id (see `runs`)")
    p.add_argument("--json", action="store_true")
    add_db_option(p)
    p.set_defaults(func=_show)

    p = commands.add_parser("leaderboard", help="models ranked by best correct fuel")
    add_board_options(p)
    p.add_argument("--json", action="store_true")
    add_db_option(p)
    p.set_defaults(func=_leaderboard)

    for name, helped in (
        ("hide", "hide runs: kept, but left out of the runs list, the field and the leaderboard"),
        ("unhide", "show hidden runs again (see `runs --all`)"),
    ):
        p = commands.add_parser(name, help=helped)
        p.add_argument("runs", type=run_id, nargs="+", metavar="RUN", help="run id (see `runs`)")
        add_db_option(p)
        p.set_defaults(func=_hide if name == "hide" else _unhide)

    p = commands.add_parser("delete", help="delete runs for good, with their results")
    p.add_argument("runs", type=run_id, nargs="+", metavar="RUN", help="run id (see `runs --all`)")
    p.add_argument("--yes", action="store_true", help="do not ask first")
    add_db_option(p)
    p.set_defaults(func=_delete)


def _runs(args: argparse.Namespace) -> int:
    open_storage(args)
    rows = list_every_run(
        case=args.case, model=args.model, verdict=args.verdict, limit=args.limit, include_hidden=args.all
    )
    if args.json:
        json.dump([_run_entry(r) for r in rows], sys.stdout, indent=2)
        print()
        return 0
    if not rows:
        filtered = args.case or args.model or args.verdict
        print(
            "No runs match those filters."
            if filtered
            else "No runs yet — grade one with `lattice-desktop grade SUBMISSION --case CASE`."
        )
        return 0
    print("\n".join(runs_table(rows)))
    return 0


RUNS_HEAD = ("run", "case", "model", "verdict", "score", "finished", "")
RIGHT_COLUMNS = frozenset({0, 4})
WIDEST = 64
"""A column is as wide as its longest value up to this; a longer value (a name someone
chose) overflows its own row only, never pushing the other rows' columns out of line."""


def runs_table(rows: list[ListedRun]) -> list[str]:
    """The `runs` table: a header and one line per run, each column as wide as its values
    (up to WIDEST) so a harness row's "harness / model" keeps every column in line."""
    cells = [RUNS_HEAD, *(_run_cells(r) for r in rows)]
    widths = [min(WIDEST, max(_width(row[c]) for row in cells)) for c in range(len(RUNS_HEAD) - 1)]
    lines = []
    for row in cells:
        parts = [_pad(cell, widths[c], right=c in RIGHT_COLUMNS) for c, cell in enumerate(row[:-1])]
        lines.append(("  ".join(parts) + (f"  {row[-1]}" if row[-1] else "")).rstrip())
    return lines


def _run_cells(r: ListedRun) -> tuple[str, ...]:
    hidden = "(hidden)" if r.hidden else ""
    if isinstance(r, StoredHarnessRun):
        note = "  ".join(part for part in (shown(r.name), hidden) if part)
        return (
            str(r.id),
            shown(r.group),
            shown(agent_label(r.result)),
            HARNESS_WORD,
            "score " + r.result.metrics["score"].shown,
            moment(r.imported),
            note,
        )
    when = moment(r.finished) if r.finished else "-"
    note = "  ".join(part for part in (shown(r.identity.note or ""), hidden) if part)
    return (str(r.id), shown(r.case_label), shown(r.model), r.verdict.look.text, fuel(r.score), when, note)


def _width(text: str) -> int:
    """Columns a terminal gives `text`: two for a wide (East Asian) character, none for a
    combining mark."""
    return sum(
        0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        for ch in text
    )


def _pad(text: str, width: int, *, right: bool) -> str:
    fill = " " * max(0, width - _width(text))
    return fill + text if right else text + fill


def _run_entry(r: ListedRun) -> dict:
    if isinstance(r, StoredHarnessRun):
        return harness_entry(r)
    return {
        "run_id": r.id,
        "kind": GRADED,
        "case": r.case_name,
        "version": r.case_version,
        "variant": r.case_variant,
        **r.identity.to_json(),
        "model": r.model,
        "submission": r.submission,
        "verdict": r.verdict.value,
        "score": r.score,
        "stress_fuel": r.stress_fuel,
        "max_percent_over": r.max_percent_over,
        "started": r.started.isoformat() if r.started else None,
        "finished": r.finished.isoformat() if r.finished else None,
        "hidden": r.hidden,
    }


def harness_entry(r: StoredHarnessRun) -> dict:
    """A harness run in `runs --json`: its id in the one sequence, what it was scored
    against, its Score and Execution (exact values in `show --json`)."""
    result = r.result
    return {
        "run_id": r.id,
        "kind": HARNESS,
        "name": r.name,
        "trace_run_id": result.run_id,
        "box": result.box,
        "stage": result.stage,
        "harness": result.harness,
        "model": result.model,
        "status": result.status,
        "score": metric_value(result.metrics["score"].value),
        "execution": metric_value(result.execution.value),
        "unranked": result.unranked,
        "imported": r.imported.isoformat() if r.imported else None,
        "hidden": r.hidden,
    }


def _hide(args: argparse.Namespace) -> int:
    writer = open_storage(args)
    changed = writer.call(hide_runs, args.runs)
    print(f"hid {changed} run{'s' if changed != 1 else ''}; `lattice-desktop unhide RUN` shows one again")
    return 0


def _unhide(args: argparse.Namespace) -> int:
    writer = open_storage(args)
    changed = writer.call(unhide_runs, args.runs)
    print(f"{changed} run{'s' if changed != 1 else ''} shown again")
    return 0


def _delete(args: argparse.Namespace) -> int:
    writer = open_storage(args)
    if not args.yes:
        if not sys.stdin.isatty():
            raise UserError("deleting cannot be undone: add --yes (or hide the runs instead: `hide RUN`)")
        listed = ", ".join(map(str, args.runs))
        if input(f"Delete run {listed} and every result it holds, for good? [y/N] ").strip().lower() != "y":
            print("nothing deleted")
            return 0
    deleted = writer.call(delete_runs, args.runs)
    print(f"deleted {deleted} run{'s' if deleted != 1 else ''}")
    return 0


def _show(args: argparse.Namespace) -> int:
    open_storage(args)
    run = load_run(args.run)
    if run is None:
        harness = load_harness_run(args.run)
        if harness is not None:
            return _show_harness(harness, as_json=args.json)
        raise UserError(no_such_run(args.run, command="show"))
    place = standing(run.id)
    s = run.summary
    if args.json:
        json.dump(
            {
                "run_id": s.id,
                "case": s.case_label,
                **s.identity.to_json(),
                "model": s.model,
                "verdict": s.verdict.value,
                "score": s.score,
                "wasmtime_version": run.wasmtime_version,
                "standing": None if place is None else vars(place),
                "results": [result_to_dict(r) for r in run.results],
                "build": {"ok": run.build_ok, "detail": run.build_detail, "log": run.build_log},
            },
            sys.stdout,
            indent=2,
        )
        print()
        return 0
    print(
        f"run {s.id} · {shown(s.model)} · {shown(s.labelled_case)} · wasmtime {shown(run.wasmtime_version)}"
    )
    smoke = [r for r in run.results if r.is_smoke]
    stress = [r for r in run.results if not r.is_smoke]
    failure = run_failure(run.results, run.build_log)
    if failure is not None:
        print("\n" + "\n".join(shown(line) for line in failure.lines()))
    if smoke:
        print("\nSmoke tests (correctness only)")
        print("\n".join(result_rows(smoke, not_run=failure is not None)))
    if stress:
        print(f"\nStress cases (fuel; ceiling {fuel(run.fuel_limit)})")
        print("\n".join(result_rows(stress, not_run=failure is not None)))
    print()
    print(verdict_line(s.verdict, s.score, None))
    if place:
        print(f"field: {shown(place.describe())}")
    return 0


def _show_harness(stored: StoredHarnessRun, *, as_json: bool) -> int:
    """A harness run as `harness score` prints it, under its stored id."""
    if as_json:
        page = load_harness_page(stored.id)
        standing = None
        if page is not None:
            standing = {
                "position": page.position,
                "ranked": page.result.unranked is None,
                "board_size": page.board_size,
                "best_run_id": page.best_id,
                "describe": board_place(page),
            }
        entry = {**harness_entry(stored), "standing": standing, "result": stored.result.to_dict()}
        entry.update(box_source=stored.box_source, trace_source=stored.trace_source)
        json.dump(entry, sys.stdout, indent=2, ensure_ascii=False)
        print()
        return 0
    page = load_harness_page(stored.id)
    print(
        f"run {stored.id} · harness run · {shown(stored.name)} · imported {moment(stored.imported)}"
        + (" · hidden" if stored.hidden else "")
    )
    print(f"box {shown(stored.box_source)} · trace {shown(stored.trace_source)}")
    if page is not None:
        print(f"board: {shown(board_place(page))}")
    # The table's own first line names the run by the id its trace gave it: say so, as the
    # run's id in this database is the one above.
    table = format_result(stored.result)
    print("\n" + ("trace " + table if table.startswith("run ") else table))
    return 0


def board_place(page: HarnessPage) -> str:
    """Where a harness run stands on its box's board, as the app's header says it."""
    r = page.result
    reason = f" · not ranked: {r.unranked}" if r.unranked is not None else ""
    if page.position is None:
        return f"not on the board — run {page.best_id} is this agent's best{reason}"
    mark = "*" if r.unranked is not None else ""
    return f"#{page.position}{mark} of {page.board_size} on {r.box} · {r.stage}{reason}"


def _leaderboard(args: argparse.Namespace) -> int:
    open_storage(args)
    board = chosen_board(args)
    if args.json:
        json.dump(
            {
                "case": board.case_name,
                "version": board.version,
                "variant": board.variant,
                "wasmtime_version": board.wasmtime_version,
                "content": board.content,
                **board.identity.to_json(),
                "other_contents": board.other_contents,
                "entries": [_entry(e) for e in board.entries],
                "over_ceiling": [_entry(e) for e in board.over_ceiling],
            },
            sys.stdout,
            indent=2,
        )
        print()
        return 0
    print(
        f"{shown(board.case_name)} {board.version}/{shown(board.variant)} "
        f"· wasmtime {shown(board.wasmtime_version)} · {board.content_label}"
    )
    if not board.entries and not board.over_ceiling:
        print("No runs yet for this case.")
    for e in board.entries:
        print(
            f"#{e.rank:<3} {shown(e.model):<24} {fuel(e.fuel):>12}  ×{e.ratio:<7.2f} "
            f"{e.runs:>4} runs  {moment(e.date, '%Y-%m-%d')}  (run {e.run_id})"
        )
    if board.over_ceiling:
        print(f"{Verdict.OVER_CEILING.look.text} (not ranked):")
        for e in board.over_ceiling:
            print(
                f"{Verdict.OVER_CEILING.symbol:<4} {shown(e.model):<24} {fuel(e.fuel):>12}  "
                f"+{e.percent_over or 0:.0f}% {e.runs:>4} runs  (run {e.run_id})"
            )
    return 0


def _entry(e) -> dict:
    return {
        "rank": e.rank,
        "model": e.model,
        "run_id": e.run_id,
        "fuel": e.fuel,
        "ratio": e.ratio,
        "runs": e.runs,
        "date": e.date.isoformat() if e.date else None,
        "percent_over": e.percent_over,
    }
