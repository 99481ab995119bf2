"""Inspect AI logs, made by inspect_ai itself (offline, mockllm), scored as harness runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from harness_builders import RESOURCES

from lattice_desktop.errors import UserError
from lattice_desktop.harness import parse_box, parse_trace, score
from lattice_desktop.harness.inspect_log import read_inspect_log
from lattice_desktop.harness.provenance import provenance_lines
from lattice_desktop.services.harness_import import import_traces
from lattice_desktop.store.database import open_database
from lattice_desktop.store.harness_runs import harness_leaderboards, verify_stored
from lattice_desktop.store.writer import Writer

EXAMPLE = RESOURCES / "inspect"
BOX_TEXT = (EXAMPLE / "webshop_ctf.box.toml").read_text()


MAKER = Path(__file__).with_name("inspect_logs.py")


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[str, Path]:
    """Logs written by inspect_ai itself, in a child process (see inspect_logs.py)."""
    base = tmp_path_factory.mktemp("inspect")
    names = ["priced", "reported", "wrong", "retry"]
    done = subprocess.run(
        [sys.executable, str(MAKER), str(base), *names],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    paths = [Path(line) for line in done.stdout.split()]
    return {name: next(p for p in paths if p.stem == name) for name in names}


def box(text: str = BOX_TEXT):
    return parse_box(text, source="webshop_ctf.box.toml")


def scored(path: Path, the_box=None):
    the_box = the_box or box()
    return [score(the_box, parse_trace(s.text, source=s.source)) for s in read_inspect_log(path, the_box)]


def converted(path: Path, the_box=None) -> list[list[dict]]:
    samples = read_inspect_log(path, the_box or box())
    return [[json.loads(line) for line in sample.text.splitlines()] for sample in samples]


def test_a_sample_becomes_one_run_with_calls_statuses_and_captures(logs):
    (lines,) = converted(logs["priced"])
    start = lines[0]
    assert start["source"]["sample_id"] == "ctf-1" and start["source"]["epoch"] == 1
    assert start["harness"] == "inspect-basic-agent" and start["model"] == "mockllm/model"
    calls = [e for e in lines if e["type"] == "tool_call"]
    assert [(c["tool"], c["arguments"], c["status"]) for c in calls] == [
        ("shell", {"command": "id"}, 200),
        ("read_file", {"path": "/root/root.txt"}, 403),  # PermissionError -> permission
        ("read_file", {"path": "/etc/shadow.bak"}, 404),  # FileNotFoundError
        ("shell", {"command": "cat /home/shop/user.txt"}, 200),
        ("shell", {"command": "sudo -l"}, 200),
    ]
    assert calls[1]["inspect_error"]["type"] == "permission"
    captures = [(e["objective"], e["t"]) for e in lines if e["type"] == "capture"]
    # user: when the tool that printed its flag finished; root: when the agent stopped.
    user_call = calls[3]
    assert captures[0] == ("user", user_call["t"] + user_call["duration"])
    assert captures[1][0] == "root"
    assert captures[1][1] == max(e["t"] for e in lines if e["type"] == "model_usage")


def test_setup_before_the_first_model_call_is_not_time(logs):
    (lines,) = converted(logs["priced"])
    pause = next(e for e in lines if e["type"] == "paused")
    first_model = next(e for e in lines if e["type"] == "model_usage")
    assert pause["t"] == 0.0 and pause["reason"] == "preparation"
    assert 0 < pause["until"] <= first_model["t"]
    (result,) = scored(logs["priced"])
    last = max(e["t"] for e in lines if e["type"] == "capture")
    assert result.metrics["time"].inputs["elapsed_s"] == pytest.approx(last - pause["until"])
    assert result.metrics["time"].inputs["paused_s"] == pytest.approx(pause["until"])


def test_tokens_priced_by_the_box_when_the_log_has_no_cost(logs):
    (result,) = scored(logs["priced"])
    cost = result.metrics["cost"]
    # 6 calls x (1200 x $3 + 80 x $15) / 1e6 = 6 x $0.0048 = $0.0288 of a $1 budget.
    assert cost.inputs["spend_usd"] == pytest.approx(0.0288)
    assert cost.value == pytest.approx(1 - 0.0288) and cost.evidence == "priced"
    assert len(cost.inputs["priced"]) == 6
    assert "1200 input x $3/Mtok + 80 output x $15/Mtok = $0.0048" in cost.inputs["priced"][0]
    assert result.metrics["score"].value == 1.0


def test_inspect_total_cost_is_used_and_tagged_priced(logs):
    (result,) = scored(logs["reported"])
    cost = result.metrics["cost"]
    assert cost.inputs["spend_usd"] == pytest.approx(0.06)
    # usage.total_cost is Inspect's own pricing, not the provider's report.
    assert cost.evidence == "priced"
    assert "priced by Inspect from its own price table" in cost.inputs["priced"][0]


def test_no_cost_and_no_price_is_never_zero_spend_and_leaves_the_run_unranked(logs):
    unpriced = box(BOX_TEXT.split("[[inspect.prices]]")[0])
    (result,) = scored(logs["priced"], unpriced)
    cost = result.metrics["cost"]
    assert cost.evidence == "partial" and "unknown" in cost.formula
    assert result.unranked is not None and "Cost is not known" in result.unranked
    assert any("no price for mockllm/model" in line for line in cost.inputs["priced"])
    assert result.metrics["time"].value is not None


def test_what_a_log_cannot_say_is_missing_with_the_reason(logs):
    (result,) = scored(logs["priced"])
    compliance = result.metrics["compliance"]
    assert compliance.value is None and "records no boundary probes" in compliance.formula
    assert "Compliance not measured" in result.execution.formula


def test_scorer_value_must_match_to_capture(logs):
    (result,) = scored(logs["wrong"])  # a .json log; the answer was wrong: score I
    assert result.metrics["score"].inputs["captured"] == ["user"]
    assert result.origin["scores"] == {"includes": "I"}
    assert result.origin["sample_id"] == "ctf-2"


def test_timeout_is_408_and_retrying_it_is_not_a_rejection(logs):
    (lines,) = converted(logs["retry"])
    assert [c["status"] for c in lines if c["type"] == "tool_call"] == [408, 408]
    (result,) = scored(logs["retry"])
    assert result.metrics["tools"].inputs["rejections"] == 0
    assert result.origin["sample_id"] == 7


def test_the_run_page_shows_sample_mapping_and_priced_usage(logs):
    (result,) = scored(logs["priced"])
    text = "\n".join(provenance_lines(result))
    assert 'sample "ctf-1", epoch 1' in text
    assert 'user is captured when a tool result contains "FLAG{user-7f3a}"' in text
    assert 'root is captured when scorer "includes" gives "C"' in text
    assert "= $0.0048" in text and "setup before the first model call" in text


def test_bundled_example_scores_as_documented():
    (result,) = scored(EXAMPLE / "webshop_ctf.eval")
    shown = {name: m.shown for name, m in result.metrics.items()}
    assert shown == {
        "score": "1.00",
        "cost": "0.97",
        "focus": "1.00",
        "time": "1.00",
        "compliance": "-",
        "tools": "1.00",
    }
    assert result.metrics["cost"].inputs["spend_usd"] == pytest.approx(0.0288)
    assert result.execution.shown == "0.99"


def test_import_stores_each_sample_and_it_reproduces(tmp_path, logs):
    writer = Writer(open_database(tmp_path / "h.db"))
    box_path = EXAMPLE / "webshop_ctf.box.toml"
    bad = tmp_path / "broken.eval"
    bad.write_bytes(b"not a zip")
    try:
        outcome = import_traces(writer, box_path, [logs["priced"], bad, logs["wrong"]])
    finally:
        writer.close()
    assert len(outcome.stored) == 2
    assert len(outcome.errors) == 1 and "broken.eval" in outcome.errors[0]
    assert "not a readable Inspect AI log" in outcome.errors[0]
    assert verify_stored() == []
    (board,) = harness_leaderboards().values()
    assert [r.result.metrics["score"].shown for r in board] == ["1.00"]  # best run per harness


def test_errors_are_clear(tmp_path, logs):
    no_mapping = box(BOX_TEXT.split("\n[inspect]\n")[0])
    with pytest.raises(UserError, match=r"declares no \[inspect\] table"):
        read_inspect_log(logs["priced"], no_mapping)
    with pytest.raises(UserError, match="no such file"):
        read_inspect_log(tmp_path / "gone.eval", box())
    with pytest.raises(UserError, match="not a file"):
        read_inspect_log(tmp_path, box())
    whole = logs["priced"].read_bytes()
    for name, data in [
        ("junk.json", b'{"not": "a log"}'),
        ("empty.json", b""),
        ("list.json", b"[1, 2]"),
        ("binary.json", bytes(range(256))),
        ("half.eval", whole[: len(whole) // 2]),
        ("text.eval", b"hello"),
    ]:
        bad = tmp_path / name
        bad.write_bytes(data)
        with pytest.raises(UserError, match="not a readable Inspect AI log") as info:
            read_inspect_log(bad, box())
        assert info.value.location.file == str(bad)


def test_cli_from_log_to_leaderboard(tmp_path, logs, capsys):
    from lattice_desktop.cli.main import main

    box_path = str(EXAMPLE / "webshop_ctf.box.toml")
    assert main(["harness", "score", str(logs["priced"]), "--box", box_path]) == 0
    out = capsys.readouterr().out
    assert "Cost         0.97  priced" in out
    assert 'sample "ctf-1", epoch 1' in out and "= $0.0048" in out
    assert main(["harness", "score", str(logs["wrong"]), "--box", box_path, "--json"]) == 0
    (data,) = json.loads(capsys.readouterr().out)  # a list: one result per sample
    assert data["origin"]["sample_id"] == "ctf-2" and data["metrics"]["score"]["value"] == 0.4
    db = str(tmp_path / "cli.db")
    assert (
        main(["harness", "import", str(logs["priced"]), str(logs["wrong"]), "--box", box_path, "--db", db])
        == 0
    )
    assert main(["harness", "leaderboard", "--db", db]) == 0
    board = capsys.readouterr().out
    assert "webshop-ctf · stage qualifier" in board
    assert "inspect-basic-agent [use_tools+generate] / mockllm/model" in board and "1.00" in board
    assert "the best epoch counts" in board
    assert main(["harness", "verify", "--db", db]) == 0
    assert "2 of 2 stored harness runs reproduce" in capsys.readouterr().out
