"""Stored fuel profiles, keyed by module hash, case content hash, case name and wasmtime
version (fuel is comparable only within one version), so a profile is made once. A row is
checked when it is read (`stored_form`): one that does not check out is never returned.
At most `MAX_PROFILES` rows are kept (each is bounded by the profiler's function limit):
saving one more removes the oldest."""

from __future__ import annotations

from datetime import UTC, datetime

from peewee import AutoField, CharField, DateTimeField, TextField

from lattice_desktop.profile.model import Profile
from lattice_desktop.profile.stored_form import profile_from_json
from lattice_desktop.store.base import BaseModel


class ProfileRecord(BaseModel):
    id = AutoField()  # peewee's implicit key, named so that queries can order by it
    module_sha256 = CharField()
    case_hash = CharField()
    case_name = CharField()
    wasmtime_version = CharField()
    data = TextField()  # Profile.to_json()
    created = DateTimeField()

    class Meta:
        table_name = "fuel_profile"
        indexes = ((("module_sha256", "case_hash", "case_name", "wasmtime_version"), True),)


PROFILE_TABLES = [ProfileRecord]
MAX_PROFILES = 2000  # stored profiles kept; past it the oldest made go (a profile is made again on demand)


def load_profile(module_sha256: str, case_hash: str, case_name: str, wasmtime_version: str) -> Profile | None:
    """The stored profile for this key, or None; `stored_form.BadProfile` (a ValueError)
    when the row does not check out (wrong types, nesting, or figures that disagree)."""
    row = ProfileRecord.get_or_none(
        (ProfileRecord.module_sha256 == module_sha256)
        & (ProfileRecord.case_hash == case_hash)
        & (ProfileRecord.case_name == case_name)
        & (ProfileRecord.wasmtime_version == wasmtime_version)
    )
    if row is None:
        return None
    return profile_from_json(row.data)


def save_profile(profile: Profile) -> None:
    """Store `profile`, replacing one stored under the same key (call through the Writer)."""
    key = (
        (ProfileRecord.module_sha256 == profile.module_sha256)
        & (ProfileRecord.case_hash == profile.case_hash)
        & (ProfileRecord.case_name == profile.case_name)
        & (ProfileRecord.wasmtime_version == profile.wasmtime_version)
    )
    ProfileRecord.delete().where(key).execute()
    ProfileRecord.create(
        module_sha256=profile.module_sha256,
        case_hash=profile.case_hash,
        case_name=profile.case_name,
        wasmtime_version=profile.wasmtime_version,
        data=profile.to_json(),
        created=datetime.now(UTC),
    )
    _evict_oldest(MAX_PROFILES)


def _evict_oldest(keep: int) -> None:
    """Keep only the `keep` most recently made profiles."""
    newest = ProfileRecord.select(ProfileRecord.id).order_by(
        ProfileRecord.created.desc(), ProfileRecord.id.desc()
    )
    ProfileRecord.delete().where(ProfileRecord.id.not_in(newest.limit(keep))).execute()
