"""`case new`, `case build`, `case check` and `case stats`: start a case, build its answers
and figures, prove it with its samples and slips, and count what its scenarios exercise."""

from __future__ import annotations

import argparse
from pathlib import Path

from lattice_desktop.casekit.build import CaseCode, build_case
from lattice_desktop.casekit.check import check_sample, check_slips, sample_folders, weaknesses
from lattice_desktop.casekit.kit_file import load_kit
from lattice_desktop.casekit.scaffold import scaffold
from lattice_desktop.casekit.slips import SlipResult
from lattice_desktop.cli.census_text import print_census, print_coverage
from lattice_desktop.cli.common import err, positive_int
from lattice_desktop.cli.mutants_text import add_consent, check_mutants, refuse_without_consent
from lattice_desktop.cli.mutants_text import add_parser as add_mutants_parser
from lattice_desktop.cli.terminal import shown
from lattice_desktop.errors import UserError
from lattice_desktop.formatting import fuel
from lattice_desktop.manifest import load_case
from lattice_desktop.outcomes import Outcome
from lattice_desktop.resources import resolve_case_path

RUNWAY_WORDS = "exhausted the runway "  # how sandbox/runner.py begins an exhausted runway's detail


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("case", help="work on a case manifest")
    sub = p.add_subparsers(dest="case_command", metavar="ACTION", required=True)
    new = sub.add_parser("new", help="start a case folder that builds and checks as it stands")
    new.add_argument("name", help="the case's name (and its folder's)")
    new.add_argument("--dir", type=Path, default=Path("."), help="where to make the folder (default: here)")
    new.set_defaults(func=_new)
    build = sub.add_parser(
        "build",
        help="generate inputs, compile, write the reference's answers and calibrate the ceiling and runways",
    )
    build.add_argument("folder", type=Path, help="the case folder (holding case.toml and kit.toml)")
    build.add_argument(
        "--check",
        action="store_true",
        help="write nothing: list the files a build would change (exit 1 if any)",
    )
    build.add_argument(
        "--allow-case-code",
        action="store_true",
        help="run the case's generator and build commands (jailed, like a submission's build); "
        "a case from someone else is untrusted code",
    )
    build.add_argument(
        "--allow-unisolated-build",
        action="store_true",
        help="where the build jail cannot be set up, run the case's code anyway with your rights",
    )
    build.set_defaults(func=_build)
    check = sub.add_parser(
        "check",
        help="grade the case's samples and slips and say what is weak in the case",
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
    check.add_argument(
        "--mutants",
        action="store_true",
        help="also run `case mutants` (kit cases; resumable, slow): report the smoke tests' mutation score",
    )
    add_consent(check)
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
    add_mutants_parser(sub)


def _new(args: argparse.Namespace) -> int:
    folder = scaffold(args.name, args.dir)
    print(f"made {folder}")
    print(
        f"next: lattice-desktop case build {folder} --allow-case-code, "
        f"then lattice-desktop case check {folder}"
    )
    return 0


def _build(args: argparse.Namespace) -> int:
    code = CaseCode(allowed=args.allow_case_code, unisolated=args.allow_unisolated_build)
    report = build_case(args.folder, check=args.check, code=code, say=print)
    runways = ", ".join(str(r) for r in report.figures.runways)
    print(f"ceiling {report.figures.ceiling:,} fuel; runways {runways} (stress cases in manifest order)")
    if args.check:
        print(
            "\n".join(f"differs: {name}" for name in report.changed) or "the case is what its sources build"
        )
        return 1 if report.changed else 0
    print("\n".join(f"wrote {name}" for name in report.changed) or "nothing changed")
    return 0


def _check(args: argparse.Namespace) -> int:
    case = load_case(resolve_case_path(args.manifest))
    if args.mutants:
        refuse_without_consent(args, case)
    kit = load_kit(case.path)
    print(
        f"{shown(case.label)}: {len(case.smoke)} smoke tests, {len(case.stress)} stress cases, "
        f"ceiling {fuel(case.sandbox.fuel_limit)}"
    )
    folders = sample_folders(case)
    if not folders:
        raise UserError(f"{case.path}: no sample submissions (a submissions/ folder beside it)")
    samples = []
    missed: list[str] = []  # the samples that did not get their expected verdict
    for folder in folders:
        result = check_sample(
            case, folder, allow_build=args.build, workers=args.workers, smoke_gate=args.smoke_gate
        )
        samples.append(result)
        if result.report is None:
            err(f"  {shown(folder.name)}: {result.skipped}; skipped")
            continue
        report = result.report
        mark = "ok  " if result.ok else "FAIL"
        print(
            f"  {mark} {shown(folder.name):<12} expected {shown(result.expected or ''):<13} "
            f"got {report.verdict.value:<13} stress fuel {fuel(report.stress_fuel)}"
        )
        if not args.smoke_gate:
            stress = [r for r in report.results if not r.is_smoke]
            wrong = [r.name for r in stress if not r.outcome.correct]
            print(
                f"         fails {len(wrong)} of {len(stress)} stress cases"
                + (f": {', '.join(wrong)}" if wrong else "")
            )
        if not result.ok:
            missed.append(shown(folder.name))
            for r in report.results:
                if r.outcome.value != "pass":
                    print(f"         {shown(r.name)}: {_why(r.outcome, r.detail)}")
    failures = len(missed)
    print(
        "all samples got their expected verdict"
        if not failures
        else f"{failures} of {len(folders)} samples did not get their expected verdict: {', '.join(missed)}"
    )
    if kit is None:
        return 0 if not missed else 1
    print("slips (each must fail exactly the smoke tests of its behaviour):")
    slips = check_slips(case, kit, allow_build=args.build, workers=args.workers, each=_print_slip)
    weak = weaknesses(case, samples, slips, kit)
    if args.mutants:
        weak += check_mutants(case, workers=args.workers)
    for line in weak:
        print(f"  weak: {shown(line)}")
    print(
        "the case is sound: every sample got its verdict and every smoke test caught its slip"
        if not weak
        else f"{len(weak)} weakness{'es' if len(weak) != 1 else ''} in the case"
    )
    return 0 if not weak else 1


def _why(outcome: Outcome, detail: str) -> str:
    """An outcome's label and the first line of its detail, the label's words said once
    ("runway exhausted at 4× the ceiling", not "runway exhausted exhausted the runway…")."""
    first = shown(detail.splitlines()[0]) if detail else ""
    said = outcome.look.text
    if first.startswith(RUNWAY_WORDS) and outcome is Outcome.OUT_OF_FUEL:
        return f"{said} {first.removeprefix(RUNWAY_WORDS)}"
    return f"{said}: {first}" if first else said


def _print_slip(result: SlipResult) -> None:
    mark = "ok  " if result.ok else "FAIL"
    failed = ", ".join(result.failed) or "nothing"
    print(f"  {mark} {shown(result.name):<20} breaks {shown(result.breaks):<20} fails {shown(failed)}")


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
