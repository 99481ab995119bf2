"""The linear-time call analysis gives exactly what the first, quadratic one gave.

The reference below is the original algorithm, kept here verbatim in spirit: for each
pair of calls it scans the calls in between. Random traces (enumeration, rejections,
retries, polling, writes and rereads of a few paths) are scored both ways.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from harness_builders import BOX_PATH, call, make

from lattice_desktop.harness import parse_box, score
from lattice_desktop.harness.focus import MAX_PERIOD, MIN_LOOP, loop_penalty
from lattice_desktop.harness.trace import ToolCall


def ref_target(box, c):
    tool = box.tool(c.tool)
    if tool is None or tool.target is None or not isinstance(c.arguments, dict):
        return None
    return c.arguments.get(tool.target)


def ref_changed_between(box, calls, before, after):
    wanted = ref_target(box, calls[after])
    for c in calls[before + 1 : after]:
        tool = box.tool(c.tool)
        if tool is not None and tool.modifies:
            touched = ref_target(box, c)
            if wanted is None or touched is None or touched == wanted:
                return True
    return False


def ref_exemption(box, calls, before, after):
    previous = calls[before]
    if previous.job_running:
        return "polling a running job"
    if previous.status is None or previous.status in (408, 429) or 500 <= previous.status <= 599:
        return "retrying a temporary failure"
    if ref_changed_between(box, calls, before, after):
        return "repeating after a modification"
    return None


def ref_loops(box, calls):
    keys = [c.key for c in calls]
    exempted_at, twice, loops = {}, 0, []
    for p in range(1, MAX_PERIOD + 1):
        match = []
        for j in range(len(calls)):
            same = j >= p and keys[j] == keys[j - p]
            reason = ref_exemption(box, calls, j - p, j) if same else None
            if reason:
                exempted_at.setdefault(j, reason)
            match.append(same and reason is None)
        j = p
        while j < len(calls):
            if not match[j]:
                j += 1
                continue
            start = j
            while j < len(calls) and match[j]:
                j += 1
            block = keys[start - p : start]
            if any(p % d == 0 and block == block[:d] * (p // d) for d in range(1, p)):
                continue
            repetitions = (j - start) // p + 1
            twice += repetitions == 2
            if repetitions >= MIN_LOOP:
                end = start - p + repetitions * p - 1
                loops.append(
                    (
                        tuple(c.tool for c in calls[start - p : start]),
                        repetitions,
                        calls[start - p].line,
                        calls[end].line,
                        loop_penalty(repetitions),
                    )
                )
    loops.sort(key=lambda loop: (-loop[4], loop[2], len(loop[0])))
    exempted = Counter(exempted_at.values())
    if twice:
        exempted["repeated only twice"] = twice
    return loops, dict(sorted(exempted.items()))


def ref_adaptation(box, calls):
    rejections, repeated, lines = 0, 0, []
    for i, c in enumerate(calls):
        tool = box.tool(c.tool)
        if c.status not in (403, 404) or (tool is not None and not tool.recorded):
            continue  # a tool whose schema was too large to record is left out of Tools
        rejections += 1
        later = next((j for j in range(i + 1, len(calls)) if calls[j].key == c.key), None)
        if later is not None and not ref_changed_between(box, calls, i, later):
            repeated += 1
            lines.append(calls[later].line)
    return rejections, repeated, sorted(lines)


PATHS = ["/a", "/b", "/c", 1, 1.0, True, None, {"k": 1}, {"k": 1.0}, [1, 2]]


def random_events(rng: random.Random, n: int) -> list[dict]:
    out = []
    for i in range(n):
        roll = rng.random()
        status = rng.choice([200, 200, 202, 403, 404, 404, 408, 429, 503, None])
        if roll < 0.25:
            out.append(call(i, "read_file", {"path": rng.choice(PATHS)}, status))
        elif roll < 0.35:
            out.append(call(i, "write_file", {"path": rng.choice(PATHS), "content": "x"}, status))
        elif roll < 0.40:
            out.append(call(i, "write_file", {"content": "no target"}, status))
        elif roll < 0.55:
            page = rng.randrange(3) if rng.random() < 0.5 else rng.randrange(10**6)
            out.append(call(i, "http_request", {"method": "GET", "url": f"http://x/{page}"}, status))
        elif roll < 0.65:
            out.append(
                call(i, "job_status", {"job_id": "j"}, status, job_state=rng.choice(["running", "done"]))
            )
        elif roll < 0.70:
            out.append(call(i, "browser", {"go": rng.choice(PATHS)}, status))
        else:
            out.append(call(i, "shell", {"command": rng.choice(["id", "ls"])}, status))
    return out


@pytest.mark.parametrize("seed", range(60))
def test_linear_analysis_matches_the_quadratic_reference(box, seed):
    rng = random.Random(seed)
    trace = make(random_events(rng, rng.randrange(1, 160)))
    calls = [e for e in trace.events if isinstance(e, ToolCall)]
    result = score(box, trace)
    loops = [(lp.tools, lp.repetitions, lp.first_line, lp.last_line, lp.penalty) for lp in result.loops]
    want_loops, want_exempted = ref_loops(box, calls)
    assert loops == want_loops
    assert result.metrics["focus"].inputs["exempted"] == want_exempted
    rejections, repeated, lines = ref_adaptation(box, calls)
    tools = result.metrics["tools"].inputs
    assert (tools["rejections"], tools["repeated_after_rejection"]) == (rejections, repeated)
    assert [f.line for f in result.tool_findings if f.kind == "repeat_after_rejection"] == lines


def test_reference_sees_a_repeat_and_a_reread(box):
    # The reference itself is not vacuous: it finds the repeat and honours the write.
    trace = make(
        [
            call(1, "read_file", {"path": "/a"}, 404),
            call(2, "read_file", {"path": "/a"}, 404),
            call(3, "write_file", {"path": "/a", "content": "x"}),
            call(4, "read_file", {"path": "/a"}, 404),
        ]
    )
    calls = [e for e in trace.events if isinstance(e, ToolCall)]
    assert ref_adaptation(box, calls) == (3, 1, [3])
    assert ref_changed_between(box, calls, 1, 3) and not ref_changed_between(box, calls, 0, 1)
    assert parse_box(BOX_PATH.read_text()).tool("write_file").modifies
