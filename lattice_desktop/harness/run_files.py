"""The runs one file holds: a JSON Lines trace is one run; an Inspect AI log (.eval,
.json) is one run per sample, converted through the box's `[inspect]` mapping."""

from __future__ import annotations

from pathlib import Path

from lattice_desktop.harness.box import Box
from lattice_desktop.harness.inspect_log import is_inspect_log, read_inspect_log
from lattice_desktop.harness.trace_file import MAX_TRACE_BYTES
from lattice_desktop.textfile import read_text


def runs_in_file(box: Box, path: str | Path) -> list[tuple[str, str]]:
    """(source, trace text) of each run in the file, in order. Raises `UserError`."""
    if is_inspect_log(path):
        return [(sample.source, sample.text) for sample in read_inspect_log(path, box)]
    return [(str(path), read_text(path, limit=MAX_TRACE_BYTES, what="trace"))]
