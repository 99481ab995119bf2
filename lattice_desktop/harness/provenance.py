"""What a run page shows besides the formulas so every metric can be recomputed: where a
converted run came from (an Inspect AI log's sample, the box's mapping that was used,
the scores it had) and how each priced model call's cost was obtained."""

from __future__ import annotations

import json
from decimal import Decimal

from lattice_desktop.harness.inspect_mapping import plain
from lattice_desktop.harness.result import HarnessResult
from lattice_desktop.harness.seconds import seconds


def _value(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def provenance_lines(result: HarnessResult) -> list[str]:
    """Plain-text lines (empty for a run recorded in this project's own trace format)."""
    origin = result.origin
    lines: list[str] = []
    if origin.get("format") == "inspect_ai":
        lines.append(
            f"Inspect AI log {origin.get('log')}: task {origin.get('task')}, "
            f"eval {origin.get('eval_id')}, sample {_value(origin.get('sample_id'))}, "
            f"epoch {origin.get('epoch')}"
        )
        scores = origin.get("scores") or {}
        lines.append(
            "scores in the log: "
            + (", ".join(f"{name} = {_value(v)}" for name, v in scores.items()) or "none")
        )
        mapping = origin.get("mapping") or {}
        for rule in mapping.get("captures", []):
            if "flag" in rule:
                lines.append(
                    f"mapping: {rule['objective']} is captured when a tool result "
                    f"contains {_value(rule['flag'])}"
                )
            else:
                lines.append(
                    f"mapping: {rule['objective']} is captured when scorer "
                    f"{_value(rule.get('scorer'))} gives {_value(rule.get('value'))}"
                )
        for price in mapping.get("prices", []):
            rates = ", ".join(f"{kind} ${plain(rate)}" for kind, rate in price["per_mtok"].items())
            lines.append(f"price per million tokens of {price['model']}: {rates}")
        lines.extend(
            f"mapping: a {rule['tool']} result containing {_value(rule['result'])} means "
            "still running (polling it is exempt from Focus)"
            for rule in mapping.get("running", [])
        )
        if "crashed_status" in mapping:
            lines.append(f"mapping: a tool call that raised has status {mapping['crashed_status']}")
        lines.append(
            f"setup before the first model call: {seconds(origin.get('setup_s', 0))} s (not counted in Time)"
        )
        scorer_calls = origin.get("scorer_calls") or []
        if scorer_calls:
            known = [c["cost_usd"] for c in scorer_calls if c.get("cost_usd") is not None]
            lines.append(
                f"scorer model calls, not the harness's spend or time: {len(scorer_calls)} "
                f"({', '.join(str(c.get('model')) for c in scorer_calls)}; "
                f"${sum((Decimal(str(c)) for c in known), Decimal(0))} known)"
            )
    elif origin:
        lines.append("source: " + _value(origin))
    cost = result.metrics["cost"]
    priced = cost.inputs.get("priced", [])
    if priced:
        lines.append(f"spend to the last capture, per model call ({len(priced)}; lines of the stored trace):")
        lines += [f"  {line}" for line in priced]
    return lines
