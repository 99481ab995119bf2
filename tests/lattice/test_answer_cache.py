"""A submission's answers to the Factory tab are kept on disk, and read back strictly."""

from __future__ import annotations

import zlib

import pytest

from lattice_desktop.lattice import build_engines
from lattice_desktop.lattice.records import RecordsError
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.submission_records import open_submission, submission_checksums, submission_pairs
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import demo_case

CASE = load_case(demo_case())
BUGGY = build_engines.SUBMISSIONS_DIR / "buggy"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "answers"


def test_answers_are_kept_and_a_damaged_one_is_run_again(cache):
    entry = CASE.entry("side_load_priority")
    sub = open_submission(str(BUGGY), CASE, entry.name)
    data = entry.input_bytes()
    first = submission_checksums(sub, data)
    assert first == WasmEngine(BUGGY / "engine.wasm").run(data)
    kept = list(cache.glob("*.z"))
    assert len(kept) == 1
    kept[0].write_bytes(b"not zlib")
    assert submission_checksums(sub, data) == first  # run again, not read as junk
    assert submission_checksums(sub, data) == first


def test_a_tampered_answer_is_refused_when_read(cache):
    entry = CASE.entry("side_load_priority")
    sub = open_submission(str(BUGGY), CASE, entry.name)
    data = entry.input_bytes()
    scenario = parse_scenario(data)
    good = submission_pairs(sub, scenario, data, 3)
    assert len(good)
    (path,) = cache.glob("*.z")
    path.write_bytes(zlib.compress(zlib.decompress(path.read_bytes()) + b"\0" * 8))
    with pytest.raises(RecordsError, match="whole number"):
        submission_pairs(sub, scenario, data, 3)
