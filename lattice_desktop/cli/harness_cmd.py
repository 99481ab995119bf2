"""`harness score TRACE --box BOX`: score one recorded agent-harness run.

Storage-backed subcommands (import, verify, leaderboard) are added to the parser that
`register` returns.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from lattice_desktop.cli.common import EXIT_INTERNAL, EXIT_USAGE, add_db_option, open_storage
from lattice_desktop.cli.terminal import shown
from lattice_desktop.errors import UserError
from lattice_desktop.harness import load_box, load_trace, parse_trace, score
from lattice_desktop.harness.inspect_log import is_inspect_log
from lattice_desktop.harness.ranking import EPOCHS_NOTE, UNRANKED_NOTE, agent_label
from lattice_desktop.harness.result import METRIC_ORDER
from lattice_desktop.harness.run_files import runs_in_file
from lattice_desktop.harness.run_text import format_result


def register(commands: argparse._SubParsersAction) -> argparse._SubParsersAction:
    """Add `harness` and its `score` subcommand; return the harness subcommand parsers."""
    harness = commands.add_parser("harness", help="score recorded runs of agent harnesses")
    sub = harness.add_subparsers(dest="harness_command", metavar="SUBCOMMAND")
    harness.set_defaults(func=lambda _args: _usage(harness))

    p = sub.add_parser(
        "score", help="score one run trace (or each sample of an Inspect AI log) against its box"
    )
    p.add_argument("trace", metavar="TRACE", help="run trace (JSON Lines) or Inspect AI log (.eval, .json)")
    p.add_argument("--box", required=True, metavar="BOX", help="box definition (TOML)")
    p.add_argument(
        "--json",
        action="store_true",
        help="print the whole result as JSON (a list, one per sample, for an Inspect AI log)",
    )
    p.set_defaults(func=_score)

    p = sub.add_parser("import", help="score runs and store them with their inputs")
    p.add_argument(
        "traces", nargs="+", metavar="TRACE", help="run traces (JSON Lines) or Inspect AI logs (.eval, .json)"
    )
    p.add_argument("--box", required=True, metavar="BOX")
    add_db_option(p)
    p.set_defaults(func=_import)

    p = sub.add_parser("verify", help="recompute every stored run from its stored inputs")
    add_db_option(p)
    p.set_defaults(func=_verify)

    p = sub.add_parser("leaderboard", help="harnesses ranked per box and stage")
    p.add_argument("--box", help="only this box: its id (as `runs` shows it), or its box file")
    add_db_option(p)
    p.set_defaults(func=_leaderboard)
    return sub


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def _score(args: argparse.Namespace) -> int:
    try:
        box = load_box(args.box)
        if is_inspect_log(args.trace):
            runs = runs_in_file(box, Path(args.trace))
            results = [score(box, parse_trace(text, source=source)) for source, text in runs]
        else:  # read line by line: memory bounded by the events, not the file's bytes
            results = [score(box, load_trace(args.trace))]
    except UserError as exc:
        print(f"error: {shown(exc)}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        dicts = [r.to_dict() for r in results]
        print(json.dumps(dicts if is_inspect_log(args.trace) else dicts[0], indent=2, ensure_ascii=False))
    else:
        print("\n\n".join(format_result(r) for r in results))
    return 0


def _import(args: argparse.Namespace) -> int:
    from lattice_desktop.services.harness_import import import_traces

    writer = open_storage(args)
    outcome = import_traces(writer, Path(args.box), [Path(t) for t in args.traces])
    writer.close()
    for run_id in outcome.stored:
        print(f"stored harness run {run_id}")
    for error in outcome.errors:
        print(f"error: {shown(error)}", file=sys.stderr)
    for failure in outcome.failures:
        print(f"internal error: {failure}", file=sys.stderr)
    if outcome.failures:
        return EXIT_INTERNAL
    return EXIT_USAGE if outcome.errors else 0


def _verify(args: argparse.Namespace) -> int:
    from lattice_desktop.store.harness_runs import list_harness_runs, verify_stored

    open_storage(args)
    problems = verify_stored()
    count = len(list_harness_runs())
    for run_id, found in problems:
        for problem in found:
            print(f"run {run_id}: {shown(problem)}")
    print(
        f"{count - len(problems)} of {count} stored harness runs reproduce"
        + ("" if not problems else f"; {len(problems)} do not (a scoring bug: report it)")
    )
    return 0 if not problems else 1


def _leaderboard(args: argparse.Namespace) -> int:
    from lattice_desktop.store.harness_runs import harness_box_names, harness_leaderboards, harness_unranked

    open_storage(args)
    box = _box_name(args.box)
    boards = harness_leaderboards(box)
    unranked = harness_unranked(box)
    if not boards and not unranked:
        known = harness_box_names()
        if box and known:
            listed = ", ".join(map(shown, known))
            raise UserError(f"no harness runs of a box named '{shown(box)}' (boxes with runs: {listed})")
        print("No harness runs stored yet — `lattice-desktop harness import TRACE --box BOX`.")
    for key in sorted({*boards, *unranked}):
        stage, box = key
        ranked = boards.get(key, [])
        names = {id(e): shown(agent_label(e.result)) for e in ranked}
        width = max(32, *(len(name) for name in names.values())) if names else 32
        print(f"{shown(box)} · stage {shown(stage)} — {EPOCHS_NOTE}")
        print(
            f"  {'#':>3}  {'harness / model':<{width}} {'Score':>5} {'Exec':>5} {'Cost':>5} "
            f"{'Focus':>5} {'Time':>5} {'Compl':>5} {'Tools':>5}  run"
        )
        for entry in ranked:
            r = entry.result
            cells = [r.metrics[n].shown for n in METRIC_ORDER]
            mark = " " if r.unranked is None else "*"  # placed by its Score, not ranked
            print(
                f"  {entry.position:>3}{mark} {names[id(entry)]:<{width}} {cells[0]:>5} "
                f"{r.execution.shown:>5} {cells[1]:>5} {cells[2]:>5} {cells[3]:>5} "
                f"{cells[4]:>5} {cells[5]:>5}  {entry.run_id}"
            )
        if any(e.result.unranked is not None for e in ranked):
            print(f"  {UNRANKED_NOTE}")
        for stored_id, result in unranked.get(key, []):
            print(
                f"    -  {shown(agent_label(result))}: run {stored_id} ({shown(result.run_id)}), "
                f"status {shown(result.status)}, not ranked: {shown(result.unranked)}"
            )
    return 0


def _box_name(box: str | None) -> str | None:
    """`--box` as a box id, or as the box file `import` and `score` take (read for its id)."""
    if box and box.endswith(".toml") and Path(box).is_file():
        return load_box(box).id
    return box
