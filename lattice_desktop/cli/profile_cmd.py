"""`profile RUN_ID|SUBMISSION`: where a case's fuel goes, per function, per call edge and
(with DWARF) per source line. Exports are written as far as they can be: each that cannot
be exact says why, the profile is printed all the same, and the exit status says a refusal
happened (EXIT_REFUSED) apart from a usage error (2)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from lattice_desktop.cli.common import EXIT_USAGE, add_db_option, err, open_storage
from lattice_desktop.cli.run_ids import run_id_or_path
from lattice_desktop.cli.terminal import shown
from lattice_desktop.errors import UserError
from lattice_desktop.profile.case_lines import case_lines
from lattice_desktop.profile.export import callgrind, speedscope, speedscope_problem
from lattice_desktop.profile.model import LineStats, Profile
from lattice_desktop.profile.pprof import pprof
from lattice_desktop.services.profiling import ProfileTarget, profile_target, run_target, submission_target
from lattice_desktop.work import Step, Work

EXIT_REFUSED = 6  # done: the profile printed, but an export asked for was refused (it says why)
assert EXIT_REFUSED != EXIT_USAGE


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "profile",
        help="exact fuel profile of a run or a submission on one case",
        description="Run the module instrumented with wasmtime's fuel rule on one case and report, "
        "per function, self fuel, inclusive fuel and calls, and per call edge calls and inclusive "
        "fuel, and with DWARF line info (built with -g) fuel per source line. Self fuel adds up "
        "to the graded fuel exactly. Made once, then read back.",
        epilog="Exit status: 0 done; 2 usage error (nothing profiled); 6 done with a refusal: the "
        "profile was printed and every export that can be exact was written, but one asked for "
        "was not (the message says why).",
    )
    p.add_argument("target", help="a run id (see `runs`), or a submission folder or submission.toml")
    p.add_argument(
        "--case",
        help="with a run id: the case to profile (default: its largest stress case); "
        "with a submission: the case manifest (case.toml)",
    )
    p.add_argument(
        "--case-name", help="with a submission: the case to profile (default: the largest stress case)"
    )
    p.add_argument("--json", action="store_true", help="print the profile as JSON")
    p.add_argument("--callgrind", metavar="FILE", type=Path, help="also write it for KCachegrind/QCachegrind")
    p.add_argument("--speedscope", metavar="FILE", type=Path, help="also write speedscope JSON (when exact)")
    p.add_argument(
        "--pprof",
        metavar="FILE",
        type=Path,
        help="also write a gzipped pprof profile (go tool pprof, speedscope, Pyroscope): fuel per "
        "function and source line with the call stacks",
    )
    p.add_argument(
        "--approximate",
        action="store_true",
        help="with --speedscope: where the call graph is not a tree, write a flame graph that splits a "
        "shared function's fuel between its callers, labelled approximate in the file",
    )
    p.add_argument("--top", type=int, default=25, help="functions listed (default 25)")
    add_db_option(p)
    p.set_defaults(func=_profile)


def _profile(args: argparse.Namespace) -> int:
    writer = open_storage(args)
    try:
        target = _target(args)
        work = Work(_progress if sys.stderr.isatty() else None)
        profile = profile_target(target, writer=writer, work=work)
    finally:
        writer.close()
    refusals = _exports(args, profile, target)
    if args.json:
        data = profile_dict(profile, target)
        data["refused_exports"] = refusals
        print(json.dumps(data, indent=1))
    else:
        print(profile_text(profile, target, top=args.top))
    for refusal in refusals:
        err(f"not written: {refusal}")
    return EXIT_REFUSED if refusals else 0


def _exports(args: argparse.Namespace, profile: Profile, target: ProfileTarget) -> list[str]:
    """Write each export asked for that can be made; return why each other one was not."""
    refusals: list[str] = []
    if args.approximate and not args.speedscope:
        raise UserError("--approximate is for --speedscope FILE")
    if args.callgrind:
        text = callgrind(profile, module_label=target.label, source_path=target.source_path)
        _attempt(refusals, args.callgrind, text)
    if args.pprof:
        written = pprof(profile, module_label=target.label)
        if _attempt(refusals, args.pprof, written.data) and written.approximate is not None:
            err(
                f"{_named(args.pprof)}: flat fuel per function and line is exact; the call stacks split "
                f"a shared function's fuel between its callers in proportion ({written.approximate})"
            )
    if args.speedscope:
        problem = speedscope_problem(profile)
        name = f"{target.label} · {profile.case_name}"
        if problem is None or args.approximate:
            flame = speedscope(profile, name=name, approximate=args.approximate)
            made = _attempt(refusals, args.speedscope, flame)
            if made and problem is not None:
                err(f"{_named(args.speedscope)} is approximate (so labelled in the file): {problem}")
        else:
            refusals.append(
                f"{_named(args.speedscope)}: no exact speedscope file: {problem}; --approximate writes "
                "one labelled as approximate, --callgrind an exact call graph"
            )
    return refusals


def _attempt(refusals: list[str], path: Path, text: str | bytes) -> bool:
    """Write one export; whether it was written (if not, why is added to `refusals`), so a
    note about the file's content is said only of a file that exists."""
    try:
        _write(path, text)
    except UserError as exc:
        refusals.append(str(exc))
        return False
    return True


