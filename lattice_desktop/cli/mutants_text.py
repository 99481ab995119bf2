"""`case mutants CASE`: the mutation report, as text or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from lattice_desktop.casekit.mutants.case_subject import subject_for
from lattice_desktop.casekit.mutants.judge import EQUIVALENT, KILLED_BY_SMOKE, STILLBORN, SURVIVED, Verdict
from lattice_desktop.casekit.mutants.operators import Mutant
from lattice_desktop.casekit.mutants.run import MutationRun, run_mutants
from lattice_desktop.casekit.mutants.score import Scores, judged, scores
from lattice_desktop.cli.common import positive_int
from lattice_desktop.cli.terminal import shown
from lattice_desktop.errors import UserError
from lattice_desktop.manifest import CaseManifest, load_case
from lattice_desktop.resources import resolve_case_path
from lattice_desktop.work import Work

LISTED = 40  # mutants listed by name under each heading of the text report


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "mutants",
        help="mutate the case's reference and report which smoke tests and stress cases catch each mutant",
    )
    p.add_argument("manifest", help="case manifest, folder or bundled name")
    p.add_argument("--json", action="store_true", help="every verdict and the scores as JSON")
    p.add_argument(
        "--limit", type=positive_int, help="judge only the declared mutants and the first N others"
    )
    p.add_argument("--workers", type=positive_int, default=1, help="processes that judge mutants (default 1)")
    p.add_argument("--results", type=Path, help="the results file to resume from and add to")
    add_consent(p)
    p.set_defaults(func=run_command)


def add_consent(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--allow-case-code",
        action="store_true",
        help="build the mutants with the reference's own build commands (jailed, like a submission's "
        "build); a case from someone else is untrusted code",
    )


def refuse_without_consent(args: argparse.Namespace, case: CaseManifest) -> None:
    """Mutants are built by the case's own build commands: like `case build`, only with consent."""
    if not args.allow_case_code:
        raise UserError(
            f"{case.path}: judging mutants builds each one with the reference's own build commands; "
            "they run only when you allow it (--allow-case-code), and then jailed like a submission's build"
        )


def run_command(args: argparse.Namespace) -> int:
    case = load_case(resolve_case_path(args.manifest))
    refuse_without_consent(args, case)
    subject = subject_for(case)
    work = Work()
    progress = _Progress(quiet=args.json)
    try:
        run = run_mutants(
            subject, limit=args.limit, workers=args.workers, results=args.results, work=work, each=progress
        )
    except KeyboardInterrupt:
        print(f"stopped after {progress.done} mutants; run the same command again to resume", file=sys.stderr)
        return 130
    result = scores(run)
    if args.json:
        print(json.dumps(as_json(run, result), indent=2))
    else:
        print_report(run, result)
    return 0 if run.complete else 1


def check_mutants(case: CaseManifest, *, workers: int) -> list[str]:
    """`case check --mutants`: the scores in a few lines; each survivor is a weakness."""
    run = run_mutants(subject_for(case), workers=workers, each=_Progress(quiet=False))
    result = scores(run)
    print(f"mutants ({run.total} of the reference; {result.counts.get(EQUIVALENT, 0)} equivalent):")
    print(f"  smoke tests kill {result.smoke.text()}; the whole case {result.whole.text()}")
    return [
        f"mutant {m.key} ({m.label}: {m.after or '(removed)'}) survives every case "
        f"but answers generated input {v.differs_on} otherwise"
        for m, v in judged(run)
        if v.status == SURVIVED
    ]


class _Progress:
    def __init__(self, *, quiet: bool) -> None:
        self.quiet = quiet
        self.done = 0

    def __call__(self, mutant: Mutant, verdict: Verdict) -> None:
        self.done += 1
        if not self.quiet and self.done % 50 == 0:
            print(f"  … {self.done} judged", file=sys.stderr, flush=True)


