"""A run as text: the one rendering of a scored run that `harness score` prints and the
app's Copy report copies — its metrics table, loops, findings, notes, status and the
inputs shown for recomputation."""

from __future__ import annotations

from lattice_desktop.formatting import printable
from lattice_desktop.harness.provenance import provenance_lines
from lattice_desktop.harness.result import METRIC_ORDER, HarnessResult


def one_line(value: object) -> str:
    """Someone else's text (a model name, a tool message) on one line: each control or
    reordering character written as a visible `\\uXXXX`, so it cannot forge a table row."""
    return printable(value)


def status_line(result: HarnessResult) -> str | None:
    """How the run ended and whether it is ranked, or None for a completed ranked run."""
    if result.unranked is None and result.status == "completed":
        return None
    ranked = "ranked" if result.unranked is None else f"not ranked: {result.unranked}"
    return f"status {result.status}; {ranked}"


def format_result(result: HarnessResult) -> str:
    """The metrics table: value ("-" when missing), evidence and the filled-in formula."""
    lines = [
        f"run {one_line(result.run_id)}   harness {one_line(result.harness)}   "
        f"model {one_line(result.model)}   box {one_line(result.box)}   stage {one_line(result.stage)}",
    ]
    status = status_line(result)
    if status:
        lines.append(one_line(status))
    lines.append("")
    rows = [(name.capitalize(), result.metrics[name]) for name in METRIC_ORDER]
    rows.append(("Execution", result.execution))
    lines.append(f"{'metric':<11} {'value':>5}  {'evidence':<17}  formula")
    for name, metric in rows:
        lines.append(f"{name:<11} {metric.shown:>5}  {metric.evidence:<17}  {one_line(metric.formula)}")
    notes = [f"{name}: {one_line(note)}" for name, metric in rows for note in metric.notes if metric.measured]
    if result.loops:
        lines += ["", "loops (only the worst counts):"]
        lines += [f"  {one_line(loop.describe())}" for loop in result.loops]
    if result.tool_findings:
        lines += ["", "tool findings:"]
        lines += [f"  line {f.line}: {one_line(f.kind)}: {one_line(f.message)}" for f in result.tool_findings]
    if notes:
        lines += ["", "notes:"] + [f"  {note}" for note in notes]
    provenance = provenance_lines(result)
    if provenance:
        lines += ["", "inputs shown for recomputation:"]
        lines += [f"  {one_line(line)}" for line in provenance]
    return "\n".join(lines)
