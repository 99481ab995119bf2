"""The field: where a correct run stands among every model's best, and the leaderboard.

Each model counts once, at its lowest fuel. The run being looked at stands for its
own model (even when the model has a better run), so a slower rerun sees where it lands.
Fuel is only comparable within one wasmtime version, so the field is per version too,
and only on the same case content (manifest, inputs, expected answers): a case that
shares a name but not its content is another field.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from peewee import fn

from lattice_desktop.outcomes import Verdict
from lattice_desktop.store.schema import Run
from lattice_desktop.store.stored_values import stored_number, stored_time


@dataclass(frozen=True)
class Standing:
    rank: int
    of: int
    percentile: float  # share of the field this run is at least as good as, 0..100

    def describe(self) -> str:
        return f"#{self.rank} of {self.of} · {_ordinal(round(self.percentile))} percentile"


@dataclass(frozen=True)
class BoardEntry:
    rank: int
    model: str
    run_id: int
    fuel: int
    ratio: float  # fuel / the leader's fuel
    runs: int
    date: datetime | None  # None: the stored time could not be read
    percent_over: float | None = None


@dataclass(frozen=True)
class Leaderboard:
    case_name: str
    version: int
    variant: str
    wasmtime_version: str
    entries: list[BoardEntry]
    over_ceiling: list[BoardEntry]
    content: str = ""  # the case content (manifest hash) this board ranks
    other_contents: int = 0  # other contents with runs under the same name, version, variant

    @property
    def content_label(self) -> str:
        label = f"content {self.content[:12] or 'unknown'}"
        if self.other_contents:
            plural = "s" if self.other_contents != 1 else ""
            label += f" ({self.other_contents} other content{plural} under this name, ranked apart)"
        return label


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def same_field(run: Run):
    """Runs comparable with `run`: same case, version, variant, content and wasmtime version."""
    return (
        (Run.case_hash == run.case_hash)
        & (Run.case_name == run.case_name)
        & (Run.case_version == run.case_version)
        & (Run.case_variant == run.case_variant)
        & (Run.wasmtime_version == run.wasmtime_version)
    )


def standing(run_id: int) -> Standing | None:
    """Rank and percentile of a correct run among the per-model bests; None otherwise."""
    run = Run.get_or_none(Run.id == run_id)
    if run is None or run.verdict != Verdict.CORRECT.value or stored_number(run.score) is None:
        return None
    others = (
        Run.select(Run.model, fn.MIN(Run.score).alias("best"))
        .where(same_field(run) & (Run.verdict == Verdict.CORRECT.value) & (Run.model != run.model))
        .group_by(Run.model)
    )
    bests = [row.best for row in others if stored_number(row.best) is not None]
    field = len(bests) + 1
    better = sum(1 for b in bests if b < run.score)
    at_least_as_good = sum(1 for b in bests if b >= run.score) + 1
    return Standing(rank=better + 1, of=field, percentile=100.0 * at_least_as_good / field)


def leaderboard(
    case_name: str, version: int | None = None, variant: str | None = None,
    wasmtime_version: str | None = None, *, content: str | None = None,
) -> Leaderboard:
    """Models ranked by best correct fuel; models with only over-ceiling bests listed apart.

    Unnamed parts of the scope come from the newest run; `content` may be a hash prefix.
    """
    named = Run.case_name == case_name
    for column, wanted in ((Run.case_version, version), (Run.case_variant, variant),
                           (Run.wasmtime_version, wasmtime_version), (Run.case_hash, content)):
        if wanted is not None and wanted != "":
            named &= column.startswith(wanted) if column is Run.case_hash else column == wanted
    latest = Run.select(Run.case_version, Run.case_variant, Run.wasmtime_version, Run.case_hash) \
        .where(named).order_by(Run.id.desc()).first()
    if latest is not None:
        version = version if version is not None else latest.case_version
        variant = variant or latest.case_variant
        wasmtime_version = wasmtime_version or latest.wasmtime_version
        content = latest.case_hash
    named_scope = (
        (Run.case_name == case_name)
        & (Run.case_version == (version or 1))
        & (Run.case_variant == (variant or "standard"))
        & (Run.wasmtime_version == (wasmtime_version or ""))
    )
    scope = named_scope & (Run.case_hash == content)
    others = Run.select(fn.COUNT(Run.case_hash.distinct())) \
        .where(named_scope & (Run.case_hash != content)).scalar() or 0
    counts = dict(
        Run.select(Run.model, fn.COUNT(Run.id))
        .where(scope & (Run.verdict != Verdict.RUNNING.value))
        .group_by(Run.model)
        .tuples()
    )
    best = _best_per_model(scope & (Run.verdict == Verdict.CORRECT.value), Run.score)
    entries = []
    leader = best[0][2] if best else None
    for i, (run_id, model, fuel, date, _pct) in enumerate(best):
        rank = i + 1 if i == 0 or fuel != best[i - 1][2] else entries[-1].rank
        entries.append(BoardEntry(rank, model, run_id, fuel, fuel / leader, counts.get(model, 0), date))
    ranked = {e.model for e in entries}
    over = [
        row for row in _best_per_model(scope & (Run.verdict == Verdict.OVER_CEILING.value),
                                       Run.stress_fuel)
        if row[1] not in ranked
    ]
    over_entries = [
        BoardEntry(0, model, run_id, fuel, fuel / leader if leader else 0.0,
                   counts.get(model, 0), date, pct)
        for run_id, model, fuel, date, pct in over
    ]
    return Leaderboard(case_name, version or 1, variant or "standard", wasmtime_version or "",
                       entries, over_entries, content or "", others)


def _best_per_model(where, column) -> list[tuple[int, str, int, datetime | None, float | None]]:
    """Each model's lowest `column` run (earliest on a tie), best first.

    Two index-friendly steps rather than a window over every row: the minimum per model
    from the covering index, then the first run that reached it.
    """
    best = (
        Run.select(Run.model.alias("m"), fn.MIN(column).alias("best"))
        .where(where & column.is_null(False))
        .group_by(Run.model)
        .alias("b")
    )
    rows = (
        Run.select(fn.MIN(Run.id), Run.model, column, fn.MIN(Run.finished), fn.MIN(Run.max_percent_over))
        .join(best, on=(Run.model == best.c.m) & (column == best.c.best))
        .where(where)
        .group_by(Run.model, column)
        .order_by(column, fn.MIN(Run.id))
        .tuples()
    )
    return [(r[0], r[1], r[2], stored_time(r[3]), stored_number(r[4])) for r in rows
            if stored_number(r[2]) is not None]  # a figure another program mangled ranks nowhere
