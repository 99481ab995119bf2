"""A grade report as a terminal table or as JSON."""

from __future__ import annotations

from lattice_desktop.cli.terminal import shown
from lattice_desktop.formatting import fuel, percent
from lattice_desktop.grading.report import CaseResult, GradeReport
from lattice_desktop.manifest.case_identity import identify_case
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.services.run_failure import NOT_RUN, run_failure
from lattice_desktop.store.field import Standing


def result_rows(results: list[CaseResult], *, not_run: bool = False) -> list[str]:
    """One line per case; with `not_run` (the run failed before any case ran) each case
    reads "not run", without the failure each one would repeat."""
    lines = []
    name_width = max([len(shown(r.name)) for r in results] + [4])
    for r in results:
        if not_run:
            lines.append(f"  {shown(r.name):<{name_width}}  {NOT_RUN}")
            continue
        over = f"+{percent(100.0 * r.overshoot / r.ceiling)}" if r.overshoot is not None else ""
        pct = percent(r.percent_of_ceiling, 0) if not r.is_smoke else ""
        cells = [
            f"  {shown(r.name):<{name_width}}",
            f"{r.outcome.look.text:<16}",
            f"{fuel(r.fuel):>12}",
            f"{pct:>6}",
            f"{over:>8}",
        ]
        line = "  ".join(cells).rstrip()
        detail = r.detail.splitlines()[0] if r.detail else ""
        if detail and r.outcome.value not in ("pass",):
            line += f"   {shown(detail)}"
        lines.append(line)
    return lines


def verdict_line(verdict: Verdict, score: int | None, overshoot: int | None) -> str:
    text = verdict.look.text
    if score is not None:
        text += f" · score {fuel(score)} ({score:,})"
    if overshoot is not None and verdict is Verdict.OVER_CEILING:
        text += f" · overshoot {fuel(overshoot)}"
    return text


def failure_reason(results: list[CaseResult]) -> str:
    """The first failing case and how it failed; a run out of runway is not a wrong answer."""
    failed = [r for r in results if not r.outcome.correct and r.outcome is not Outcome.SKIPPED]
    if not failed:
        return "no case failed"
    first = failed[0]
    if first.outcome is Outcome.OUT_OF_FUEL:
        text = f"{first.name} {first.detail.split(':')[0]}, before giving an answer"
    else:
        text = f"{first.name}: {first.outcome.label}"
    return text + (f" (and {len(failed) - 1} more)" if len(failed) > 1 else "")


def report_lines(
    report: GradeReport, *, standing: Standing | None = None, run_id: int | None = None
) -> list[str]:
    case = report.case
    identity = identify_case(case)
    head = f"{shown(report.submission.model)} · {shown(case.label)}"
    lines = [head + (f" · run {run_id}" if run_id else "")]
    if identity.note:
        lines.append(f"case {shown(identity.note)}")
    lines.append("")
    failure = run_failure(report.results, report.build.log if report.build is not None else "")
    failed = report.failed_smoke
    if failure is not None:
        lines += [shown(line) for line in failure.lines()] + [""]
    elif failed:
        lines.append(f"Smoke test {shown(failed[0].name)} failed — stress cases skipped (counted failed)")
        lines.append("")
    smoke = [r for r in report.results if r.is_smoke]
    stress = [r for r in report.results if not r.is_smoke]
    if smoke:
        lines.append("Smoke tests (correctness only)")
        lines.extend(result_rows(smoke, not_run=failure is not None))
        lines.append("")
    if stress:
        lines.append(f"Stress cases (fuel; ceiling {fuel(case.sandbox.fuel_limit)})")
        lines.extend(result_rows(stress, not_run=failure is not None))
        lines.append("")
    lines.append(verdict_line(report.verdict, report.score, report.overshoot))
    if report.verdict.failed:
        lines.append(f"why: {shown(failure.why) if failure else failure_reason(report.results)}")
    if standing is not None:
        apart = "" if identity.registered else " · ranked apart: its content is not registered"
        lines.append(f"field: {standing.describe()}{apart}")
    if report.build is not None and not report.build.ok and failure is None:
        lines.append("")
        lines.append("build log:")
        lines.extend("  " + shown(line) for line in report.build.log.splitlines()[-20:])
    return lines
