"""Ordered schema migrations. A database records the last one applied; opening it applies
the rest, each in its own transaction, so an older database is upgraded without loss."""

from __future__ import annotations

from collections.abc import Callable

from peewee import Database, Value, fn
from playhouse.migrate import SchemaMigrator
from playhouse.migrate import migrate as migrate_schema

from lattice_desktop.errors import StorageError
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.store.base import tuples, write_transaction
from lattice_desktop.store.harness_tables import HARNESS_TABLES, HarnessRun
from lattice_desktop.store.hidden_runs import HiddenRun
from lattice_desktop.store.profiles import PROFILE_TABLES
from lattice_desktop.store.run_numbers import GRADED, HARNESS, RUN_NUMBER_TABLES, RunNumber
from lattice_desktop.store.schema import CORE_TABLES, CaseRecord, CaseResultRow, Run, SchemaVersion
from lattice_desktop.store.transcripts import TRANSCRIPT_TABLES


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


def _one_run_id(db: Database) -> None:
    """Give graded and harness runs one id sequence. Graded runs keep their ids (hidden
    marks, results and build logs name them); harness runs whose ids collide with them move
    above the largest, in their order (nothing else stored names a harness run by id), and
    every id in use is recorded so it is never handed out again. Harness runs get a
    `hidden` column of their own."""
    harness_table = HarnessRun._meta.table_name
    if "hidden" not in {c.name for c in db.get_columns(harness_table)}:
        migrator = SchemaMigrator.from_database(db)
        migrate_schema(migrator.add_column(harness_table, "hidden", HarnessRun.hidden))
    db.create_tables(RUN_NUMBER_TABLES)
    largest = Run.select(fn.MAX(Run.id)).scalar() or 0
    lowest = HarnessRun.select(fn.MIN(HarnessRun.id)).scalar()
    if lowest is not None and lowest <= largest:
        # In two steps, through negative ids, so no row ever takes an id another still holds.
        HarnessRun.update(id=HarnessRun.id * -1).execute()
        HarnessRun.update(id=largest - HarnessRun.id).execute()
    for table, kind in ((Run, GRADED), (HarnessRun, HARNESS)):
        RunNumber.insert_from(
            table.select(table.id, Value(kind)).where(table.id.not_in(RunNumber.select(RunNumber.id))),
            [RunNumber.id, RunNumber.kind],
        ).execute()


def _transcripts(db: Database) -> None:
    """Tables for harness runs' transcripts; a run stored before gets its transcript made
    from its stored trace when first opened (store/transcripts.py)."""
    db.create_tables(TRANSCRIPT_TABLES)


MIGRATIONS: list[tuple[int, str, Callable[[Database], None]]] = [
    (1, "cases, submissions, runs, results, build logs", _core),
    (2, "scored agent-harness runs", _harness),
    (3, "runs keyed by their case's content", _case_content),
    (4, "runs a user hid", _hidden_runs),
    (5, "fuel profiles", _profiles),
    (6, "a failed build is its own verdict", _build_failed),
    (7, "one id sequence for graded and harness runs", _one_run_id),
    (8, "harness run transcripts", _transcripts),
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
