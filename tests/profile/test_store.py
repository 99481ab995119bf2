"""A stored profile reads back as it was, under its full key only."""

from __future__ import annotations

from dataclasses import replace

from lattice_desktop.profile.model import HOST, EdgeStats, FunctionStats, Profile
from lattice_desktop.store import migrations
from lattice_desktop.store.database import open_database
from lattice_desktop.store.profiles import ProfileRecord, load_profile, save_profile
from lattice_desktop.store.writer import Writer


def _profile() -> Profile:
    return Profile(
        module_sha256="ab" * 32,
        case_name="stress-64",
        case_hash="cd" * 32,
        total=100,
        functions=(FunctionStats(0, "alloc", 1, 10, 10), FunctionStats(1, "run", 1, 90, 90)),
        edges=(EdgeStats(HOST, 0, 1, 10), EdgeStats(HOST, 1, 1, 90)),
        budget=1000,
        instrumented_fuel=180,
        outcome="returned",
        wall_time=0.5,
        wasmtime_version="50.0.1",
    )


def test_round_trip_through_the_writer(tmp_path):
    writer = Writer(open_database(str(tmp_path / "db.sqlite")))
    try:
        assert migrations.current_version(ProfileRecord._meta.database) == migrations.LATEST
        profile = _profile()
        writer.call(save_profile, profile)
        writer.call(save_profile, profile)  # again: replaced, not duplicated
        key = (profile.module_sha256, profile.case_hash, profile.case_name, profile.wasmtime_version)
        assert load_profile(*key) == profile
        assert ProfileRecord.select().count() == 1
        assert load_profile(profile.module_sha256, profile.case_hash, "stress-512", "50.0.1") is None
        assert load_profile(profile.module_sha256, "ef" * 32, profile.case_name, "50.0.1") is None
        assert load_profile(*key[:3], "49.0.0") is None
        other = replace(profile, case_name="stress-512", wall_time=0.7)
        writer.call(save_profile, other)
        assert load_profile(*key) == profile
        assert load_profile(profile.module_sha256, profile.case_hash, "stress-512", "50.0.1") == other
    finally:
        writer.close()
