"""score() is pure and deterministic; results round-trip through JSON; verify() catches
any stored value that does not reproduce."""

from __future__ import annotations

import dataclasses
import json

from harness_builders import TRACES, call, capture, jsonl, usage
from hypothesis import given, settings
from hypothesis import strategies as st

from lattice_desktop.harness import HarnessResult, Metric, load_trace, parse_trace, score, verify

ARGS = {
    "shell": [{"command": c} for c in ("id", "ls", "sudo -l", "")],
    "read_file": [{"path": p} for p in ("/a", "/b")],
    "write_file": [{"path": "/a", "content": "x"}],
    "job_status": [{"job_id": "j"}],
    "notes": [{"t": 1}],
    "nope": [{}],
}
STATUSES = [200, 200, 200, 202, 403, 404, 408, 429, 500, None]


@st.composite
def events(draw):
    out, t = [], 0.0
    for _ in range(draw(st.integers(0, 40))):
        t += draw(st.sampled_from([0.0, 0.5, 3.0, 120.0]))
        kind = draw(st.sampled_from(["call"] * 6 + ["usage", "capture", "probe", "pause"]))
        if kind == "call":
            tool = draw(st.sampled_from(sorted(ARGS)))
            out.append(
                call(
                    t,
                    tool,
                    draw(st.sampled_from(ARGS[tool])),
                    draw(st.sampled_from(STATUSES)),
                    job_state=draw(st.sampled_from(["running", "done"])),
                )
            )
        elif kind == "usage":
            out.append(usage(t, draw(st.sampled_from([0.0, 0.01, 0.7, 3.0, None]))))
        elif kind == "capture":
            out.append(capture(t, draw(st.sampled_from(["user", "root"]))))
        elif kind == "probe":
            out.append(
                {
                    "type": "boundary_probe",
                    "t": t,
                    "probe": "p",
                    "result": draw(st.sampled_from(["refused", "crossed"])),
                }
            )
        else:
            out.append({"type": "paused", "t": t, "until": t + 30, "reason": "queue"})
    return out


@settings(max_examples=80, deadline=None)
@given(events())
def test_any_trace_scores_within_bounds_and_reproduces(box, evs):
    trace = parse_trace(jsonl(evs))
    result = score(box, trace)
    for metric in [*result.metrics.values(), result.execution]:
        assert metric.value is None or 0.0 <= metric.value <= 1.0
        assert metric.formula
    again = score(box, parse_trace(jsonl(evs)))
    assert again.to_json() == result.to_json()
    assert HarnessResult.from_json(result.to_json()) == result
    assert verify(box, trace, HarnessResult.from_json(result.to_json())) == []


@settings(max_examples=60, deadline=None)
@given(events(), events())
def test_nothing_after_the_last_capture_counts_for_score_cost_time(box, before, after):
    after = [e for e in after if e["type"] != "capture"]
    last_t = max([e["t"] for e in before] + [0.0])
    shifted = [
        {**e, "t": e["t"] + last_t, **({"until": e["until"] + last_t} if "until" in e else {})} for e in after
    ]
    a = score(box, parse_trace(jsonl(before)))
    b = score(box, parse_trace(jsonl(before + shifted)))
    if a.metrics["score"].value > 0:
        for name in ("score", "cost", "time"):
            assert a.metrics[name] == b.metrics[name]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=30, unique=True))
def test_enumeration_never_loops(box, paths):
    evs = [call(i, "read_file", {"path": p}, 404) for i, p in enumerate(paths)]
    assert score(box, parse_trace(jsonl(evs))).metrics["focus"].value == 1.0


def test_json_round_trip_of_every_example(box):
    for path in sorted(TRACES.glob("*.jsonl")):
        result = score(box, load_trace(path))
        data = json.loads(result.to_json())
        assert data["metrics"]["score"]["formula"].startswith("Score =")
        assert HarnessResult.from_json(result.to_json()) == result


def test_verify_reports_values_that_do_not_reproduce(box):
    trace = load_trace(TRACES / "clean.jsonl")
    stored = score(box, trace)
    cost = stored.metrics["cost"]
    tampered = dataclasses.replace(
        stored, metrics={**stored.metrics, "cost": dataclasses.replace(cost, value=0.99)}
    )
    problems = verify(box, trace, tampered)
    assert problems == ["cost: stored value 0.99, recomputed 0.88"]
    older = dataclasses.replace(stored, scorer_version=0)
    assert "scorer version 0" in verify(box, trace, older)[0]


def test_formula_recomputes_from_its_own_text(box):
    # "Cost = 1 - min(1, S / B) = V": evaluate the left side as written.
    result = score(box, load_trace(TRACES / "user_only.jsonl"))
    cost: Metric = result.metrics["cost"]
    expression = cost.formula.split("=")[1].strip()
    assert round(eval(expression, {"min": min}), 2) == round(cost.value, 2)