def as_json(run: MutationRun, result: Scores) -> dict[str, object]:
    subject = run.subject
    return {
        "case": subject.case.label,
        "mutants": run.total,
        "judged": result.judged,
        "complete": run.complete,
        "generated_inputs": run.samples,
        "counts": result.counts,
        "score": {
            "smoke": result.smoke.percent,
            "stress": result.stress.percent,
            "case": result.whole.percent,
            "non_equivalent": result.whole.of,
        },
        "rules": [
            {
                "rule": r.rule,
                "own_smoke_tests": list(r.own),
                "killed": r.score.killed,
                "of": r.score.of,
                "missed": [m.key for m in r.missed],
            }
            for r in result.rules
        ],
        "verdicts": [
            {
                "key": m.key,
                "name": m.label,
                "operator": m.operator,
                "file": m.file,
                "line": m.line,
                "function": m.function,
                "rule": subject.rule(m),
                "before": m.before,
                "after": m.after,
                "status": v.status,
                "smoke": list(v.smoke),
                "stress": v.stress,
                "samples": v.samples,
                "differs_on": v.differs_on,
                "detail": v.detail,
            }
            for m, v in judged(run)
        ],
        "results_file": str(run.results),
    }


def _rules_without_code(run: MutationRun, scored: set[str]) -> list[str]:
    """The case's rules (the first smoke test of each behaviour) no mutant's code belongs
    to, live or equivalent."""
    owned = scored | {run.subject.rule(m) for m in run.mutants}
    first: dict[str, str] = {}
    for entry in run.subject.case.smoke:
        first.setdefault(entry.behaviour, entry.name)
    return [name for name in first.values() if name not in owned]


def print_report(run: MutationRun, result: Scores) -> None:
    subject = run.subject
    sample = "" if len(run.mutants) == run.total else f" (a sample: --limit {len(run.mutants)})"
    print(f"{shown(subject.case.label)}: {run.total} mutants of {subject.reference.name}{sample}")
    counts = ", ".join(f"{n} {status}" for status, n in sorted(result.counts.items()))
    print(f"  judged {result.judged}: {counts}")
    print(
        f"  equivalent: the same answers on every case and on {run.samples} generated inputs "
        "(or the reference's own code)"
    )
    print(f"  smoke tests: {result.smoke.text()} of the non-equivalent mutants killed")
    print(f"  stress cases: {result.stress.text()} killed by at least one")
    print(f"  whole case: {result.whole.text()}")
    if result.rules:
        print("  per rule (mutants in the rule's code killed by its own smoke tests):")
        for r in result.rules:
            print(f"    {shown(r.rule):<34} {r.score.text()}")
        if len(run.mutants) == run.total:  # a sample may just have missed a rule's code
            for name in _rules_without_code(run, {r.rule for r in result.rules}):
                print(f"    {shown(name):<34} no code of its own in the reference")
    pairs = judged(run)
    for title, keep in (
        ("survived (no case fails them; a generated input does)", lambda v: v.status == SURVIVED),
        (
            "killed only by stress",
            lambda v: v.status not in (KILLED_BY_SMOKE, EQUIVALENT, STILLBORN, SURVIVED),
        ),
        ("survive every stress case", lambda v: v.status == KILLED_BY_SMOKE and not v.stress),
    ):
        _listing(title, [(m, v) for m, v in pairs if keep(v)], subject.rule)
    for r in result.rules:
        if r.missed:
            _listing(
                f"in {r.rule}'s code, passing {', '.join(r.own)}",
                [(m, run.verdicts[m.key]) for m in r.missed],
                subject.rule,
            )
    print(f"  results: {run.results}" + ("" if run.complete else " (stopped: run again to resume)"))


def _listing(title: str, pairs: list[tuple[Mutant, Verdict]], rule_of: object) -> None:
    if not pairs:
        return
    print(f"  {title}: {len(pairs)}")
    for m, v in pairs[:LISTED]:
        caught = f"smoke {','.join(v.smoke)}" if v.smoke else (f"stress {v.stress}" if v.stress else v.status)
        print(
            f"    {m.key} {shown(m.label)} [{m.function or '-'}]: {shown(m.after or '(removed)')}  → {caught}"
        )
    if len(pairs) > LISTED:
        print(f"    … and {len(pairs) - LISTED} more (--json lists them all)")
