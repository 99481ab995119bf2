"""Inspect AI logs read as the rules say (issue 20.2, 20.3, 20.5): only the agent's own
spend and time, attachments resolved, polling and crashed calls declared by the box,
errored and cancelled samples shown and kept out of the ranking."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from harness_builders import RESOURCES

from lattice_desktop.harness import leaderboard, parse_box, parse_trace, score
from lattice_desktop.harness.inspect_log import read_inspect_log
from lattice_desktop.harness.ranking import agent_label, unranked_runs
from lattice_desktop.harness.run_text import format_result

BOX_TEXT = (RESOURCES / "inspect" / "webshop_ctf.box.toml").read_text()
MAKER = Path(__file__).with_name("inspect_logs.py")
GRADED_BOX = BOX_TEXT.replace('scorer = "includes"', 'scorer = "model_graded_qa"')
TOOLS_BOX = BOX_TEXT.replace(
    "\n[inspect]\n",
    """
[[tools]]
name = "fetch"
schema = '{"type": "object", "properties": {"url": {"type": "string", "pattern": "^https://"}}, "required": ["url"]}'

[[tools]]
name = "job_status"
schema = '{"type": "object", "properties": {"job": {"type": "string"}}, "required": ["job"]}'

[[tools]]
name = "explode"
schema = '{"type": "object", "properties": {"target": {"type": "string"}}}'

