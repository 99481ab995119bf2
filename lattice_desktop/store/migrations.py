"""Ordered schema migrations. A database records the last one applied; opening it applies
the rest, each in its own transaction, so an older database is upgraded without loss."""

from __future__ import annotations

from collections.abc import Callable

from peewee import Database
from playhouse.migrate import SchemaMigrator
from playhouse.migrate import migrate as migrate_schema

from lattice_desktop.errors import StorageError
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.store.base import tuples, write_transaction
from lattice_desktop.store.harness_tables import HARNESS_TABLES
from lattice_desktop.store.hidden_runs import HiddenRun
from lattice_desktop.store.profiles import PROFILE_TABLES
from lattice_desktop.store.schema import CORE_TABLES, CaseRecord, CaseResultRow, Run, SchemaVersion


def _core(db: Database) -> None:
    db.create_tables(CORE_TABLES)


def _harness(db: Database) -> None:
    db.create_tables(HARNESS_TABLES)


def _case_content(db: Database) -> None:
    """Key each run by its case's content: add `run.case_hash`, filled from its case."""
    if "case_hash" not in {c.name for c in db.get_columns(Run._meta.table_name)}:
        migrate_schema(
            SchemaMigrator.from_database(db).add_column(Run._meta.table_name, "case_hash", Run.case_hash)
        )
    Run.update(case_hash=CaseRecord.select(CaseRecord.manifest_hash).where(CaseRecord.id == Run.case)).where(
        Run.case_hash.is_null()
    ).execute()
    db.create_tables([Run])  # its indexes: the table exists, so only they are made


def _hidden_runs(db: Database) -> None:
    db.create_tables([HiddenRun])


def _profiles(db: Database) -> None:
    db.create_tables(PROFILE_TABLES)


def _build_failed(db: Database) -> None:
    """A run whose build failed was stored as incorrect; give it its own verdict (its cases
    carry the build failure, which is how the grader decides it today)."""
    failed_builds = CaseResultRow.select(CaseResultRow.run).where(
        CaseResultRow.outcome == Outcome.BUILD_FAILURE.value
    )
    Run.update(verdict=Verdict.BUILD_FAILED.value).where(
        (Run.verdict == Verdict.INCORRECT.value) & Run.id.in_(failed_builds)
    ).execute()


MIGRATIONS: list[tuple[int, str, Callable[[Database], None]]] = [
    (1, "cases, submissions, runs, results, build logs", _core),
    (2, "scored agent-harness runs", _harness),
    (3, "runs keyed by their case's content", _case_content),
    (4, "runs a user hid", _hidden_runs),
    (5, "fuel profiles", _profiles),
    (6, "a failed build is its own verdict", _build_failed),
]
LATEST = MIGRATIONS[-1][0]


def current_version(db: Database) -> int:
    if not db.table_exists(SchemaVersion._meta.table_name):
        return 0
    rows = tuples(SchemaVersion.select(SchemaVersion.version))
    versions = [value for (value,) in rows]
    if not all(isinstance(value, int) and not isinstance(value, bool) for value in versions):
        shown = ", ".join(repr(value)[:40] for value in versions)
        raise StorageError(
            f"the database's schema_version holds {shown}, not a version number; it was "
            "changed by another program — restore it from a backup or choose another file with --db"
        )
    return max(versions, default=0)


def migrate(db: Database, *, target: int = LATEST) -> int:
    """Apply every migration newer than the database, up to `target`; return the version."""
    with write_transaction(db):
        db.create_tables([SchemaVersion])
        version = current_version(db)
    if version > LATEST:
        raise StorageError(
            f"the database has schema version {version}, newer than this Lattice Desktop "
            f"understands ({LATEST}); upgrade the app"
        )
    for number, _description, apply in MIGRATIONS:
        if version < number <= target:
            with write_transaction(db):
                if current_version(db) < number:  # another process may have applied it since
                    apply(db)
                    SchemaVersion.delete().execute()
                    SchemaVersion.create(version=number)
            version = number
    return version
