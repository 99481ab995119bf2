"""A Transcript row is evidence for a metric exactly when that metric's computation used
its event: never a 429 or 408 call as a Tools "rejection" (Tools counts 403 and 404 only),
never `run_start` as Time's start when Time is not measured. Checked by hand on the
issue's traces, then for every metric of generated runs against the rules of
docs/harness.md written out here."""

from __future__ import annotations

from fractions import Fraction

from generated_runs import boxes, events, trace_text
from harness_builders import BOX_PATH, TRACES, call, capture, jsonl, shell
from hypothesis import given, settings

from lattice_desktop.harness import Box, HarnessResult, load_box, parse_trace, score
from lattice_desktop.harness.box import EXECUTION_METRICS
from lattice_desktop.harness.events import BoundaryProbe, Capture, GamingCheck, ModelUsage, Paused, ToolCall
from lattice_desktop.harness.focus import MAX_PERIOD, exemption
from lattice_desktop.harness.history import CallIndex
from lattice_desktop.harness.metric import exact
from lattice_desktop.harness.trace import Trace
from lattice_desktop.harness.transcript import EVIDENCE, evidence_mask, not_measured, transcript_rows


def rows_of(box: Box, text: str) -> tuple[HarnessResult, list[tuple]]:
    trace = parse_trace(text, source="t.jsonl")
    result = score(box, trace)
    return result, list(transcript_rows(text, trace, result, box))


def marked(rows: list[tuple], result: HarnessResult, metric: str) -> set[int]:
    mask = evidence_mask(result, metric)
    return {row[0] for row in rows if row[6] & mask}


def test_the_issue_trace_a_429_and_a_408_are_not_tools_rejections():
    box = load_box(BOX_PATH)
    text = jsonl([shell(1, "id", 429), shell(2, "id", 408), shell(3, "id", 200), capture(4, "user")])
    result, rows = rows_of(box, text)
    tools = result.metrics["tools"]
    assert tools.inputs["rejections"] == 0 and tools.shown == "1.00"
    # Once lines 2 and 3 were Tools evidence, "rejected with status 429/408", while the same
    # rows said "repetition exempted: retrying a temporary failure".
    assert marked(rows, result, "tools") == set()
    assert not any("rejected" in row[7] for row in rows)
    # They are Focus's evidence: the repeats it exempted as retries.
    assert marked(rows, result, "focus") == {3, 4}
    assert all("retrying a temporary failure" in row[7] for row in rows if row[0] in (3, 4))


def test_a_run_that_captured_nothing_has_no_time_evidence_and_says_why():
    box = load_box(BOX_PATH)
    result, rows = rows_of(box, (TRACES / "nothing.jsonl").read_text())
    assert result.metrics["time"].shown == "-"
    # Once clicking Time highlighted run_start: "running time starts here".
    assert marked(rows, result, "time") == set() and marked(rows, result, "cost") == set()
    assert not any("running time starts here" in row[7] for row in rows)
    assert not_measured(result, "time") == "Time is not measured: nothing was captured"
    assert not_measured(result, "cost") == "Cost is not measured: nothing was captured"
    assert not_measured(result, "focus") is None


def test_a_403_is_a_rejection_and_an_unmeasured_tools_marks_nothing():
    box = load_box(BOX_PATH)
    result, rows = rows_of(box, jsonl([shell(1, "id", 403), shell(2, "ls", 400), capture(3, "user")]))
    assert marked(rows, result, "tools") == {2}
    result, rows = rows_of(box, jsonl([capture(3, "user")]))
    assert result.metrics["tools"].shown == "-" and marked(rows, result, "tools") == set()
    assert not_measured(result, "tools") == "Tools is not measured: the run made no tool calls"


# The rules, written out: which events each metric's computation uses.


def first_captures(trace: Trace) -> list[Capture]:
    seen: dict[str, Capture] = {}
    for c in trace.of(Capture):
        seen.setdefault(c.objective, c)
    return list(seen.values())


def used_by(box: Box, trace: Trace, result: HarnessResult, metric: str) -> set[int]:
    """The trace lines the computation of `metric` used (docs/harness.md, per metric)."""
    metrics = {**result.metrics, "execution": result.execution}
    if not metrics[metric].measured:
        return set()
    firsts = first_captures(trace)
    last = firsts[-1] if firsts else None
    if metric == "score":
        return {c.line for c in firsts}
    if metric == "cost":
        assert last is not None
        return {u.line for u in trace.of(ModelUsage) if u.line < last.line} | {last.line}
    if metric == "time":
        assert last is not None
        start, end = exact(trace.start_t), exact(last.t)
        paused = {p.line for p in trace.of(Paused) if min(exact(p.until), end) > max(exact(p.t), start)}
        return {trace.start_line, last.line} | paused
    if metric == "compliance":
        return {e.line for e in trace.events if isinstance(e, BoundaryProbe | GamingCheck)}
    if metric == "tools":
        recorded = {t.name for t in box.tools if t.recorded}
        rejected = {c.line for c in trace.of(ToolCall) if c.status in (403, 404) and c.tool in recorded}
        return rejected | {f.line for f in result.tool_findings}
    if metric == "focus":
        calls = list(trace.of(ToolCall))
        index = CallIndex(box, calls)
        exempt = {
            calls[j].line
            for j in range(len(calls))
            for p in range(1, min(MAX_PERIOD, j) + 1)
            if index.ids[j] == index.ids[j - p] and exemption(index, j - p, j)
        }
        worst = result.loops[0] if result.loops else None
        looped = {c.line for c in calls if worst and worst.first_line <= c.line <= worst.last_line}
        return exempt | looped
    weights = result.execution.inputs["weights"]
    parts = [m for m in EXECUTION_METRICS if metrics[m].measured and Fraction(str(weights[m])) != 0]
    return set().union(*(used_by(box, trace, result, m) for m in parts))


def check_evidence(box: Box, text: str) -> None:
    trace = parse_trace(text, source="t.jsonl")
    result = score(box, trace)
    rows = list(transcript_rows(text, trace, result, box))
    for metric in EVIDENCE:
        assert marked(rows, result, metric) == used_by(box, trace, result, metric), metric
        measured = {**result.metrics, "execution": result.execution}[metric].measured
        assert (not_measured(result, metric) is None) == measured, metric


def test_every_bundled_run_marks_exactly_what_each_metric_used():
    box = load_box(BOX_PATH)
    for path in sorted(TRACES.glob("*.jsonl")):
        check_evidence(box, path.read_text())


@settings(max_examples=150, deadline=None)
@given(boxes(), events())
def test_every_generated_run_marks_exactly_what_each_metric_used(box, evs):
    check_evidence(box, trace_text(evs))


def test_a_call_to_a_tool_left_out_of_tools_is_not_its_evidence():
    text = BOX_PATH.read_text().replace('name = "notes"\n', 'name = "notes"\nschema_too_large = true\n')
    text = text.replace('schema = "{}"', "")
    from lattice_desktop.harness import parse_box

    box = parse_box(text, source="big.box.toml")
    result, rows = rows_of(box, jsonl([call(1, "notes", {"t": 1}, 404), capture(2, "user")]))
    assert result.metrics["tools"].shown == "-"
    assert marked(rows, result, "tools") == set()
