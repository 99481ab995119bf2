"""The leaderboard against a plain-Python reading of the same stored runs: many models,
ties on best fuel, reruns, over-ceiling-only models, running and incorrect runs, another
case and another wasmtime version mixed in. SQLite and PostgreSQL."""

from __future__ import annotations

import itertools
import random
from datetime import UTC, datetime, timedelta

import pytest

from lattice_desktop.outcomes import Verdict
from lattice_desktop.store.base import db_proxy
from lattice_desktop.store.database import open_database
from lattice_desktop.store.field import leaderboard
from lattice_desktop.store.schema import CaseRecord, Run, SubmissionRecord

VERDICTS = [Verdict.CORRECT, Verdict.CORRECT, Verdict.INCORRECT, Verdict.OVER_CEILING, Verdict.RUNNING]


def populate(seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    case = CaseRecord.create(
        name="c", version=1, variant="standard", manifest_hash="h", manifest_path="x", fuel_limit=100
    )
    rows = []
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for i in range(600):
        model = f"m{rng.randrange(40)}"
        verdict = rng.choice(VERDICTS) if model != "m0" else Verdict.OVER_CEILING  # m0: over only
        fuel = rng.choice([100, 100, 120, 130, 150]) * (1 + int(model[1:]) % 3)  # many ties
        rows.append(
            {
                "case": case.id,
                "model": model,
                "case_name": "c" if i % 17 else "other",
                "case_version": 1,
                "case_variant": "standard",
                "wasmtime_version": "50.0.1" if i % 23 else "49.0.0",
                "verdict": verdict.value,
                "score": fuel if verdict is Verdict.CORRECT else None,
                "stress_fuel": fuel,
                "max_percent_over": float(fuel % 7) if verdict is Verdict.OVER_CEILING else None,
                "fuel_limit": 100,
                "fuel_settings": "x",
                "started": start,
                "finished": start + timedelta(minutes=i),
            }
        )
    subs = {m: SubmissionRecord.create(model=m, name=m, path=f"/{m}").id for m in {r["model"] for r in rows}}
    for r in rows:
        r["submission"] = subs[r["model"]]
    Run.insert_many(rows).execute()
    for r, run in zip(rows, Run.select().order_by(Run.id), strict=True):
        r["id"] = run.id
    return rows


def expected_board(rows: list[dict]):
    """The leaderboard computed by hand: each model once, at its best, earliest on a tie."""
    scope = [r for r in rows if r["case_name"] == "c" and r["wasmtime_version"] == "50.0.1"]
    counts: dict[str, int] = {}
    for r in scope:
        if r["verdict"] != "running":
            counts[r["model"]] = counts.get(r["model"], 0) + 1

    def bests(verdict: str, column: str) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for r in sorted(scope, key=lambda r: r["id"]):
            if r["verdict"] == verdict and (r["model"] not in out or r[column] < out[r["model"]][column]):
                out[r["model"]] = r
        return out

    correct = bests("correct", "score")
    ranked = sorted(correct.values(), key=lambda r: (r["score"], r["id"]))
    over = sorted(
        (r for m, r in bests("over_ceiling", "stress_fuel").items() if m not in correct),
        key=lambda r: (r["stress_fuel"], r["id"]),
    )
    return (
        [(r["model"], r["id"], r["score"], counts[r["model"]]) for r in ranked],
        [(r["model"], r["id"], r["stress_fuel"], counts[r["model"]], r["max_percent_over"]) for r in over],
    )


def check(rows: list[dict]) -> None:
    board = leaderboard("c", 1, "standard", "50.0.1")
    entries, over = expected_board(rows)
    assert [(e.model, e.run_id, e.fuel, e.runs) for e in board.entries] == entries
    assert [(e.model, e.run_id, e.fuel, e.runs, e.percent_over) for e in board.over_ceiling] == over
    assert len(entries) > 20 and [e.model for e in board.over_ceiling] == ["m0"]
    ranks = [e.rank for e in board.entries]
    assert ranks[0] == 1 and any(a == b for a, b in itertools.pairwise(ranks))  # ties share a rank
    assert board.entries[-1].ratio == pytest.approx(board.entries[-1].fuel / board.entries[0].fuel)


def test_the_leaderboard_matches_a_hand_count_on_sqlite(tmp_path):
    open_database(tmp_path / "board.db")
    check(populate())


@pytest.mark.postgres
def test_the_leaderboard_matches_a_hand_count_on_postgres(pg_url):
    db = open_database(pg_url)
    with db_proxy.bound(db):
        check(populate())
    db.close()
