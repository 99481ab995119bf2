"""Scoring and storing one harness run trace in one call, for tests (the app and the CLI
score on a worker and only insert on the writer: `services.harness_import`)."""

from __future__ import annotations

from pathlib import Path

from lattice_desktop.harness import parse_box
from lattice_desktop.harness.box import MAX_BOX_BYTES
from lattice_desktop.harness.trace_file import MAX_TRACE_BYTES
from lattice_desktop.store.harness_runs import insert_runs, score_text
from lattice_desktop.textfile import read_text


def import_run(box_path: str | Path, trace_path: str | Path) -> int:
    box_text = read_text(box_path, limit=MAX_BOX_BYTES, what="box file")
    trace_text = read_text(trace_path, limit=MAX_TRACE_BYTES, what="trace")
    box = parse_box(box_text, source=str(box_path))
    return insert_runs([score_text(box, box_text, str(trace_path), trace_text)])[0]
