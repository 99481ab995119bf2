"""Tools: did the harness use its declared tools correctly? (published, weight 0)

Tools = mean of the parts that could be evaluated:
  well_formed = well-formed calls / (calls + malformed requests)
  arguments   = calls whose arguments validate / calls checked against a schema
  adaptation  = rejections (403, 404) not repeated identically / rejections
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from jsonschema.exceptions import best_match

from lattice_desktop.harness.box import Box
from lattice_desktop.harness.focus import changed_between
from lattice_desktop.harness.metric import (
    PARTIAL,
    RECORDED,
    Metric,
    mean_of_parts,
    missing,
    num,
    part,
)
from lattice_desktop.harness.trace import MalformedRequest, ToolCall, Trace

REJECTED = (403, 404)
"""Statuses after which an identical repeat is unlikely to succeed. 408, 429 and 5xx
are temporary failures: retrying them is expected and is not a rejection."""


@dataclass(frozen=True)
class ToolFinding:
    line: int
    tool: str | None
    kind: str
    """unknown_tool, arguments_not_object, malformed_request, schema_violation or
    repeat_after_rejection."""
    message: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolFinding:
        return cls(**data)


def _well_formed(box: Box, calls: list[ToolCall], malformed: list[MalformedRequest],
                 findings: list[ToolFinding]) -> list[ToolCall]:
    good = []
    for call in calls:
        if box.tool(call.tool) is None:
            findings.append(ToolFinding(call.line, call.tool, "unknown_tool",
                                        f"tool {call.tool!r} is not declared by the box"))
        elif not isinstance(call.arguments, dict):
            findings.append(ToolFinding(call.line, call.tool, "arguments_not_object",
                                        f"arguments must be an object, not "
                                        f"{type(call.arguments).__name__}"))
        else:
            good.append(call)
    for request in malformed:
        findings.append(ToolFinding(request.line, request.tool, "malformed_request",
                                    request.reason))
    return good


def _arguments(box: Box, good: list[ToolCall], findings: list[ToolFinding],
               notes: list[str]) -> tuple[int, int, dict[str, int]]:
    """(checked, valid, excluded calls per reason)."""
    checked = valid = 0
    excluded = {"schema too large to record": 0, "schema validates nothing": 0}
    trivial, unrecorded = set(), set()
    tools = {t.name: t for t in box.tools}
    for call in good:
        tool = tools[call.tool]  # `good` holds calls of the box's tools only
        if tool.validator is None:
            excluded["schema too large to record"] += 1
            unrecorded.add(tool.name)
            continue
        if tool.validates_nothing:
            excluded["schema validates nothing"] += 1
            trivial.add(tool.name)
            continue
        checked += 1
        error = best_match(tool.validator.iter_errors(call.arguments))
        if error is None:
            valid += 1
        else:
            where = "/".join(str(p) for p in error.absolute_path) or "(arguments)"
            findings.append(ToolFinding(call.line, call.tool, "schema_violation",
                                        f"{where}: {error.message}"))
    if trivial:
        notes.append(f"schema {{}} or {{\"type\": \"object\"}} validates nothing: calls to "
                     f"{', '.join(sorted(trivial))} not checked")
    if unrecorded:
        notes.append(f"schema too large to record: calls to {', '.join(sorted(unrecorded))} "
                     f"excluded")
    return checked, valid, excluded


def _adaptation(box: Box, calls: list[ToolCall],
                findings: list[ToolFinding]) -> tuple[int, int]:
    """(rejections, rejections followed by an identical repeat with nothing changed)."""
    rejections = repeated = 0
    for i, call in enumerate(calls):
        if call.status not in REJECTED:
            continue
        rejections += 1
        later = next((j for j in range(i + 1, len(calls)) if calls[j].key == call.key), None)
        if later is not None and not changed_between(box, calls, i, later):
            repeated += 1
            findings.append(ToolFinding(calls[later].line, call.tool, "repeat_after_rejection",
                                        f"identical call repeated after {call.status} on "
                                        f"line {call.line}"))
    return rejections, repeated


def tools_metric(box: Box, trace: Trace) -> tuple[Metric, list[ToolFinding]]:
    calls = trace.of(ToolCall)
    malformed = trace.of(MalformedRequest)
    if not calls and not malformed:
        return missing("Tools", "the run made no tool calls"), []
    findings: list[ToolFinding] = []
    notes: list[str] = []
    good = _well_formed(box, calls, malformed, findings)
    attempts = len(calls) + len(malformed)
    checked, valid, excluded = _arguments(box, good, findings, notes)
    rejections, repeated = _adaptation(box, calls, findings)

    well_formed = part(len(good) / attempts)
    steps = [f"well_formed = {len(good)} / {attempts} = {num(well_formed)}"]
    arguments = adaptation = None
    if checked:
        arguments = part(valid / checked)
        steps.append(f"arguments = {valid} / {checked} = {num(arguments)}")
    if rejections:
        adaptation = part((rejections - repeated) / rejections)
        steps.append(f"adaptation = ({rejections} - {repeated}) / {rejections} "
                     f"= {num(adaptation)}")
    value, mean = mean_of_parts("Tools", {"well_formed": well_formed,
                                          "arguments": arguments, "adaptation": adaptation})
    inputs = {"calls": len(calls), "malformed_requests": len(malformed),
              "well_formed": len(good), "arguments_checked": checked,
              "arguments_valid": valid, "excluded": excluded, "rejections": rejections,
              "repeated_after_rejection": repeated}
    evidence = PARTIAL if excluded["schema too large to record"] else RECORDED
    findings.sort(key=lambda f: f.line)
    return Metric(value, evidence, "; ".join([*steps, mean]), inputs, tuple(notes)), findings
