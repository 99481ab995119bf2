"""A harness run through the everyday commands, as a new user types them: `runs` keeps its
columns in line with a long "harness / model", `show` says where the run stands, and
`export run N --csv` / `--html` without a file name write one named after the run."""

from __future__ import annotations

import json
from pathlib import Path

from lattice_desktop.cli.main import main

HARNESS = Path(__file__).resolve().parents[2] / "resources" / "harness"


def imported(tmp_path: Path, capsys) -> list[str]:
    db = ["--db", str(tmp_path / "h.db")]
    for trace, box in (
        (HARNESS / "traces" / "clean.jsonl", HARNESS / "webshop.box.toml"),
        (HARNESS / "inspect" / "webshop_ctf.eval", HARNESS / "inspect" / "webshop_ctf.box.toml"),
        (HARNESS / "traces" / "looping.jsonl", HARNESS / "webshop.box.toml"),
    ):
        assert main(["harness", "import", str(trace), "--box", str(box), *db]) == 0
    capsys.readouterr()
    return db


def test_runs_keeps_every_column_in_line(tmp_path, capsys):
    db = imported(tmp_path, capsys)
    assert main(["runs", *db]) == 0
    head, *rows = capsys.readouterr().out.splitlines()
    assert len(rows) == 3
    assert any("inspect-basic-agent [use_tools+generate] / mockllm/model" in row for row in rows)
    for word in ("verdict", "finished"):  # each column starts where its heading does
        at = head.index(word)
        assert {row[at - 1] for row in rows} == {" "} and all(row[at] != " " for row in rows), word
    assert {row.index("◇ harness") for row in rows} == {head.index("verdict")}


def test_show_says_where_the_run_stands(tmp_path, capsys):
    db = imported(tmp_path, capsys)
    assert main(["show", "3", *db]) == 0
    out = capsys.readouterr().out
    assert "board: #2 of 2 on webshop · qualifier" in out
    assert "trace run looping-001" in out  # the trace's own id, told apart from run 3
    assert main(["show", "3", "--json", *db]) == 0
    standing = json.loads(capsys.readouterr().out)["standing"]
    assert standing == {
        "position": 2,
        "ranked": True,
        "board_size": 2,
        "best_run_id": 3,
        "describe": "#2 of 2 on webshop · qualifier",
    }


def test_export_without_a_file_name_writes_one_named_after_the_run(tmp_path, capsys, monkeypatch):
    db = imported(tmp_path, capsys)
    monkeypatch.chdir(tmp_path)
    assert main(["export", "run", "2", "--csv", "--html", *db]) == 0
    assert "run-2.csv" in capsys.readouterr().err
    assert (tmp_path / "run-2.csv").read_text().startswith("run,name,box,stage")
    html = (tmp_path / "run-2.html").read_text()
    assert "Inputs shown for recomputation" in html and "setup before the first model call: 0.014 s" in html
    assert "Fuel is comparable" not in html  # a harness run has no fuel
