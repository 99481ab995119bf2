"""Seconds on a harness run's page print to the millisecond, not as a float's full repr: the
setup an Inspect AI log records before the first model call, and a pause's end."""

from __future__ import annotations

import re
from pathlib import Path

from lattice_desktop.harness.box import load_box
from lattice_desktop.harness.inspect_log import read_inspect_log
from lattice_desktop.harness.provenance import provenance_lines
from lattice_desktop.harness.result import score
from lattice_desktop.harness.seconds import seconds
from lattice_desktop.harness.trace import parse_trace
from lattice_desktop.harness.transcript import KIND_CODE, titled, transcript_rows

HARNESS = Path(__file__).resolve().parents[2] / "resources" / "harness"
LONG_DECIMAL = re.compile(r"\d\.\d{4,}")


def test_seconds_are_printed_to_the_millisecond_half_up():
    assert seconds(0.013700083999992785) == "0.014"
    assert seconds(1512.0) == "1,512.000"
    assert seconds(0.0005) == "0.001"  # half up from the number as written
    assert seconds(None) == "None" and seconds("soon") == "soon"


def test_an_inspect_runs_setup_time_prints_to_the_millisecond():
    box = load_box(HARNESS / "inspect" / "webshop_ctf.box.toml")
    (sample,) = read_inspect_log(HARNESS / "inspect" / "webshop_ctf.eval", box)
    result = score(box, parse_trace(sample.text))
    setup = result.origin["setup_s"]
    assert LONG_DECIMAL.search(repr(setup))  # the log's figure has many more decimals
    (line,) = [x for x in provenance_lines(result) if x.startswith("setup before the first model call")]
    assert line == f"setup before the first model call: {seconds(setup)} s (not counted in Time)"
    assert not LONG_DECIMAL.search(line)


def test_a_pause_prints_its_end_to_the_millisecond(tmp_path):
    box = load_box(HARNESS / "webshop.box.toml")
    text = (
        (HARNESS / "traces" / "clean.jsonl").read_text().replace('"until": 360.0', '"until": 360.123456789')
    )
    trace = parse_trace(text)
    rows = [titled(row) for row in transcript_rows(text, trace, score(box, trace), box)]
    (paused,) = [row for row in rows if row[2] == KIND_CODE["paused"]]
    assert paused[3] == "paused until 360.123 · sandbox_setup"
