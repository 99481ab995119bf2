"""A harness run's transcript: every trace line in order with its own time, a running spend,
and marks tying each metric to its events; Inspect AI messages and tool results kept;
stored compactly so it opens after the original file is gone; searchable."""

from __future__ import annotations

import shutil
from decimal import Decimal

from lattice_desktop.harness.transcript import COST, EXCLUDED, EXEMPT, KINDS, LOOP, REJECTED, SCORE, TIME
from lattice_desktop.resources import RESOURCES
from lattice_desktop.services.harness_import import import_traces
from lattice_desktop.store.database import open_database
from lattice_desktop.store.harness_runs import load_harness_run
from lattice_desktop.store.transcripts import (
    PAGE_ROWS,
    TranscriptIndex,
    TranscriptPage,
    load_pages,
    load_transcript_head,
    search_pages,
)
from lattice_desktop.store.writer import Writer

HARNESS = RESOURCES / "harness"
BOX = HARNESS / "webshop.box.toml"


def _import(tmp_path, box, *traces):
    writer = Writer(open_database(tmp_path / "t.db"))
    outcome = import_traces(writer, box, list(traces))
    writer.close()
    assert not outcome.errors and not outcome.failures
    return outcome.stored


def _events(run_id):
    head = load_transcript_head(run_id)
    pages = (
        load_pages(run_id, range((head.count + PAGE_ROWS - 1) // PAGE_ROWS)) if head.memory is None else {}
    )
    rows = [row for n in sorted(pages) for row in pages[n]] if pages else head.memory.page(0)
    assert len(rows) == head.count
    return head, rows


def _trace_lines(path):
    import json

    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_every_trace_line_is_an_event_in_order_with_its_own_time(tmp_path):
    trace = HARNESS / "traces" / "looping.jsonl"
    (run_id,) = _import(tmp_path, BOX, trace)
    head, rows = _events(run_id)
    recorded = _trace_lines(trace)
    assert [row[0] for row in rows] == list(range(1, len(recorded) + 1))
    assert [row[1] for row in rows] == [float(line["t"]) for line in recorded]
    kinds = [KINDS[row[2]] for row in rows]
    assert kinds.count("tool_call") == sum(line["type"] == "tool_call" for line in recorded)
    assert kinds.count("model_call") == sum(line["type"] == "model_usage" for line in recorded)
    assert bytes(head.kinds) == bytes(row[2] for row in rows)


def test_each_metric_links_to_the_events_behind_it(tmp_path):
    (run_id,) = _import(tmp_path, BOX, HARNESS / "traces" / "looping.jsonl")
    result = load_harness_run(run_id).result
    _head, rows = _events(run_id)
    # Score: the first capture of each objective.
    assert [KINDS[r[2]] for r in rows if r[6] & SCORE] == ["capture"]
    # Cost: the model calls before the last capture, whose running spend is what Cost used.
    last = max(r[0] for r in rows if r[6] & SCORE)
    cost_calls = [r for r in rows if r[6] & COST and KINDS[r[2]] == "model_call"]
    assert cost_calls and all(r[0] < last for r in cost_calls)
    assert Decimal(cost_calls[-1][5]) == Decimal(repr(result.spend_to_last_capture_usd))
    # Focus: the worst loop, each repetition numbered.
    worst = result.loops[0]
    looped = [r for r in rows if r[6] & LOOP]
    assert len(looped) == worst.repetitions * len(worst.tools)
    assert looped[0][0] == worst.first_line and looped[-1][0] == worst.last_line
    assert looped[-1][7].endswith(f"repetition {worst.repetitions}")
    # Time: where it starts and the last capture it ends at.
    assert [r[0] for r in rows if r[6] & TIME] == [1, last]


def test_exempted_repetitions_pauses_and_rejected_calls_are_marked(tmp_path):
    polling, rejected = _import(
        tmp_path, BOX, HARNESS / "traces" / "polling.jsonl", HARNESS / "traces" / "repeat_after_403.jsonl"
    )
    _head, rows = _events(polling)
    reasons = {r[7].split("exempted: ")[1] for r in rows if r[6] & EXEMPT}
    assert reasons == {
        "polling a running job",
        "retrying a temporary failure",
        "repeating after a modification",
    }
    assert not any(r[6] & LOOP for r in rows)  # nothing exempted counts as a loop
    result = load_harness_run(rejected).result
    _head, rows = _events(rejected)
    marked = {r[0] for r in rows if r[6] & REJECTED}
    assert {f.line for f in result.tool_findings} <= marked and marked


def test_an_inspect_run_keeps_its_messages_and_tool_results(tmp_path):
    inspect = HARNESS / "inspect"
    (run_id,) = _import(tmp_path, inspect / "webshop_ctf.box.toml", inspect / "webshop_ctf.eval")
    _head, rows = _events(run_id)
    messages = [r for r in rows if KINDS[r[2]] == "message"]
    assert messages[0][3] == "user: Capture the flags on the web shop." and messages[0][0] == 0
    assert any(r[3].startswith("assistant: The root flag is") for r in messages)
    calls = [r for r in rows if KINDS[r[2]] == "tool_call"]
    assert all("\n\nresult:\n" in r[4] for r in calls)
    assert [r[1] for r in rows] == sorted(r[1] for r in rows)  # in time order
    assert any(r[6] & EXCLUDED for r in rows)  # Inspect's setup, paused before the first call


def test_the_transcript_opens_after_the_trace_is_gone_and_is_searchable(tmp_path):
    copy = tmp_path / "gone.jsonl"
    shutil.copy(HARNESS / "traces" / "polling.jsonl", copy)
    (run_id,) = _import(tmp_path, BOX, copy)
    copy.unlink()
    head, rows = _events(run_id)
    hits = search_pages(run_id, "NMAP")
    assert hits == [i for i, r in enumerate(rows) if "nmap" in (r[3] + r[4]).lower()] and hits
    # A run stored before transcripts were kept: made from its stored trace when read.
    TranscriptPage.delete().execute()
    TranscriptIndex.delete().execute()
    again = load_transcript_head(run_id)
    assert again.memory is not None and again.count == head.count
    assert again.first_page == rows[:PAGE_ROWS]
    assert search_pages(run_id, "nmap", again.memory) == hits
