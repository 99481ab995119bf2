"""`harness score TRACE --box BOX [--json]`."""

from __future__ import annotations

import argparse
import json

from harness_builders import BOX_PATH, TRACES

from lattice_desktop.cli import harness_cmd


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    harness_cmd.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


def test_score_prints_the_table(capsys):
    code = run(["harness", "score", str(TRACES / "nothing.jsonl"), "--box", str(BOX_PATH)])
    out = capsys.readouterr().out
    assert code == 0
    assert "Cost" in out and "Cost = - (nothing was captured)" in out
    row = next(line for line in out.splitlines() if line.startswith("Time"))
    assert row.split()[1] == "-"


def test_score_json(capsys):
    code = run(["harness", "score", str(TRACES / "clean.jsonl"), "--box", str(BOX_PATH), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["metrics"]["cost"]["value"] == 0.88


def test_bad_trace_is_one_error_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "run_start", "t": 0}\nnot json\n')
    code = run(["harness", "score", str(bad), "--box", str(BOX_PATH)])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {bad}:2:")


def test_missing_box_file(tmp_path, capsys):
    code = run(["harness", "score", str(TRACES / "clean.jsonl"), "--box", str(tmp_path / "none.toml")])
    assert code == 2 and "file not found" in capsys.readouterr().err
