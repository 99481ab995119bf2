"""Graded runs as JUnit XML, the per-test report every CI system shows (GitLab, Jenkins,
GitHub Actions through a test-reporter action, Buildkite): one `testsuite` per submission,
one `testcase` per case entry.

A passing case is a passed test; a case over the ceiling or failing (wrong answer, trap,
out of fuel, …) is a `failure` whose message is the located reason the grader gave (the
first mismatching snapshot, the trap and the function it hit) and whose text adds the wasm
call stack; a stress case skipped after a failed smoke test is `skipped`; an internal error
(never the submission's fault) is an `error`. Fuel and the ceiling are suite properties
(`CASE.fuel`, `CASE.ceiling`, as the Ant schema has no per-testcase properties) and each
test's `system-out`. The elements and attributes are those of the Ant/Jenkins junit-10
schema, which the common readers accept.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from lattice_desktop.grading.report import CaseResult
from lattice_desktop.outcomes import Outcome
from lattice_desktop.services.exports.graded_runs import GradedRun

# Characters XML 1.0 cannot hold (control characters, lone surrogates, U+FFFE/U+FFFF):
# written as \uXXXX so a submission's odd name never makes the file unreadable.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def clean(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def testcase_name(r: CaseResult) -> str:
    """The case's name with its behaviour, the test's description in every CI's list."""
    return f"{r.name}: {r.behaviour}" if r.behaviour else r.name