def _named(path: Path) -> str:
    return shown(str(path).encode("utf-8", "backslashreplace").decode("utf-8"))


def _target(args: argparse.Namespace) -> ProfileTarget:
    if (number := run_id_or_path(args.target)) is not None:
        if args.case_name:
            raise UserError("--case-name is for a submission; with a run id, name the case with --case")
        return run_target(number, args.case)
    if not args.case:
        raise UserError("profiling a submission needs --case CASE (its case.toml)")
    return submission_target(args.target, args.case, args.case_name)


def _write(path: Path, text: str | bytes) -> None:
    """Write an export; any name is written or refused with a message, never a crash (a name
    from undecodable bytes holds lone surrogates, which no message may print as they are)."""
    named = _named(path)
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        raise UserError(f"cannot write {named}: the name cannot be encoded as a file name here") from None
    try:
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {named}: {exc.strerror}") from None
    err(f"wrote {named}")


def _progress(step: Step) -> None:
    err(f"\r{step.fraction:4.0%} {step.message}\x1b[K")


def profile_dict(profile: Profile, target: ProfileTarget) -> dict[str, object]:
    """The JSON the CLI prints: the profile's figures with names on every edge."""
    return {
        "target": target.label,
        "case": profile.case_name,
        "case_hash": profile.case_hash,
        "module_sha256": profile.module_sha256,
        "wasmtime_version": profile.wasmtime_version,
        "outcome": profile.outcome,
        "detail": profile.detail,
        "total_fuel": profile.total,
        "graded_fuel": profile.graded_fuel,
        "unattributed_fuel": profile.unattributed,
        "instrumented_fuel": profile.instrumented_fuel,
        "line_table": profile.line_table,
        "lines": [_line_dict(profile, s) for s in profile.hottest_lines()],
        "source_lines": [
            {
                "file": row.file,
                "line": row.line,
                "fuel": row.fuel,
                "share": round(profile.percent(row.fuel), 4),
                "functions": [{"function": f.name, "fuel": f.fuel} for f in row.functions],
            }
            for row in case_lines(profile)
        ],
        "functions": [
            {
                "index": f.index,
                "name": f.name,
                "calls": f.calls,
                "self_fuel": f.self_fuel,
                "inclusive_fuel": f.inclusive,
                "percent_self": round(profile.percent(f.self_fuel), 4),
            }
            for f in profile.ranked()
        ],
        "edges": [
            {
                "caller": profile.name_of(e.caller),
                "callee": profile.name_of(e.callee),
                "calls": e.calls,
                "inclusive_fuel": e.inclusive,
            }
            for e in sorted(profile.edges, key=lambda e: -e.inclusive)
        ],
    }


def _line_dict(profile: Profile, line: LineStats) -> dict[str, object]:
    """One function's fuel on one source line; `share` is its percentage of the case."""
    return {
        "function": profile.name_of(line.function),
        "file": line.file,
        "line": line.line,
        "fuel": line.fuel,
        "share": round(profile.percent(line.fuel), 4),
    }


def lines_text(profile: Profile, *, top: int) -> list[str]:
    """The hottest source lines of the case, each summed over the functions it was compiled
    into (a helper inlined into four is one line), or why there are none."""
    if not profile.line_table:
        return ["no source lines: the module has no DWARF line info (build it with -g); fuel is per function"]
    lines = [f"{'fuel':>15} {'%':>6}  line (functions, most fuel first)"]
    for row in case_lines(profile)[:top]:
        where = f"{shown(row.file) or '?'}:{row.line}"
        names = ", ".join(shown(f.name) for f in sorted(row.functions, key=lambda f: -f.fuel))
        lines.append(f"{row.fuel:>15,} {profile.percent(row.fuel):>5.1f}%  {where} ({names})")
    return lines


def profile_text(profile: Profile, target: ProfileTarget, *, top: int) -> str:
    """The profile as the terminal shows it: a total line, functions, then call edges."""
    check = ""
    if profile.graded_fuel is not None:
        same = profile.graded_fuel == profile.total
        check = f" · graded {profile.graded_fuel:,} " + ("(exact)" if same else "(DIFFERENT)")
    lines = [f"{shown(target.label)} · {shown(profile.case_name)}: {profile.total:,} fuel{check}"]
    if not profile.complete:
        lines.append(f"the run did not return ({profile.outcome}: {shown(profile.detail)}); ")
        lines.append(f"  {profile.unattributed:,} fuel of activations it cut short is not attributed")
    lines += ["", f"{'self':>15} {'%':>6} {'inclusive':>15} {'%':>6} {'calls':>12}  function"]
    for f in profile.ranked()[:top]:
        lines.append(
            f"{f.self_fuel:>15,} {profile.percent(f.self_fuel):>5.1f}% {f.inclusive:>15,} "
            f"{profile.percent(f.inclusive):>5.1f}% {f.calls:>12,}  {shown(f.name)}"
        )
    lines += ["", f"{'calls':>12} {'inclusive':>15}  caller → callee"]
    for e in sorted(profile.edges, key=lambda e: -e.inclusive)[:top]:
        caller, callee = shown(profile.name_of(e.caller)), shown(profile.name_of(e.callee))
        lines.append(f"{e.calls:>12,} {e.inclusive:>15,}  {caller} → {callee}")
    lines += ["", *lines_text(profile, top=top)]
    return "\n".join(lines)
