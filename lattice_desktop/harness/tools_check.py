"""Tools: did the harness use its declared tools correctly? (published, weight 0)

Tools = mean of the parts that could be evaluated:
  well_formed = well-formed calls / (calls + malformed requests)
  arguments   = calls whose arguments validate / calls checked against a schema
  adaptation  = rejections (403, 404) not repeated identically / rejections
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

from jsonschema.exceptions import best_match

from lattice_desktop.harness.box import Box
from lattice_desktop.harness.history import CallIndex
from lattice_desktop.harness.metric import (
    PARTIAL,
    RECORDED,
    Metric,
    mean_of_parts,
    missing,
    num,
)
from lattice_desktop.harness.trace import MalformedRequest, ToolCall

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


def _well_formed(
    box: Box, calls: list[ToolCall], malformed: list[MalformedRequest], findings: list[ToolFinding]
) -> list[ToolCall]:
    good = []
    for call in calls:
        if box.tool(call.tool) is None:
            findings.append(
                ToolFinding(
                    call.line, call.tool, "unknown_tool", f"tool {call.tool!r} is not declared by the box"
                )
            )
        elif not isinstance(call.arguments, dict):
            findings.append(
                ToolFinding(
                    call.line,
                    call.tool,
                    "arguments_not_object",
                    f"arguments must be an object, not {type(call.arguments).__name__}",
                )
            )
        else:
            good.append(call)
    findings.extend(ToolFinding(r.line, r.tool, "malformed_request", r.reason) for r in malformed)
    return good


def _arguments(
    box: Box, good: list[ToolCall], findings: list[ToolFinding], notes: list[str]
) -> tuple[int, int, int]:
    """(checked, valid, calls not checked because their schema validates nothing).

    Validation depends only on the tool and the arguments, so identical calls (a long
    run repeats many) are validated once.
    """
    checked = valid = 0
    trivial: set[str] = set()
    verdicts: dict[tuple[str, str], str | None] = {}
    for call in good:
        tool = box.tool(call.tool)
        assert tool is not None and tool.validator is not None  # declared, schema recorded
        if tool.validates_nothing:
            trivial.add(tool.name)
            continue
        checked += 1
        key = call.key
        if key not in verdicts:
            # is_valid is the quick answer; the best error is looked for only when there is one.
            valid_call = tool.validator.is_valid(call.arguments)
            error = None if valid_call else best_match(tool.validator.iter_errors(call.arguments))
            where = "" if error is None else "/".join(str(p) for p in error.absolute_path)
            verdicts[key] = None if error is None else f"{where or '(arguments)'}: {error.message}"
        problem = verdicts[key]
        if problem is None:
            valid += 1
        else:
            findings.append(ToolFinding(call.line, call.tool, "schema_violation", problem))
    if trivial:
        notes.append(
            f'schema {{}} or {{"type": "object"}} validates nothing: calls to '
            f"{', '.join(sorted(trivial))} not checked"
        )
    return checked, valid, len(good) - checked


def _adaptation(index: CallIndex, scored: list[bool], findings: list[ToolFinding]) -> tuple[int, int]:
    """(rejections, rejections followed by an identical repeat with nothing changed)."""
    rejections = repeated = 0
    calls = index.calls
    for i, call in enumerate(calls):
        if call.status not in REJECTED or not scored[i]:
            continue
        rejections += 1
        later = index.next_same[i]
        if later is not None and not index.changed_between(i, later):
            repeated += 1
            findings.append(
                ToolFinding(
                    calls[later].line,
                    call.tool,
                    "repeat_after_rejection",
                    f"identical call repeated after {call.status} on line {call.line}",
                )
            )
    return rejections, repeated


def tools_metric(
    box: Box, index: CallIndex, malformed: list[MalformedRequest]
) -> tuple[Metric, list[ToolFinding]]:
    """Tools over the calls and malformed requests, leaving out every call (and malformed
    request) to a tool whose schema was too large to record, as the rules say."""
    unrecorded = {t.name for t in box.tools if not t.recorded}
    scored = [c.tool not in unrecorded for c in index.calls]
    calls = [c for c, keep in zip(index.calls, scored, strict=True) if keep]
    requests = [r for r in malformed if r.tool not in unrecorded]
    left_out = sorted(
        {c.tool for c in index.calls if c.tool in unrecorded}
        | {r.tool for r in malformed if r.tool in unrecorded}
    )
    excluded = {
        "schema too large to record": (len(index.calls) - len(calls) + len(malformed) - len(requests)),
        "schema validates nothing": 0,
    }
    notes: list[str] = []
    if left_out:
        notes.append(
            f"schema too large to record: {excluded['schema too large to record']} "
            f"call(s) to {', '.join(left_out)} left out of Tools"
        )
    if not calls and not requests:
        reason = (
            "the run made no tool calls"
            if not index.calls and not malformed
            else "every call was to a tool whose schema was too large to record"
        )
        return missing("Tools", reason, {"excluded": excluded}), []
    findings: list[ToolFinding] = []
    good = _well_formed(box, calls, requests, findings)
    attempts = len(calls) + len(requests)
    checked, valid, excluded["schema validates nothing"] = _arguments(box, good, findings, notes)
    rejections, repeated = _adaptation(index, scored, findings)

    well_formed = Fraction(len(good), attempts)
    steps = [f"well_formed = {len(good)} / {attempts} = {num(well_formed)}"]
    arguments = adaptation = None
    if checked:
        arguments = Fraction(valid, checked)
        steps.append(f"arguments = {valid} / {checked} = {num(arguments)}")
    if rejections:
        adaptation = Fraction(rejections - repeated, rejections)
        steps.append(f"adaptation = ({rejections} - {repeated}) / {rejections} = {num(adaptation)}")
    value, mean = mean_of_parts(
        "Tools", {"well_formed": well_formed, "arguments": arguments, "adaptation": adaptation}
    )
    inputs = {
        "calls": len(calls),
        "malformed_requests": len(requests),
        "well_formed": len(good),
        "arguments_checked": checked,
        "arguments_valid": valid,
        "excluded": excluded,
        "rejections": rejections,
        "repeated_after_rejection": repeated,
    }
    evidence = PARTIAL if excluded["schema too large to record"] else RECORDED
    findings.sort(key=lambda f: f.line)
    return Metric(value, evidence, "; ".join([*steps, mean]), inputs, tuple(notes)), findings
