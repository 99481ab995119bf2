"""Builders for harness tests: paths of the bundled examples and small traces."""

from __future__ import annotations

import json
from pathlib import Path

from lattice_desktop.harness import Trace, parse_trace

RESOURCES = Path(__file__).resolve().parents[2] / "resources" / "harness"
BOX_PATH = RESOURCES / "webshop.box.toml"
TRACES = RESOURCES / "traces"


def jsonl(events: list[dict], *, status: str | None = None, **start: object) -> str:
    """A trace text: run_start (with `start` overrides), the events, run_end (with `status`
    when given: completed, error or cancelled)."""
    head = {
        "type": "run_start",
        "t": 0.0,
        "run_id": "r1",
        "harness": "h",
        "model": "m",
        "box": "webshop",
        **start,
    }
    last_t = max([e.get("t", 0.0) for e in events] + [head["t"]])
    end = {"type": "run_end", "t": last_t, "reason": "done", **({"status": status} if status else {})}
    lines = [head, *events, end]
    return "".join(json.dumps(line) + "\n" for line in lines)


def make(events: list[dict], *, status: str | None = None, **start: object) -> Trace:
    return parse_trace(jsonl(events, status=status, **start), source="test.jsonl")


def call(t: float, tool: str, args: object, status: int | None = 200, **extra: object) -> dict:
    return {"type": "tool_call", "t": t, "tool": tool, "arguments": args, "status": status, **extra}


def usage(t: float, cost: float | None) -> dict:
    return {"type": "model_usage", "t": t, "cost_usd": cost}


def capture(t: float, objective: str) -> dict:
    return {"type": "capture", "t": t, "objective": objective}


def shell(t: float, command: str, status: int | None = 200, **extra: object) -> dict:
    return call(t, "shell", {"command": command}, status, **extra)
