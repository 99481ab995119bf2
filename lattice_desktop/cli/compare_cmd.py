"""`compare A B`: a regression report between two runs (or submissions graded on the spot),
with an exit status a CI job can use (`--fail-above PCT`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from lattice_desktop.cli.ci_reports import add_markdown_option, check_writable, write_report
from lattice_desktop.cli.common import add_db_option, err, open_storage
from lattice_desktop.cli.run_ids import run_id_or_path
from lattice_desktop.cli.terminal import shown
from lattice_desktop.errors import UserError
from lattice_desktop.formatting import grouped
from lattice_desktop.manifest.case import load_case
from lattice_desktop.manifest.submission import load_submission
from lattice_desktop.resources import resolve_case_path
from lattice_desktop.services.compare_runs import TOP_LINES, Comparison, compare_runs
from lattice_desktop.services.exports.compare_html import comparison_html
from lattice_desktop.services.exports.markdown import compare_markdown
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.queries import load_run
from lattice_desktop.store.writer import Writer
from lattice_desktop.work import Step, Work

# A case got worse than --fail-above allows: the check failed (as a failing test exits 1);
# distinct from a usage error (2) and from an internal error (4).
EXIT_REGRESSED = 1


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "compare",
        help="regression report between two runs or submissions, per case and per function",
        description="Compare run A with run B case by case: the fuel of each, the change and its "
        "percentage, verdict changes, and the functions (and, for modules built with -g, the "
        "source lines) that account for most of each change (from their fuel profiles, made if "
        "missing). A submission folder instead of a run id is "
        "graded first (against --case, or the other run's case) and stored as a run. "
        f"With --fail-above PCT, exits {EXIT_REGRESSED} when any stress case got more than PCT%% "
        "worse, or any case lost its verdict (smoke-test fuel is shown but not gated: grading scores "
        "smoke tests on correctness alone); 2 is a usage error.",
    )
    p.add_argument("before", metavar="A", help="the baseline: a run id (see `runs`) or a submission folder")
    p.add_argument("after", metavar="B", help="the candidate: a run id or a submission folder")
    p.add_argument("--case", help="the case manifest (case.toml) to grade submission folders against")
    p.add_argument(
        "--fail-above",
        metavar="PCT",
        type=_percent,
        help="fail when a stress case got worse by more than PCT%% or a case lost its verdict",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--html", metavar="FILE", type=Path, help="also write a self-contained HTML report")
    add_markdown_option(p)
    p.add_argument("--no-profile", action="store_true", help="use stored profiles only; never profile")
    add_db_option(p)
    p.set_defaults(func=_compare)


def _percent(text: str) -> float:
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{shown(text)}' is not a percentage (e.g. 2 or 2.5)") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"'{shown(text)}': the threshold is a percentage of 0 or more")
    return value


def _compare(args: argparse.Namespace) -> int:
    check_writable(args.html, args.markdown)
    writer = open_storage(args)
    try:
        work = Work(_progress if sys.stderr.isatty() else None)
        before, after = _run_ids(args, writer, work)
        comparison = compare_runs(before, after, writer=writer, profile=not args.no_profile, work=work)
    finally:
        writer.close()
    if args.html:
        _write(args.html, comparison_html(comparison, threshold=args.fail_above))
    if args.markdown:
        text = compare_markdown(comparison, threshold=args.fail_above)
        write_report(args.markdown, text, kind="markdown", what="the Markdown summary")
    if args.json:
        data = comparison.to_dict()
        if args.fail_above is not None:
            data["fail_above"] = args.fail_above
            data["worse"] = [c.name for c in comparison.worse_than(args.fail_above)]
        print(json.dumps(data, indent=1))
    else:
        print(comparison_text(comparison, threshold=args.fail_above))
    if args.fail_above is not None and comparison.worse_than(args.fail_above):
        return EXIT_REGRESSED
    return 0


def _run_ids(args: argparse.Namespace, writer: Writer, work: Work) -> tuple[int, int]:
    """Run ids for A and B, grading a submission folder first where one is named."""
    named = [run_id_or_path(args.before), run_id_or_path(args.after)]
    case = args.case
    if case is None:
        known = next((n for n in named if n is not None), None)
        stored = load_run(known) if known is not None else None
        if None in named and stored is None:
            raise UserError(
                "comparing a submission folder needs --case CASE (its case.toml) or a run id beside it"
            )
        case = stored.manifest_path if stored is not None else None
    ids = []
    for number, text in zip(named, (args.before, args.after), strict=True):
        if number is None:
            assert case is not None
            err(f"grading {shown(text)}…")
            manifest = load_case(resolve_case_path(case))
            graded = grade_and_store(manifest, load_submission(text), writer=writer, work=work).run_id
            err(f"stored as run {graded}")
        ids.append(number if number is not None else graded)
    return ids[0], ids[1]


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {shown(str(path))}: {exc.strerror}") from None
    err(f"wrote {shown(str(path))}")


def _progress(step: Step) -> None:
    err(f"\r{step.fraction:4.0%} {step.message}\x1b[K")


def comparison_text(comparison: Comparison, *, threshold: float | None) -> str:
    """The report as the terminal shows it: the two runs, a row per case, the functions."""
    a, b = comparison.before, comparison.after
    width = max([16, *(len(shown(c.name)) for c in comparison.cases)])  # the longest name fits
    lines = [
        f"A: {shown(a.label)} · {shown(a.model)} · {shown(a.case)} · {a.verdict}",
        f"B: {shown(b.label)} · {shown(b.model)} · {shown(b.case)} · {b.verdict}",
        *(f"note: {shown(n)}" for n in comparison.notes),
        "",
        f"{'case':<{width}} {'A fuel':>15} {'B fuel':>15} {'change':>15} {'%':>9}  verdict",
    ]
    for c in comparison.cases:
        delta = "-" if c.delta is None else f"{c.delta:+,}"
        pct = "-" if c.percent is None else f"{c.percent:+.2f}%"
        verdict = f"{c.before_outcome} → {c.after_outcome}" if c.verdict_changed else c.after_outcome
        lines.append(
            f"{shown(c.name):<{width}} {grouped(c.before_fuel):>15} {grouped(c.after_fuel):>15} "
            f"{delta:>15} {pct:>9}  {verdict}"
        )
        for f in c.functions:
            share = f" ({100 * f.delta / c.delta:.0f}% of the change)" if c.delta else ""
            lines.append(f"{'':<16}   {f.delta:+,} in {shown(f.name)}: {f.before:,} → {f.after:,}{share}")
            for ln in f.lines[:TOP_LINES]:
                part = f" ({100 * ln.delta / f.delta:.0f}% of {shown(f.name)}'s change)" if f.delta else ""
                lines.append(
                    f"{'':<16}       {ln.delta:+,} at {shown(ln.place)}: {ln.before:,} → {ln.after:,}{part}"
                )
            if len(f.lines) > TOP_LINES:
                more = len(f.lines) - TOP_LINES
                lines.append(
                    f"{'':<16}       … {more} more line{'s' if more != 1 else ''} (--json lists them)"
                )
        if c.note and c.note != "no change in fuel":
            lines.append(f"{'':<16}   ({shown(c.note)})")
        elif c.functions and c.lines_note:
            lines.append(f"{'':<16}   ({shown(c.lines_note)})")
    if threshold is not None:
        lines += ["", gate_line(comparison, threshold)]
        smoke = sum(not c.gated for c in comparison.cases)
        if smoke:
            lines.append(
                f"(the fuel of the {smoke} smoke test(s) is shown, not gated: grading scores smoke "
                "tests on correctness alone)"
            )
    return "\n".join(lines)


def gate_line(comparison: Comparison, threshold: float) -> str:
    """The --fail-above verdict in one line: FAIL with the cases, or ok."""
    worse = comparison.worse_than(threshold)
    if not worse:
        return f"ok: no stress case worse by more than {threshold:g}% and no verdict lost"
    names = ", ".join(shown(c.name) for c in worse)
    return f"FAIL: {len(worse)} case(s) worse by more than {threshold:g}% or lost their verdict: {names}"
