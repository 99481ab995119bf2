"""`case check MANIFEST`: every sample submission must get the verdict it expects."""

from __future__ import annotations

import argparse

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
        "check", help="grade the case's sample submissions and confirm each expected verdict",
    )
    check.add_argument("manifest", nargs="?", default="lattice",
                       help="case manifest, folder or bundled name (default: lattice)")
    check.add_argument("--build", action="store_true", help="rebuild samples from source first")
    check.add_argument("--workers", type=positive_int, default=2)
    check.set_defaults(func=_check)


def _check(args: argparse.Namespace) -> int:
    case = load_case(resolve_case_path(args.manifest))
    print(f"{shown(case.label)}: {len(case.smoke)} smoke tests, {len(case.stress)} stress cases, "
          f"ceiling {fuel(case.sandbox.fuel_limit)}")
    folders = sorted(p for p in (case.samples_dir.iterdir() if case.samples_dir else [])
                     if (p / "submission.toml").is_file())
    if not folders:
        raise UserError(f"{case.path}: no sample submissions (a submissions/ folder beside it)")
    failures = 0
    for folder in folders:
        sample = load_submission(folder)
        if sample.expected_verdict is None:
            err(f"  {shown(folder.name)}: no expected_verdict in its submission.toml; skipped")
            continue
        report = grade(case, sample, allow_build=args.build, workers=args.workers)
        ok = report.verdict.value == sample.expected_verdict
        failures += not ok
        mark = "ok  " if ok else "FAIL"
        print(f"  {mark} {shown(folder.name):<12} expected {shown(sample.expected_verdict):<13} "
              f"got {report.verdict.value:<13} stress fuel {fuel(report.stress_fuel)}")
        if not ok:
            for r in report.results:
                if r.outcome.value != "pass":
                    first = r.detail.splitlines()[0] if r.detail else ""
                    print(f"         {shown(r.name)}: {r.outcome.look.text} {shown(first)}")
    print("all samples got their expected verdict" if not failures else f"{failures} sample(s) did not")
    return 0 if not failures else 1
