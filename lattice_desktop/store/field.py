"""The field: where a correct run stands among every model's best, and the leaderboard.

Each model counts once, at its lowest fuel. The run being looked at stands for its
own model (even when the model has a better run), so a slower rerun sees where it lands.
Fuel is only comparable within one wasmtime version, so the field is per version too,
and only on the same case content (manifest, inputs, expected answers): a case that
shares a name but not its content is another field.

A case name's default board is its registered content (`case_identity`: the bundled case
of that name), else the content of its first run. A submission may ship a case of its own
under any name and version; graded last, it must not become what `leaderboard NAME` shows,
and wherever its board is shown it carries the case's identity: unregistered content says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from peewee import SQL, Column, Expression, ModelAlias, Select, ValuesList, fn

from lattice_desktop.manifest.case_identity import CaseIdentity, current_registered, identify
from lattice_desktop.outcomes import Verdict
from lattice_desktop.store.base import tuples
from lattice_desktop.store.hidden_runs import visible
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
    def identity(self) -> CaseIdentity:
        return identify(self.case_name, self.version, self.variant, self.content)

    @property
    def unregistered(self) -> bool:
        """This board ranks a content other than the registered one of its name and version."""
        return not self.identity.registered

    @property
    def content_label(self) -> str:
        """Which content this board ranks: registered, or the identity's note; and how many
        other contents under the same name, version and variant are ranked on boards of their own."""
        label = self.identity.note or f"registered content {self.content[:12]}"
        if self.other_contents:
            plural = "s" if self.other_contents != 1 else ""
            return label + f" ({self.other_contents} other content{plural} under this name, ranked apart)"
        return label + (", ranked apart" if self.unregistered else "")


# A leaderboard's scope: case name, version, variant, wasmtime version, content hash
# (None for runs stored before content was recorded).
Key = tuple[str, int, str, str, str | None]


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def same_field(run: Run) -> Expression:
    """Runs comparable with `run`: same case, version, variant, content and wasmtime version."""
    return (
        (Run.case_hash == run.case_hash)
        & (Run.case_name == run.case_name)
        & (Run.case_version == run.case_version)
        & (Run.case_variant == run.case_variant)
        & (Run.wasmtime_version == run.wasmtime_version)
        & visible()
    )


def standing(run_id: int) -> Standing | None:
    """Rank and percentile of a correct run among the per-model bests; None otherwise."""
    run = Run.get_or_none(Run.id == run_id)
    if run is None or run.verdict != Verdict.CORRECT.value or stored_number(run.score) is None:
        return None
    others = tuples(
        Run.select(Run.model, fn.MIN(Run.score))
        .where(same_field(run) & (Run.verdict == Verdict.CORRECT.value) & (Run.model != run.model))
        .group_by(Run.model)
    )
    bests = [best for _model, best in others if stored_number(best) is not None]
    field = len(bests) + 1
    better = sum(1 for b in bests if b < run.score)
    at_least_as_good = sum(1 for b in bests if b >= run.score) + 1
    return Standing(rank=better + 1, of=field, percentile=100.0 * at_least_as_good / field)


def leaderboard(
    case_name: str,
    version: int | None = None,
    variant: str | None = None,
    wasmtime_version: str | None = None,
    *,
    content: str | None = None,
) -> Leaderboard:
    """Models ranked by best correct fuel; models with only over-ceiling bests listed apart.

    Without `content`, the board is the name's registered content, else its first graded one;
    the other unnamed parts come from its newest run. `content` may be a hash prefix.
    One pass over the scope's covering index gives each model's run count and best score;
    then only the runs that reached a best are read (one seek per model, not every run).
    """
    # The newest run of the case picks what is not given, read from the newest id down:
    # comparing `column || ''` keeps SQLite off the indexes, which would sort every run of
    # the case first.
    named = (Run.case_name.concat("") == case_name) & visible()
    for column, wanted in (
        (Run.case_version, version),
        (Run.case_variant, variant),
        (Run.wasmtime_version, wasmtime_version),
        (Run.case_hash, content),
    ):
        if wanted is not None and wanted != "":
            named &= column.concat("").startswith(wanted) if column is Run.case_hash else column == wanted
    default = _default_content(case_name, version, variant)
    if content is None and default is not None:
        version, variant, content = default
        named &= (Run.case_version == version) & (Run.case_variant == variant) & (Run.case_hash == content)
    latest = (
        Run.select(Run.case_version, Run.case_variant, Run.wasmtime_version, Run.case_hash)
        .where(named)
        .order_by(Run.id.desc())
        .first()
    )
    if latest is not None:
        version = version if version is not None else latest.case_version
        variant = variant or latest.case_variant
        wasmtime_version = wasmtime_version or latest.wasmtime_version
        content = latest.case_hash
    version, variant, wasmtime_version = version or 1, variant or "standard", wasmtime_version or ""
    key = (case_name, version, variant, wasmtime_version, content)
    scope = _in_scope(Run, key)
    counts: dict[str, int] = {}
    best: dict[str, int] = {}
    over_only: set[str] = set()
    tally = (
        Run.select(Run.verdict, Run.model, fn.COUNT(SQL("*")), fn.MIN(Run.score))
        .where(scope)
        .group_by(Run.verdict, Run.model)
    )
    for verdict, model, count, lowest in Run._meta.database.execute(tally).fetchall():  # plain rows
        if Verdict.stored(verdict).counted:  # not running, not a failed build
            counts[model] = counts.get(model, 0) + count
        if verdict == Verdict.CORRECT.value and stored_number(lowest) is not None:
            best[model] = lowest
        elif verdict == Verdict.OVER_CEILING.value:
            over_only.add(model)
    over_only -= best.keys()
    ranked = _first_runs(key, Verdict.CORRECT, "score", best)
    entries: list[BoardEntry] = []
    leader = ranked[0][2] if ranked else 0
    for i, (run_id, model, fuel, date, _pct) in enumerate(ranked):
        rank = i + 1 if i == 0 or fuel != ranked[i - 1][2] else entries[-1].rank
        entries.append(BoardEntry(rank, model, run_id, fuel, fuel / leader, counts.get(model, 0), date))
    over_entries = []
    if over_only:
        lowest_fuel: dict[str, int] = dict(
            tuples(
                Run.select(Run.model, fn.MIN(Run.stress_fuel))
                .where(
                    scope
                    & (Run.verdict == Verdict.OVER_CEILING.value)
                    & Run.model.in_(sorted(over_only))
                    & Run.stress_fuel.is_null(False)
                )
                .group_by(Run.model)
            )
        )
        over_entries = [
            BoardEntry(
                0, model, run_id, fuel, fuel / leader if leader else 0.0, counts.get(model, 0), date, pct
            )
            for run_id, model, fuel, date, pct in _first_runs(
                key, Verdict.OVER_CEILING, "stress_fuel", lowest_fuel
            )
        ]
    return Leaderboard(
        case_name,
        version,
        variant,
        wasmtime_version,
        entries,
        over_entries,
        content or "",
        _other_contents(key),
    )


def unregistered_note(case_name: str, version: int, variant: str, content: str | None) -> str | None:
    """The identity's note when `content` is not the registered content of its name, version
    and variant (`CaseIdentity.note`); None when it is."""
    return identify(case_name, version, variant, content).note or None


def _default_content(
    case_name: str, version: int | None = None, variant: str | None = None
) -> tuple[int, str, str | None] | None:
    """(version, variant, content) a case name means by default: its registered case (when
    `version` and `variant` are its own or not given), else the content of the first run
    graded under the name (and `version`/`variant` when given; None for a run stored before
    content was recorded), never the newest: a case shipped later must not take the board."""
    registered = current_registered(case_name)
    if registered is not None and version in (None, registered[0]) and variant in (None, "", registered[1]):
        return registered
    named = Run.case_name == case_name
    if version is not None:
        named &= Run.case_version == version
    if variant:
        named &= Run.case_variant == variant
    first = (
        Run.select(Run.case_version, Run.case_variant, Run.case_hash).where(named).order_by(Run.id).first()
    )
    return None if first is None else (first.case_version, first.case_variant, first.case_hash)


def _other_contents(key: Key) -> int:
    """How many other contents have runs under the key's name, version, variant and wasmtime
    version: one index seek per content (the next hash after the last), not a scan of runs."""
    case_name, version, variant, wasmtime_version, content = key
    named = (
        (Run.case_name == case_name)
        & (Run.case_version == version)
        & (Run.case_variant == variant)
        & (Run.wasmtime_version == wasmtime_version)
    )
    count, after = 0, ""
    while (
        found := Run.select(fn.MIN(Run.case_hash)).where(named & (Run.case_hash > after)).scalar()
    ) is not None:
        count += found != content
        after = found
    return count


def _in_scope(table: type[Run] | ModelAlias[Run], key: Key) -> Expression:
    """`table`'s runs of one case, version, variant, wasmtime version and content."""
    case_name, version, variant, wasmtime_version, content = key
    return (
        (table.case_name == case_name)
        & (table.case_version == version)
        & (table.case_variant == variant)
        & (table.wasmtime_version == wasmtime_version)
        & (table.case_hash == content)
        & visible(table)
    )


def _first_runs(
    key: Key, verdict: Verdict, column: str, best: dict[str, int]
) -> list[tuple[int, str, int, datetime | None, float | None]]:
    """For each model, its earliest run with `verdict` whose `column` is `best[model]`;
    best first. One index seek per model (a correlated MIN over the full index key), so
    the cost follows the number of models, not of runs."""
    if not best:
        return []
    wanted = ValuesList(list(best.items()), alias="best")
    other = Run.alias("other")
    first_id = other.select(fn.MIN(other.id)).where(
        _in_scope(other, key)
        & (other.verdict == verdict.value)
        & (Column(other, "model") == wanted.c.column1)  # (`other.model` is the class)
        & (getattr(other, column) == wanted.c.column2)
    )
    value = getattr(Run, column)
    rows = tuples(
        Run.select(Run.id, Run.model, value, Run.finished, Run.max_percent_over)
        .where(Run.id.in_(Select([wanted], [first_id])))
        .order_by(value, Run.id)
    )
    return [
        (r[0], r[1], r[2], stored_time(r[3]), stored_number(r[4]))
        for r in rows
        if stored_number(r[2]) is not None
    ]  # a figure another program mangled ranks nowhere