def junit_xml(runs: Sequence[GradedRun], *, name: str, problems: Sequence[tuple[str, str]] = ()) -> str:
    """The runs as one JUnit document (`name` names the whole, e.g. "lattice-desktop grade");
    `problems` (path, message) are submissions that could not be read, an `error` each."""
    root = ET.Element("testsuites", name=clean(name))
    totals = {"tests": 0, "failures": 0, "errors": 0}
    time = 0.0
    suites = [_suite(run) for run in runs] + ([_problem_suite(problems)] if problems else [])
    for suite in suites:
        root.append(suite)
        for key in totals:
            totals[key] += int(suite.get(key, "0"))
        time += float(suite.get("time", "0"))
    root.set("tests", str(totals["tests"]))
    root.set("failures", str(totals["failures"]))
    root.set("errors", str(totals["errors"]))
    root.set("time", f"{time:.6f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _suite(run: GradedRun) -> ET.Element:
    cases = [_testcase(run, r) for r in run.results]
    outcomes = [r.outcome for r in run.results]
    suite = ET.Element(
        "testsuite",
        name=clean(f"{run.title} · {run.case_label}"),
        tests=str(len(cases)),
        failures=str(sum(_kind(o) == "failure" for o in outcomes)),
        errors=str(sum(_kind(o) == "error" for o in outcomes)),
        skipped=str(sum(_kind(o) == "skipped" for o in outcomes)),
        time=f"{sum(r.wall_time for r in run.results):.6f}",
    )
    if run.started is not None:
        suite.set("timestamp", run.started.isoformat(timespec="seconds"))
    if run.run_id is not None:
        suite.set("id", str(run.run_id))
    props = ET.SubElement(suite, "properties")
    for key, value in _properties(run):
        ET.SubElement(props, "property", name=clean(key), value=clean(value))
    suite.extend(cases)
    out = ET.SubElement(suite, "system-out")
    out.text = clean("\n".join(_suite_lines(run)))
    return suite


def _problem_suite(problems: Sequence[tuple[str, str]]) -> ET.Element:
    suite = ET.Element(
        "testsuite",
        name="submissions that could not be graded",
        tests=str(len(problems)),
        errors=str(len(problems)),
    )
    for path, message in problems:
        case = ET.SubElement(suite, "testcase", name=clean(path), classname="submission")
        ET.SubElement(case, "error", type="unreadable_submission", message=clean(message))
    return suite


def _properties(run: GradedRun) -> list[tuple[str, str]]:
    items = [
        ("model", run.model),
        ("submission", run.submission),
        ("case", run.case_label),
        ("verdict", run.verdict.value),
        ("score", "" if run.score is None else str(run.score)),
        ("stress_fuel", "" if run.stress_fuel is None else str(run.stress_fuel)),
        ("ceiling", str(run.fuel_limit)),
        ("run_id", "" if run.run_id is None else str(run.run_id)),
        ("module_sha256", run.module_sha256 or ""),
        ("wasmtime_version", run.wasmtime_version),
    ]
    if run.standing is not None:
        items.append(("standing", run.standing.describe()))
    if run.note:
        items.append(("note", run.note))
    for r in run.results:
        items.append((f"{r.name}.fuel", "" if r.fuel is None else str(r.fuel)))
        items.append((f"{r.name}.ceiling", str(r.ceiling)))
    return items


def _suite_lines(run: GradedRun) -> list[str]:
    score = "no score" if run.score is None else f"score {run.score:,} fuel"
    lines = [f"{run.title} on {run.case_label}: {run.verdict.look.words} · {score}"]
    if run.standing is not None:
        lines.append(f"field: {run.standing.describe()}")
    if run.run_id is not None:
        lines.append(f"run {run.run_id}")
    if run.note:
        lines.append(run.note)
    return lines


def _kind(outcome: Outcome) -> str:
    """How JUnit counts an outcome: passed, failure, skipped or error."""
    if outcome is Outcome.PASS:
        return "passed"
    if outcome is Outcome.SKIPPED:
        return "skipped"
    if outcome in (Outcome.INTERNAL_ERROR, Outcome.UNKNOWN):
        return "error"
    return "failure"


def _testcase(run: GradedRun, r: CaseResult) -> ET.Element:
    case = ET.Element(
        "testcase",
        name=clean(testcase_name(r)),
        classname=clean(f"{run.case_name}.{r.kind}"),
        time=f"{r.wall_time:.6f}",
    )
    kind = _kind(r.outcome)
    if kind != "passed":
        element = ET.SubElement(case, kind, type=r.outcome.value, message=clean(reason(r)))
        element.text = clean("\n".join(_failure_lines(r)))
    out = ET.SubElement(case, "system-out")
    out.text = clean("\n".join(_case_lines(r)))
    return case


def reason(r: CaseResult) -> str:
    """The located reason in one line: the grader's detail (the first mismatching snapshot,
    the trap and the function it hit), or the overshoot of a case over the ceiling."""
    first = r.detail.splitlines()[0] if r.detail else ""
    if r.outcome is Outcome.OVER_CEILING and r.overshoot is not None:
        over = f"{r.fuel:,} fuel, {r.overshoot:,} over the ceiling of {r.ceiling:,}"
        return f"{first}: {over}" if first else over
    return first or r.outcome.label


def _failure_lines(r: CaseResult) -> list[str]:
    lines = [reason(r)]
    lines += r.detail.splitlines()[1:]
    if r.trap_code:
        lines.append(f"trap: {r.trap_code}")
    if r.frames:
        lines.append("wasm stack (innermost first):")
        lines += [f"  {frame}" for frame in r.frames]
    m = r.mismatch
    if m is not None:
        lines.append(f"first mismatch: {m.describe()}")
    return lines


def _case_lines(r: CaseResult) -> list[str]:
    fuel = "no fuel figure" if r.fuel is None else f"fuel {r.fuel:,}"
    share = (
        "" if r.is_smoke or r.percent_of_ceiling is None else f" ({r.percent_of_ceiling:.1f}% of the ceiling)"
    )
    lines = [f"behaviour: {r.behaviour}"] if r.behaviour else []
    lines += [
        f"{r.kind} case · size {r.size:,} · outcome {r.outcome.look.words}",
        f"{fuel} · ceiling {r.ceiling:,}{share} · budget {r.budget:,}",
    ]
    if r.is_smoke:
        lines.append("smoke test: graded on correctness alone, its fuel is not scored")
    return lines
