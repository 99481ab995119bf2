"""Tables for performance runs. A run's results are written in the same transaction
that gives it a final verdict, so a half-written run never shows results."""

from __future__ import annotations

from peewee import (
    AutoField,
    BigIntegerField,
    BlobField,
    BooleanField,
    CharField,
    DateTimeField,
    DoubleField,
    ForeignKeyField,
    IntegerField,
    TextField,
)

from lattice_desktop.store.base import BaseModel


class SchemaVersion(BaseModel):
    version = IntegerField()


class CaseRecord(BaseModel):
    id = AutoField()
    name = CharField()
    version = IntegerField()
    variant = CharField()
    manifest_hash = CharField()
    manifest_path = TextField()
    family = CharField(null=True)
    fuel_limit = BigIntegerField()

    class Meta:
        table_name = "case"
        indexes = ((("name", "version", "variant", "manifest_hash"), True),)


class SubmissionRecord(BaseModel):
    id = AutoField()
    model = CharField()
    name = CharField()
    path = TextField()
    module_sha256 = CharField(null=True)

    class Meta:
        table_name = "submission"
        indexes = ((("model", "path", "module_sha256"), True),)


class Run(BaseModel):
    id = AutoField()
    case = ForeignKeyField(CaseRecord, backref="runs", on_delete="CASCADE")
    submission = ForeignKeyField(SubmissionRecord, backref="runs", on_delete="CASCADE")
    # Denormalised so that the field and the leaderboard are one indexed query.
    model = CharField()
    case_name = CharField()
    case_version = IntegerField()
    case_variant = CharField()
    # The case's content (manifest, inputs, expected answers): runs of different content
    # under one name are different fields. Null only until migration 3 fills it in.
    case_hash = CharField(null=True)
    verdict = CharField(index=True)
    score = BigIntegerField(null=True)  # total stress fuel of a correct run
    stress_fuel = BigIntegerField(null=True)
    overshoot = BigIntegerField(null=True)
    max_percent_over = DoubleField(null=True)
    fuel_limit = BigIntegerField()
    wasmtime_version = CharField()
    fuel_settings = TextField()
    module_from_cache = BooleanField(default=False)
    started = DateTimeField()
    finished = DateTimeField(null=True)
    owner_pid = IntegerField(null=True)
    owner_host = CharField(null=True)

    class Meta:
        # The field's one index: a scope (name, version, variant, wasmtime, content) by
        # equality, then verdict and model in order, so the leaderboard reads counts and bests
        # from the index alone and finds each model's best run with one seek.
        indexes = (
            (
                (
                    "case_name",
                    "case_version",
                    "case_variant",
                    "wasmtime_version",
                    "case_hash",
                    "verdict",
                    "model",
                    "score",
                ),
                False,
            ),
        )


class CaseResultRow(BaseModel):
    id = AutoField()
    run = ForeignKeyField(Run, backref="results", on_delete="CASCADE")
    position = IntegerField()
    name = CharField()
    kind = CharField()
    behaviour = TextField()
    size = BigIntegerField()
    outcome = CharField()
    ceiling = BigIntegerField()
    budget = BigIntegerField()
    fuel = BigIntegerField(null=True)
    detail = TextField()
    trap_code = CharField(null=True)
    frames = TextField()
    output_digest = CharField(null=True)
    mismatch_unit = CharField(null=True)
    mismatch_index = BigIntegerField(null=True)
    mismatch_tick = BigIntegerField(null=True)
    mismatch_expected = CharField(null=True)  # u64 as decimal text (SQLite integers are signed)
    mismatch_got = CharField(null=True)
    snapshot_interval = BigIntegerField(null=True)
    checksums = BlobField(null=True)
    wall_time = DoubleField()

    class Meta:
        table_name = "case_result"
        indexes = ((("run", "position"), True),)


class BuildLog(BaseModel):
    run = ForeignKeyField(Run, backref="build_logs", on_delete="CASCADE", unique=True)
    ok = BooleanField()
    detail = TextField()
    log = TextField()
    seconds = DoubleField()

    class Meta:
        table_name = "build_log"


CORE_TABLES = [CaseRecord, SubmissionRecord, Run, CaseResultRow, BuildLog]
