"""The field on 100k stored runs: time of `standing` and `leaderboard`. Prints figures.

.venv/bin/python benchmarks/field_queries.py [--runs 100000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lattice_desktop.store.database import open_database
from lattice_desktop.store.field import leaderboard, standing
from lattice_desktop.store.queries import list_runs
from lattice_desktop.store.schema import CaseRecord, Run, SubmissionRecord


def populate(runs: int, models: int) -> list[int]:
    rng = random.Random(1)
    case = CaseRecord.create(
        name="lattice", version=1, variant="standard", manifest_hash="h", manifest_path="x", fuel_limit=10**9
    )
    subs = [
        SubmissionRecord.create(model=f"model-{m}", name=f"s{m}", path=f"/s{m}").id for m in range(models)
    ]
    now = datetime.now(UTC)
    rows = []
    for _ in range(runs):
        m = rng.randrange(models)
        verdict = rng.choices(["correct", "incorrect", "over_ceiling"], [6, 3, 1])[0]
        fuel = int(1e8 * (1 + m % 50) * rng.uniform(1, 1.5))
        rows.append(
            {
                "case": case.id,
                "submission": subs[m],
                "model": f"model-{m}",
                "case_name": "lattice",
                "case_version": 1,
                "case_variant": "standard",
                "case_hash": "h",
                "verdict": verdict,
                "score": fuel if verdict == "correct" else None,
                "stress_fuel": fuel,
                "max_percent_over": 20.0 if verdict == "over_ceiling" else None,
                "fuel_limit": 10**9,
                "wasmtime_version": "50.0.1",
                "fuel_settings": "x",
                "started": now,
                "finished": now,
            }
        )
    db = Run._meta.database
    with db.atomic():
        for start in range(0, len(rows), 500):
            Run.insert_many(rows[start : start + 500]).execute()
    return [r.id for r in Run.select(Run.id).where(Run.verdict == "correct").limit(50)]


def timed(fn, *args) -> float:
    started = time.perf_counter()
    fn(*args)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--models", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        open_database(Path(tmp) / "field.db")
        started = time.perf_counter()
        sample = populate(args.runs, args.models)
        print(f"inserted {args.runs:,} runs of {args.models} models in {time.perf_counter() - started:.1f} s")
        stand = [timed(standing, run_id) for run_id in sample]
        board = [timed(leaderboard, "lattice") for _ in range(5)]
        listing = [timed(list_runs) for _ in range(5)]
        print(f"standing(run)        median {1000 * statistics.median(stand):7.1f} ms")
        print(f"leaderboard(case)    median {1000 * statistics.median(board):7.1f} ms")
        print(f"list_runs(5000 rows) median {1000 * statistics.median(listing):7.1f} ms")


if __name__ == "__main__":
    main()
