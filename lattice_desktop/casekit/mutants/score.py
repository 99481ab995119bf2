"""Mutation scores: killed ÷ non-equivalent, for the smoke tests, the stress cases and the
whole case, and per rule — the mutants in a rule's code killed by that rule's own smoke
test(s) (a smoke test's name stands for its behaviour, as for slips)."""

from __future__ import annotations

from dataclasses import dataclass

from lattice_desktop.casekit.mutants.judge import (
    EQUIVALENT,
    KILLED_BY_SMOKE,
    KILLED_BY_STRESS,
    STILLBORN,
    Verdict,
)
from lattice_desktop.casekit.mutants.operators import Mutant
from lattice_desktop.casekit.mutants.run import MutationRun
from lattice_desktop.casekit.slips import behaviour_tests


@dataclass(frozen=True)
class Score:
    killed: int
    of: int

    @property
    def percent(self) -> float:
        return 100.0 * self.killed / self.of if self.of else 100.0

    def text(self) -> str:
        return f"{self.percent:.1f}% ({self.killed} of {self.of})"


@dataclass(frozen=True)
class RuleScore:
    rule: str
    own: tuple[str, ...]  # the smoke tests of its behaviour
    score: Score
    missed: tuple[Mutant, ...]  # non-equivalent mutants in its code its own tests pass


@dataclass(frozen=True)
class Scores:
    judged: int
    counts: dict[str, int]  # by status
    smoke: Score
    stress: Score  # killed by at least one stress case
    whole: Score
    rules: tuple[RuleScore, ...]


def judged(run: MutationRun) -> list[tuple[Mutant, Verdict]]:
    return [(m, run.verdicts[m.key]) for m in run.mutants if m.key in run.verdicts]


def scores(run: MutationRun) -> Scores:
    pairs = judged(run)
    counts: dict[str, int] = {}
    for _, v in pairs:
        counts[v.status] = counts.get(v.status, 0) + 1
    live = [(m, v) for m, v in pairs if v.status not in (EQUIVALENT, STILLBORN)]
    n = len(live)
    smoke = sum(v.status == KILLED_BY_SMOKE for _, v in live)
    stress = sum(bool(v.stress) for _, v in live)
    whole = sum(v.status in (KILLED_BY_SMOKE, KILLED_BY_STRESS) for _, v in live)
    case = run.subject.case
    rules = []
    for rule in dict.fromkeys(run.subject.rule(m) for m, _ in live if run.subject.rule(m)):
        own = behaviour_tests(case, rule)
        mine = [(m, v) for m, v in live if run.subject.rule(m) == rule]
        missed = tuple(m for m, v in mine if not set(own) & set(v.smoke))
        rules.append(RuleScore(rule, own, Score(len(mine) - len(missed), len(mine)), missed))
    order = {e.name: i for i, e in enumerate(case.smoke)}
    rules.sort(key=lambda r: order.get(r.rule, len(order)))
    return Scores(len(pairs), counts, Score(smoke, n), Score(stress, n), Score(whole, n), tuple(rules))
