"""Graded runs and comparisons as Markdown a CI job summary shows as it is (GitHub's
`$GITHUB_STEP_SUMMARY`, GitLab and Buildkite annotations): a table with the verdict, the
score and the standing; for a comparison, the cases and functions that changed and the
--fail-above verdict."""

from __future__ import annotations

import re
from collections.abc import Sequence

from lattice_desktop.grading.report import CaseResult
from lattice_desktop.outcomes import Outcome
from lattice_desktop.services.compare_runs import CaseChange, Comparison
from lattice_desktop.services.exports.graded_runs import GradedRun
from lattice_desktop.services.exports.junit import clean, reason

_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|#~])")


def cell(text: str) -> str:
    """Text safe in a table cell: one line, control characters spelled out (\\u0007),
    Markdown and HTML characters escaped."""
    return _SPECIAL.sub(r"\\\1", clean(" ".join(text.split())))


def _code(name: str) -> str:
    """A function's name as code: backticks inside it become quotes, pipes are escaped."""
    return "`" + name.replace("`", "'").replace("|", "\\|") + "`"


def _fuel(value: int | None) -> str:
    return "–" if value is None else f"{value:,}"


def _standing(run: GradedRun) -> str:
    if run.standing is None:
        return "not stored" if run.run_id is None else "–"
    return run.standing.describe()


def _verdict(run: GradedRun) -> str:
    return f"{run.verdict.look.symbol} {run.verdict.look.words}"


def grade_markdown(run: GradedRun) -> str:
    """One run: its verdict, score and standing, then a row per case."""
    lines = [
        f"### {cell(run.title)} on {cell(run.case_label)}",
        "",
        "| verdict | score (fuel) | standing | run |",
        "| --- | ---: | --- | ---: |",
        f"| {_verdict(run)} | {_fuel(run.score)} | {cell(_standing(run))} | {_fuel(run.run_id)} |",
        "",
        *case_table(run.results),
    ]
    if run.note:
        lines += ["", cell(run.note)]
    return "\n".join(lines) + "\n"


def case_table(results: Sequence[CaseResult]) -> list[str]:
    lines = [
        "| case | kind | outcome | fuel | % of ceiling | reason |",
        "| --- | --- | --- | ---: | ---: | --- |",
    ]
    for r in results:
        share = "" if r.is_smoke or r.percent_of_ceiling is None else f"{r.percent_of_ceiling:.1f}%"
        why = "" if r.outcome is Outcome.PASS else cell(reason(r))
        lines.append(
            f"| {cell(r.name)} | {r.kind} | {r.outcome.look.text} | {_fuel(r.fuel)} | {share} | {why} |"
        )
    return lines


def _fails(r: CaseResult) -> bool:
    """A case its JUnit test fails: wrong, trapped, or over the ceiling (never a skip)."""
    return r.outcome is Outcome.OVER_CEILING or not (r.outcome.correct or r.outcome is Outcome.SKIPPED)


def batch_markdown(runs: Sequence[GradedRun], *, case_label: str, problems: Sequence[str] = ()) -> str:
    """A batch: a row per submission, best score first, then what could not be graded. A run
    stored by an earlier batch (not graded again) says so beside its id."""
    ranked = sorted(runs, key=lambda r: (r.score is None, r.score or 0, r.model, r.submission))
    lines = [
        f"### {len(runs)} submission(s) on {cell(case_label)}",
        "",
        "| submission | model | verdict | score (fuel) | standing | run | first failure |",
        "| --- | --- | --- | ---: | --- | ---: | --- |",
    ]
    for run in ranked:
        failed = next((r for r in run.results if _fails(r)), None)
        first = "" if failed is None else cell(f"{failed.name}: {reason(failed)}")
        stored = f"{_fuel(run.run_id)} (stored before)" if run.note else _fuel(run.run_id)
        lines.append(
            f"| {cell(run.submission)} | {cell(run.model)} | {_verdict(run)} | {_fuel(run.score)} | "
            f"{cell(_standing(run))} | {stored} | {first} |"
        )
    if problems:
        lines += ["", f"**{len(problems)} could not be graded:**", ""]
        lines += [f"- {cell(p)}" for p in problems]
    return "\n".join(lines) + "\n"


def compare_markdown(comparison: Comparison, *, threshold: float | None) -> str:
    """The changed cases with their functions, and the gate's verdict when there is one."""
    a, b = comparison.before, comparison.after
    lines = [
        f"### Fuel: A: {cell(a.label)} → B: {cell(b.label)}",
        "",
    ]
    if threshold is not None:
        worse = comparison.worse_than(threshold)
        if worse:
            names = ", ".join(cell(c.name) for c in worse)
            lines.append(f"**❌ FAIL** (--fail-above {threshold:g}%): {names}")
        else:
            lines.append(f"**✅ ok** (--fail-above {threshold:g}%): no stress case worse, no verdict lost")
        lines.append("")
    lines += [f"> {cell(n)}" for n in comparison.notes]
    changed = [c for c in comparison.cases if c.delta or c.verdict_changed or c.delta is None]
    if not changed:
        lines.append("No case changed.")
        return "\n".join(lines) + "\n"
    lines += [
        "| case | kind | A fuel | B fuel | change | % | verdict | gated |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    lines += [_change_row(c, threshold) for c in changed]
    functions = [(c, f) for c in changed for f in c.functions]
    if functions:
        lines += [
            "",
            "| case | function | A fuel | B fuel | change |",
            "| --- | --- | ---: | ---: | ---: |",
        ]
        lines += [
            f"| {cell(c.name)} | {_code(f.name)} | {f.before:,} | {f.after:,} | {f.delta:+,} |"
            for c, f in functions
        ]
    unchanged = len(comparison.cases) - len(changed)
    if unchanged:
        lines += ["", f"{unchanged} other case(s) unchanged."]
    return "\n".join(lines) + "\n"


def _change_row(c: CaseChange, threshold: float | None) -> str:
    delta = "–" if c.delta is None else f"{c.delta:+,}"
    pct = "–" if c.percent is None else f"{c.percent:+.2f}%"
    verdict = f"{c.before_outcome} → {c.after_outcome}" if c.verdict_changed else c.after_outcome
    if threshold is not None and c.worse_than(threshold):
        gate = "❌ worse"
    elif not c.gated:
        gate = "verdict only (smoke)"
    else:
        gate = "yes"
    return (
        f"| {cell(c.name)} | {c.kind} | {_fuel(c.before_fuel)} | {_fuel(c.after_fuel)} | {delta} | {pct} | "
        f"{cell(verdict)} | {gate} |"
    )
