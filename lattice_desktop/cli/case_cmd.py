"""`case check MANIFEST`: every sample submission must get the verdict it expects."""

from __future__ import annotations

import argparse

from lattice_desktop.cli.census_text import print_census, print_coverage
from lattice_desktop.cli.common import err, positive_int
from lattice_desktop.cli.terminal import shown
from lattice_desktop.errors import UserError
from lattice_desktop.formatting import fuel
from lattice_desktop.grading.grader import grade
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.resources import resolve_case_path


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("case", help="work on a case manifest")
    sub = p.add_subparsers(dest="case_command", metavar="ACTION", required=True)
    check = sub.add_parser(
        "check",
        help="grade the case's sample submissions and confirm each expected verdict",
    )
    check.add_argument(
        "manifest",
        nargs="?",
        default="lattice",
        help="case manifest, folder or bundled name (default: lattice)",
    )
    check.add_argument("--build", action="store_true", help="rebuild samples from source first")
    check.add_argument("--workers", type=positive_int, default=2)
    check.add_argument(
        "--no-smoke-gate",
        dest="smoke_gate",
        action="store_false",
        help="run the stress cases even after a failed smoke test, and count "
        "the stress cases each sample fails (to judge the case, not the samples)",
    )
    check.set_defaults(func=_check)
    stats = sub.add_parser("stats", help="a census of what each of the case's scenarios exercises")
    stats.add_argument(
        "manifest",
        nargs="?",
        default="lattice",
        help="case manifest, folder or bundled name (default: lattice)",
    )
    stats.add_argument("--only", nargs="+", metavar="NAME", help="just these cases (e.g. stress-64)")
    stats.add_argument(
        "--recount",
        action="store_true",
        help="count again rather than read the census the case ships (census.json)",
    )
    stats.set_defaults(func=_stats)


def _check(args: argparse.Namespace) -> int:
    case = load_case(resolve_case_path(args.manifest))
    print(
        f"{shown(case.label)}: {len(case.smoke)} smoke tests, {len(case.stress)} stress cases, "
        f"ceiling {fuel(case.sandbox.fuel_limit)}"
    )
    folders = sorted(
        p
        for p in (case.samples_dir.iterdir() if case.samples_dir else [])
        if (p / "submission.toml").is_file()
    )
    if not folders:
        raise UserError(f"{case.path}: no sample submissions (a submissions/ folder beside it)")
    failures = 0
    missed: list[str] = []  # the samples that did not get their expected verdict
    for folder in folders:
        sample = load_submission(folder)
        if sample.expected_verdict is None:
            err(f"  {shown(folder.name)}: no expected_verdict in its submission.toml; skipped")
            continue
        report = grade(case, sample, allow_build=args.build, workers=args.workers, smoke_gate=args.smoke_gate)
        ok = report.verdict.value == sample.expected_verdict
        failures += not ok
        mark = "ok  " if ok else "FAIL"
        print(
            f"  {mark} {shown(folder.name):<12} expected {shown(sample.expected_verdict):<13} "
            f"got {report.verdict.value:<13} stress fuel {fuel(report.stress_fuel)}"
        )
        if not args.smoke_gate:
            stress = [r for r in report.results if not r.is_smoke]
            wrong = [r.name for r in stress if not r.outcome.correct]
            print(
                f"         fails {len(wrong)} of {len(stress)} stress cases"
                + (f": {', '.join(wrong)}" if wrong else "")
            )
        if not ok:
            missed.append(shown(folder.name))
            for r in report.results:
                if r.outcome.value != "pass":
                    first = r.detail.splitlines()[0] if r.detail else ""
                    print(f"         {shown(r.name)}: {r.outcome.look.text} {shown(first)}")
    print(
        "all samples got their expected verdict"
        if not failures
        else f"{failures} of {len(folders)} samples did not get their expected verdict: {', '.join(missed)}"
    )
    return 0 if not failures else 1


def _stats(args: argparse.Namespace) -> int:
    case = load_case(resolve_case_path(args.manifest))
    if case.family != "lattice-v1":
        raise UserError(f"{case.path}: a census needs Lattice scenarios (family lattice-v1)")
    entries = case.cases
    if args.only:
        unknown = sorted(set(args.only) - {e.name for e in entries})
        if unknown:
            raise UserError(f"{case.path}: no case named {', '.join(unknown)}")
        entries = tuple(e for e in entries if e.name in args.only)
    stress = {}
    for entry in entries:
        counted = print_census(
            f"{entry.name} ({entry.kind})",
            entry.input_bytes(),
            case_dir=case.path.parent,
            recount=args.recount,
        )
        if not entry.is_smoke:
            stress[entry.name] = counted
    if len(stress) > 1:
        print_coverage(stress)
    return 0
