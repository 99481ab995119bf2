"""Issue 45 item 2: every cache is bounded and keeps only checked data.

The review's hostile records export returned 64 MiB of random bytes per tick: the Factory
tab's answer cache stored each answer before checking it, kept the rejected ones and never
evicted (+384 MiB for 6 ticks). Here the same export runs through the calls the Factory tab
makes (records per tick, the checksums of the divergence search): each is refused and the
cache stays empty; honest answers past a small bound evict the least recently used.
"""

from __future__ import annotations

import os
import zlib
from dataclasses import replace
from pathlib import Path

import pytest
import wasmtime

from lattice_desktop.errors import UserError
from lattice_desktop.lattice import answer_cache, build_engines, keyframe_cache
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.submission_records import open_submission, submission_checksums, submission_pairs
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import CASES, demo_case
from lattice_desktop.sandbox import compiler
from lattice_desktop.sandbox.disk_cache import BoundedFolder
from lattice_desktop.store import profiles
from lattice_desktop.store.database import open_database
from lattice_desktop.store.writer import Writer
from tests.core.wat_cases import write_submission
from tests.profile.test_store import _profile

MIB = 1024 * 1024
TICKS = 6
OUT = 131072  # where the hostile module writes its answer

# Both exports fill 64 MiB with xorshift64 bytes seeded by the tick (a new answer each
# call, incompressible) and return it: within the case's 64 MiB output limit.
RANDOM_64_MIB = f"""
(module (memory (export "memory") 1100)
 (func (export "alloc") (param i32) (result i32) i32.const 1024)
 (func $fill (param $seed i64) (result i64)
   (local $p i32) (local $x i64)
   (local.set $x (i64.add (i64.mul (local.get $seed) (i64.const 6364136223846793005))
                          (i64.const 0x9E3779B97F4A7C15)))
   (local.set $p (i32.const {OUT}))
   (loop $l
     (local.set $x (i64.xor (local.get $x) (i64.shl (local.get $x) (i64.const 13))))
     (local.set $x (i64.xor (local.get $x) (i64.shr_u (local.get $x) (i64.const 7))))
     (local.set $x (i64.xor (local.get $x) (i64.shl (local.get $x) (i64.const 17))))
     (i64.store (local.get $p) (local.get $x))
     (local.set $p (i32.add (local.get $p) (i32.const 8)))
     (br_if $l (i32.lt_u (local.get $p) (i32.const {OUT + 64 * MIB}))))
   (i64.or (i64.shl (i64.const {OUT}) (i64.const 32)) (i64.const {64 * MIB})))
 (func (export "lattice_run") (param i32 i32) (result i64) (call $fill (i64.const 0)))
 (func (export "lattice_records") (param i32 i32 i64) (result i64) (call $fill (local.get 2))))
"""


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "answers"


def _usage(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.glob("*") if p.is_file()] if folder.is_dir() else []
    return sum(p.stat().st_size for p in files), len(files)


def test_a_64_mib_per_tick_random_export_leaves_nothing_in_the_cache(tmp_path, cache):
    case = load_case(CASES / "lattice")
    entry = case.smoke[0]
    data = entry.input_bytes()
    scenario = parse_scenario(data)
    sub = open_submission(str(write_submission(tmp_path / "sub", RANDOM_64_MIB)), case, entry.name)
    refusals = []
    for tick in range(1, TICKS + 1):
        with pytest.raises(UserError) as refused:
            submission_pairs(sub, scenario, data, tick)
        refusals.append(str(refused.value))
        assert _usage(cache) == (0, 0), f"after tick {tick}: {_usage(cache)} (bytes, files) kept"
    with pytest.raises(UserError, match=r"returned 8,388,608 checksums; the scenario has 4 snapshots"):
        submission_checksums(sub, data)
    assert _usage(cache) == (0, 0), "a rejected answer was kept"
    assert all(refusals), refusals


