"""Scoring off the writer (issue 20.6): runs are scored on the importing worker, the box is
parsed once for all files, the writer only inserts; the app's run text is not the CLI's."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

from harness_builders import BOX_PATH, TRACES

from lattice_desktop.services import harness_import
from lattice_desktop.store.database import open_database
from lattice_desktop.store.harness_runs import list_harness_runs, verify_stored
from lattice_desktop.store.writer import Writer

UI = Path(harness_import.__file__).resolve().parents[1] / "ui"


def test_scoring_runs_on_the_worker_and_the_box_is_parsed_once(tmp_path, monkeypatch):
    threads, parses = [], []
    score_text, parse_box = harness_import.score_text, harness_import.parse_box

    def spy_score(*args):
        threads.append(threading.current_thread().name)
        return score_text(*args)

    def spy_parse(*args, **kwargs):
        parses.append(args)
        return parse_box(*args, **kwargs)

    monkeypatch.setattr(harness_import, "score_text", spy_score)
    monkeypatch.setattr(harness_import, "parse_box", spy_parse)
    traces = sorted(TRACES.glob("*.jsonl"))
    writer = Writer(open_database(tmp_path / "h.db"))
    try:
        outcome = harness_import.import_traces(writer, BOX_PATH, traces)
    finally:
        writer.close()
    assert len(outcome.stored) == len(traces) and not outcome.errors
    assert len(parses) == 1
    assert threads == [threading.current_thread().name] * len(traces)
    assert not any(name.startswith("db-writer") for name in threads)
    assert len(list_harness_runs()) == len(traces) and verify_stored() == []


def test_a_file_that_fails_unexpectedly_does_not_stop_the_others(tmp_path, monkeypatch, capsys):
    runs_in_file = harness_import.runs_in_file

    def crashing(box, path):
        if path.name == "looping.jsonl":
            raise RuntimeError("a bug while reading")
        return runs_in_file(box, path)

    monkeypatch.setattr(harness_import, "runs_in_file", crashing)
    from lattice_desktop.cli.main import main

    db = str(tmp_path / "h.db")
    bad, good = TRACES / "looping.jsonl", TRACES / "clean.jsonl"
    assert main(["harness", "import", str(bad), str(good), "--box", str(BOX_PATH), "--db", db]) == 4
    out = capsys.readouterr()
    assert out.out.count("stored harness run") == 1
    assert "RuntimeError: a bug while reading" in out.err and "Traceback" in out.err


def test_the_app_does_not_import_the_cli():
    for path in sorted(UI.glob("harness_*.py")):
        tree = ast.parse(path.read_text())
        modules = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        modules += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert not [m for m in modules if m.startswith("lattice_desktop.cli")], path.name