[inspect]
""",
)
POLLING_BOX = TOOLS_BOX.replace(
    "[[inspect.captures]]",
    '[[inspect.running]]\ntool = "job_status"\nresult = "running"\n\n[[inspect.captures]]',
    1,
)


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("inspect_rules")
    names = ["graded", "graded_tokens", "long_args", "polling", "crashed", "cancelled"]
    done = subprocess.run(
        [sys.executable, str(MAKER), str(base), *names],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return {Path(line).stem: Path(line) for line in done.stdout.split()}


def scored(path: Path, text: str):
    box = parse_box(text, source="box.toml")
    return [score(box, parse_trace(s.text, source=s.source)) for s in read_inspect_log(path, box)]


def lines_of(path: Path, text: str) -> list[dict]:
    (sample,) = read_inspect_log(path, parse_box(text, source="box.toml"))
    return [json.loads(line) for line in sample.text.splitlines()]


def test_a_grader_s_spend_is_not_the_harness_s(logs):
    # Agent: 2 calls x $0.002 (usage.total_cost); grader: $0.5. Both objectives captured
    # (captured = 1) on a $1 budget: Cost = 1 - min(1, (0.004 / 1) / 1) = 0.996.
    (result,) = scored(logs["graded"], GRADED_BOX)
    cost = result.metrics["cost"]
    assert result.metrics["score"].exact == 1
    assert cost.exact == 1 - Fraction(4, 1000) and cost.shown == "1.00"
    assert cost.evidence == "priced"  # Inspect's own price table, not the provider
    assert result.origin["scorer_calls"][0]["cost_usd"] == 0.5
    page = format_result(result)
    assert "scorer model calls, not the harness's spend or time: 1 (mockllm/grader; $0.5 known)" in page


def test_an_unpriced_grader_does_not_make_cost_unknown(logs):
    # Agent: 2 calls x (1000 input x $3 + 50 output x $15) / 1e6 = 2 x $0.00375 = $0.0075;
    # the grader's model has no price in the box, and its calls are not the harness's.
    (result,) = scored(logs["graded_tokens"], GRADED_BOX)
    cost = result.metrics["cost"]
    assert cost.exact == 1 - Fraction(75, 10_000)
    assert cost.evidence == "priced" and result.unranked is None


def test_a_scored_capture_is_dated_by_the_agent_s_last_action(logs):
    lines = lines_of(logs["graded"], GRADED_BOX)
    root = next(e for e in lines if e["type"] == "capture" and e["objective"] == "root")
    usages = [e for e in lines if e["type"] == "model_usage"]
    assert len(usages) == 2  # the grader's call is not in the trace
    assert root["t"] == usages[-1]["t"]  # the end of the agent's answer


def test_attachments_are_resolved_before_validation(logs):
    from inspect_logs import LONG_URL

    (result,) = scored(logs["long_args"], TOOLS_BOX)
    call = next(e for e in lines_of(logs["long_args"], TOOLS_BOX) if e["type"] == "tool_call")
    assert call["arguments"] == {"url": LONG_URL}
    assert result.metrics["tools"].shown == "1.00" and result.tool_findings == ()


def test_the_box_can_say_what_still_running_means(logs):
    (without,) = scored(logs["polling"], TOOLS_BOX)
    assert without.metrics["focus"].value < 1  # 7 identical polls, nothing says running
    (declared,) = scored(logs["polling"], POLLING_BOX)
    assert declared.metrics["focus"].shown == "1.00"
    assert declared.metrics["focus"].inputs["exempted"]["polling a running job"] == 6


def test_a_crashed_tool_call_is_not_status_200_and_the_sample_is_unranked(logs):
    (result,) = scored(logs["crashed"], TOOLS_BOX)
    calls = [e for e in lines_of(logs["crashed"], TOOLS_BOX) if e["type"] == "tool_call"]
    assert [c["status"] for c in calls] == [200, 500]
    assert calls[1]["inspect_error"]["type"] == "failed"
    assert result.status == "error" and "status error" in (result.unranked or "")
    crashed_box = TOOLS_BOX.replace("\n[inspect]\n", "\n[inspect]\ncrashed_status = 503\n", 1)
    calls = [e for e in lines_of(logs["crashed"], crashed_box) if e["type"] == "tool_call"]
    assert calls[1]["status"] == 503


def test_cancelled_samples_are_shown_and_kept_out_unless_the_box_says(logs):
    (result,) = scored(logs["cancelled"], GRADED_BOX)
    assert result.status == "cancelled" and result.unranked is not None
    (placed,) = leaderboard([result])[("qualifier", "webshop-ctf")]  # placed by its Score ...
    assert not placed.ranked  # ... but marked as not ranked
    assert unranked_runs([result])[("qualifier", "webshop-ctf")] == [result]
    assert "status cancelled" in format_result(result)
    (ranked,) = scored(logs["cancelled"], "rank_unfinished = true\n" + GRADED_BOX)
    assert ranked.status == "cancelled" and ranked.unranked is None
    assert [r.ranked for r in leaderboard([ranked])[("qualifier", "webshop-ctf")]] == [True]


def test_one_harness_name_does_not_merge_different_agents(logs):
    (a,) = scored(logs["graded"], GRADED_BOX)
    b = type(a).from_dict({**a.to_dict(), "run_id": "other", "origin": {**a.origin, "agent": "react"}})
    board = leaderboard([a, b])[("qualifier", "webshop-ctf")]
    assert len(board) == 2
    assert {agent_label(r.result) for r in board} == {
        "inspect-basic-agent [use_tools+generate] / mockllm/model",
        "inspect-basic-agent [react] / mockllm/model",
    }


def test_a_run_page_finds_its_own_agent_s_best_run_not_another_agent_s(logs, tmp_path):
    from lattice_desktop.store.database import open_database
    from lattice_desktop.store.harness_runs import ScoredRun, insert_runs
    from lattice_desktop.store.pages import load_harness_page

    (a,) = scored(logs["graded"], GRADED_BOX)
    b = type(a).from_dict({**a.to_dict(), "run_id": "other", "origin": {**a.origin, "agent": "react"}})
    open_database(tmp_path / "runs.db")
    ids = insert_runs([ScoredRun("box.toml", GRADED_BOX, f"{r.run_id}.jsonl", "", r) for r in (a, b)])
    pages = [load_harness_page(i) for i in ids]
    assert [p.best_id for p in pages if p is not None] == ids  # each agent is its own entry