def test_honest_answers_past_the_bound_evict_the_least_recently_used(tmp_path, cache, monkeypatch):
    """The demo's buggy submission answers honestly; with the folder bounded to 3 files, the
    cache never holds more, and the answer just read again is one it keeps."""
    monkeypatch.setattr(answer_cache, "ANSWERS", BoundedFolder("answers", max_bytes=64 * MIB, max_files=3))
    case = load_case(demo_case())
    entry = case.entry("side_load_priority")
    data = entry.input_bytes()
    scenario = parse_scenario(data)
    sub = open_submission(str(build_engines.SUBMISSIONS_DIR / "buggy"), case, entry.name)
    first = submission_pairs(sub, scenario, data, 1)
    seen = []
    for tick in range(2, 9):
        submission_pairs(sub, scenario, data, tick)
        assert (submission_pairs(sub, scenario, data, 1) == first).all()  # read back: used again
        seen.append(_usage(cache)[1])
    assert max(seen) == 3, seen
    key = answer_cache.answer_key(sub.digest, f"{sub.exports} {sub.limits}", data, (1,))
    assert (cache / key).is_file(), "the answer used last was evicted"


def test_an_entry_larger_than_the_whole_bound_is_not_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(tmp_path))
    folder = BoundedFolder("small", max_bytes=1000, max_files=10)
    assert not folder.save("big", b"x" * 1001)
    assert not folder.save_parts("big", [b"x" * 600, b"x" * 600])
    assert folder.save("fits", b"x" * 600)
    assert folder.save("also", b"y" * 600)  # evicts "fits": 1,200 bytes > 1,000
    assert folder.usage() == (600, 1)
    assert folder.load("also") == b"y" * 600 and folder.load("fits") is None
    assert sorted(p.name for p in (tmp_path / "small").iterdir()) == ["also"]


def test_compiled_modules_are_bounded_on_disk_and_in_memory(tmp_path, monkeypatch):
    """Each new module compiled adds a file and a module in memory; past the bounds the
    least recently used go (patched small here: 2 on disk, 3 in memory)."""
    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(
        compiler, "MODULES", BoundedFolder(compiler.MODULES.name, max_bytes=1 << 30, max_files=2)
    )
    monkeypatch.setattr(compiler, "MEMORY_MODULES", 3)
    monkeypatch.setattr(compiler, "_memory_cache", type(compiler._memory_cache)())
    modules = [bytes(wasmtime.wat2wasm(f'(module (func (export "f{n}")))')) for n in range(5)]
    for wasm in modules:
        compiler.compile_module(wasm, max_bytes=1 << 20, timeout=60)
        assert len(list(compiler.cache_dir().glob("*.cwasm"))) <= 2
        assert len(compiler._memory_cache) <= 3
    assert compiler.compile_module(modules[-1], max_bytes=1 << 20, timeout=60).from_cache


def test_stored_profiles_are_bounded_oldest_first(tmp_path, monkeypatch):
    monkeypatch.setattr(profiles, "MAX_PROFILES", 3)
    writer = Writer(open_database(str(tmp_path / "db.sqlite")))
    try:
        made = [replace(_profile(), module_sha256=f"{n:064x}") for n in range(5)]
        for profile in made:
            writer.call(profiles.save_profile, profile)
        assert profiles.ProfileRecord.select().count() == 3
        key = (made[-1].case_hash, made[-1].case_name, made[-1].wasmtime_version)
        assert profiles.load_profile(made[-1].module_sha256, *key) == made[-1]
        assert profiles.load_profile(made[0].module_sha256, *key) is None
    finally:
        writer.close()


def test_keyframes_past_the_bound_are_not_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(
        keyframe_cache, "KEYFRAMES", BoundedFolder("keyframes", max_bytes=3 * 4096, max_files=2)
    )
    frames = [(0, 65536, zlib.compress(bytes(65536)) + os.urandom(4000))]
    for n in range(4):
        keyframe_cache.save(keyframe_cache.cache_dir() / f"{n}.keyframes", frames)
        assert keyframe_cache.KEYFRAMES.usage()[1] <= 2
    assert keyframe_cache.load(keyframe_cache.cache_dir() / "3.keyframes") is not None
    keyframe_cache.save(keyframe_cache.cache_dir() / "big.keyframes", frames * 4)
    assert not (keyframe_cache.cache_dir() / "big.keyframes").exists()
