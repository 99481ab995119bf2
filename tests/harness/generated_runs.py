"""Generated harness runs for property tests: boxes with awkward weights, budgets and
deadlines (so values have no short decimal), and traces of every kind of event."""

from __future__ import annotations

import re

from harness_builders import BOX_PATH, call, capture, jsonl, usage
from hypothesis import strategies as st

from lattice_desktop.harness import Box, parse_box

BOX_TEXT = BOX_PATH.read_text(encoding="utf-8")

ARGS = {
    "shell": [{"command": c} for c in ("id", "ls", "sudo -l", "")],
    "read_file": [{"path": p} for p in ("/a", "/b", 7)],
    "write_file": [{"path": "/a", "content": "x"}],
    "job_status": [{"job_id": "j"}],
    "notes": [{"t": 1}],
    "nope": [{}],
    "http_request": [{"method": "GET", "url": "/"}, "not an object"],
}
STATUSES = [200, 200, 200, 202, 400, 403, 404, 408, 409, 429, 500, 503, None]


def box_text(*, user: str, root: str, budget: str, deadline: str, weights: tuple[str, ...]) -> str:
    """The bundled box with other numbers put in."""
    text = BOX_TEXT
    text = re.sub(r'(id = "user"\nweight = )\S+', rf"\g<1>{user}", text)
    text = re.sub(r'(id = "root"\nweight = )\S+', rf"\g<1>{root}", text)
    text = re.sub(r"model_budget_usd = \S+", f"model_budget_usd = {budget}", text)
    text = re.sub(r"deadline_seconds = \S+", f"deadline_seconds = {deadline}", text)
    for name, weight in zip(("cost", "focus", "time", "compliance"), weights, strict=True):
        text = re.sub(rf"(?m)^{name} = \S+", f"{name} = {weight}", text)
    return text


@st.composite
def boxes(draw) -> Box:
    weights = draw(
        st.tuples(*[st.sampled_from(["0.25", "0.3", "0.2", "0", "0.1", "1", "0.35"]) for _ in range(4)])
    )
    if all(w == "0" for w in weights):
        weights = ("0.25",) * 4
    text = box_text(
        user=draw(st.sampled_from(["2", "1", "7", "0.3", "10000000"])),
        root=draw(st.sampled_from(["3", "1", "11", "0.7", "1"])),
        budget=draw(st.sampled_from(["10.0", "3", "7.7", "0.9"])),
        deadline=draw(st.sampled_from(["3600", "7", "600", "97.3"])),
        weights=weights,
    )
    return parse_box(text, source="generated.box.toml")


@st.composite
def events(draw) -> list[dict]:
    out, t = [], 0.0
    for _ in range(draw(st.integers(0, 40))):
        t += draw(st.sampled_from([0.0, 0.5, 3.0, 120.0, 0.4268573, 1.1]))
        kind = draw(st.sampled_from(["call"] * 6 + ["usage", "capture", "probe", "pause", "check", "bad"]))
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
            out.append(usage(t, draw(st.sampled_from([0.0, 0.01, 0.7, 3.0, 0.6594527639999797, None]))))
        elif kind == "capture":
            out.append(capture(t, draw(st.sampled_from(["user", "root"]))))
        elif kind == "probe":
            result = draw(st.sampled_from(["refused", "crossed"]))
            out.append(
                {"type": "boundary_probe", "t": t, "probe": draw(st.sampled_from("pq")), "result": result}
            )
        elif kind == "check":
            result = draw(st.sampled_from(["pass", "violation"]))
            out.append(
                {"type": "gaming_check", "t": t, "check": draw(st.sampled_from("gh")), "result": result}
            )
        elif kind == "bad":
            out.append({"type": "malformed_request", "t": t, "tool": "shell", "reason": "not JSON"})
        else:
            out.append(
                {
                    "type": "paused",
                    "t": t,
                    "until": t + draw(st.sampled_from([0.0, 30.0, 0.7])),
                    "reason": "queue",
                }
            )
    return out


def trace_text(evs: list[dict]) -> str:
    return jsonl(evs, box="webshop")
