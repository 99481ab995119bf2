"""Why the first wrong tick went wrong: the rules whose decisions the submission contradicts.

At the first wrong tick t both engines agreed on the state after t - 1, so every
difference at t comes from decisions taken during t. Most differing cells only follow
others within the tick (a line stands still because the item ahead of it did, §4d); the
*roots* are the differing cells where the chain of decisions starts: an item whose own
decision decided it (a sink, an assembler's answer, a ranking, an open or closed slot) or
whose successor's cell agrees, items on a ring of differing cells, and differing cells
holding no item at t - 1. Each rule's events at t (`tracer`) that touch a root are its
hits; rules are ranked by how much more often they hit than chance would have them
(a Poisson log-likelihood ratio), so a rule deciding everywhere (items landing in slot 0)
does not outrank a rare one that hit every time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from lattice_desktop.lattice.explain.checks import consistent
from lattice_desktop.lattice.explain.conservation import BrokenLaw, check_laws
from lattice_desktop.lattice.explain.rule_text import SPEC_SENTENCE
from lattice_desktop.lattice.explain.tracer import TickTrace, TracingFactory, trace_tick
from lattice_desktop.lattice.records import as_pairs, key_cells
from lattice_desktop.lattice.world import Scenario
from lattice_desktop.work import Work

MAX_EVIDENCE = 8


@dataclass(frozen=True)
class Evidence:
    """One decisive event behind a rule: where, what the spec did, what the submission shows."""

    tick: int
    cell: tuple[int, int]
    spec: str
    submission: str

    def to_json(self) -> dict:
        return {"tick": self.tick, "cell": list(self.cell), "spec": self.spec, "submission": self.submission}

    @classmethod
    def from_json(cls, data: dict) -> Evidence:
        x, y = data["cell"]
        return cls(int(data["tick"]), (int(x), int(y)), str(data["spec"]), str(data["submission"]))


@dataclass(frozen=True)
class RuleFinding:
    rule: str
    score: float
    hits: int  # the root cells the rule's events at the tick touch
    events: int  # the rule's events at the tick, anywhere
    sentence: str  # from the spec
    evidence: tuple[Evidence, ...]

    def to_json(self) -> dict:
        return {
            "rule": self.rule,
            "score": round(self.score, 3),
            "hits": self.hits,
            "events": self.events,
            "spec": self.sentence,
            "evidence": [e.to_json() for e in self.evidence],
        }

    @classmethod
    def from_json(cls, data: dict) -> RuleFinding:
        return cls(
            str(data["rule"]),
            float(data["score"]),
            int(data["hits"]),
            int(data["events"]),
            str(data["spec"]),
            tuple(Evidence.from_json(e) for e in data["evidence"]),
        )


@dataclass(frozen=True)
class Diagnosis:
    case: str
    tick: int
    cell: tuple[int, int]  # the first differing cell
    differing_cells: int
    root_cells: int
    conservation: tuple[BrokenLaw, ...]
    rules: tuple[RuleFinding, ...]
    width: int
    summary: str = field(default="")
    explained: bool = True  # False: no rule accounts for it (the rules listed only decided nearby)

    def to_json(self) -> dict:
        return {
            "case": self.case,
            "tick": self.tick,
            "cell": list(self.cell),
            "differing_cells": self.differing_cells,
            "root_cells": self.root_cells,
            "summary": self.summary,
            "explained": self.explained,
            "conservation": [law.to_json(self.width) for law in self.conservation],
            "rules": [r.to_json() for r in self.rules],
        }

    @classmethod
    def from_json(cls, data: dict, *, width: int) -> Diagnosis:
        """A diagnosis stored with `to_json` (cells beyond the first 50 of a law are dropped)."""
        x, y = data["cell"]
        laws = tuple(
            BrokenLaw(
                str(law["law"]),
                str(law["side"]),
                str(law["text"]),
                tuple(int(cy) * width + int(cx) for cx, cy in law["cells"]),
            )
            for law in data["conservation"]
        )
        return cls(
            str(data["case"]),
            int(data["tick"]),
            (int(x), int(y)),
            int(data["differing_cells"]),
            int(data["root_cells"]),
            laws,
            tuple(RuleFinding.from_json(r) for r in data["rules"]),
            width,
            str(data["summary"]),
            bool(data["explained"]),
        )


def diagnose(
    scenario: Scenario,
    *,
    case: str,
    tick: int,
    before: np.ndarray,
    reference: np.ndarray,
    submission: np.ndarray,
    factory: TracingFactory | None = None,
    work: Work | None = None,
) -> Diagnosis:
    """The diagnosis of the first wrong tick `tick`: `before` is the state both agreed on
    after tick - 1, `reference` and `submission` the two states at `tick` (record pairs)."""
    before, reference, submission = as_pairs(before), as_pairs(reference), as_pairs(submission)
    w = scenario.width
    differing = differing_cells(reference, submission)
    if not differing:
        raise ValueError(f"the two states agree at tick {tick}: nothing to explain")
    first = min(differing)
    laws = tuple(
        check_laws(scenario, before, submission, tick, side="submission", reference=reference)
        + check_laws(scenario, before, reference, tick, side="reference")
    )
    work = work or Work()
    work.raise_if_cancelled()
    trace, _ = trace_tick(scenario, before, tick, factory)
    work.raise_if_cancelled()
    roots = root_cells(trace, differing)
    findings = rank_rules(trace, roots, scenario, before=before, reference=reference, submission=submission)
    explained = bool(findings) and not _unaccounted(findings[0], laws)
    summary = _summary(findings, laws, w, tick, explained=explained)
    return Diagnosis(
        case,
        tick,
        (first % w, first // w),
        len(differing),
        len(roots),
        laws,
        tuple(findings),
        w,
        summary,
        explained,
    )


def differing_cells(reference: np.ndarray, submission: np.ndarray) -> set[int]:
    """The cells whose records differ: a key one side lacks, or whose values differ
    (`diff_pairs` without a `RecordDiff` for each of a big map's 146,176 differing records)."""
    ref, sub = reference[:, 0], submission[:, 0]  # each side's keys sorted and unique
    common, ri, si = np.intersect1d(ref, sub, assume_unique=True, return_indices=True)
    changed = common[reference[ri, 1] != submission[si, 1]]
    one_side = np.setxor1d(ref, sub, assume_unique=True)
    return set(key_cells(np.concatenate([changed, one_side])).tolist())


def root_cells(trace: TickTrace, differing: set[int]) -> set[int]:
    """The differing cells where a chain of differing decisions starts (module docstring)."""
    cell_of, succ = trace.position_cell, trace.successor
    roots: set[int] = set()
    held_cells = set()
    for pos, c in cell_of.items():
        held_cells.add(c)
        if c not in differing:
            continue
        nxt = succ.get(pos, -1)
        if nxt < 0 or cell_of.get(nxt) not in differing:
            roots.add(c)
        target = trace.exit_target.get(pos)
        if target is not None and target in differing:
            roots.add(target)
    roots.update(c for c in differing if c not in held_cells)
    # Rings of differing cells: a walk that never leaves them comes back on itself.
    seen: set[int] = set()
    for pos, c in cell_of.items():
        if c not in differing or pos in seen or c in roots:
            continue
        walk, p = [], pos
        while p >= 0 and p not in seen and cell_of.get(p) in differing:
            seen.add(p)
            walk.append(p)
            p = succ.get(p, -1)
        if p in walk:
            roots.update(cell_of[q] for q in walk[walk.index(p) :])
    return roots


def rank_rules(
    trace: TickTrace,
    roots: set[int],
    scenario: Scenario,
    *,
    before: np.ndarray,
    reference: np.ndarray,
    submission: np.ndarray,
) -> list[RuleFinding]:
    """Rules with events on root cells, most likely first."""
    active = max(1, len(set(trace.position_cell.values())))  # cells holding an item at the start
    chance = min(1.0, len(roots) / active)
    touching = {
        rule: [(cells, what) for cells, what in events if any(c in roots for c in cells)]
        for rule, events in trace.events.items()
    }
    wanted = roots | {c for events in touching.values() for cells, _ in events for c in cells}
    ref_cells, sub_cells, pre_cells = (_by_cell(p, wanted) for p in (reference, submission, before))
    out = []
    for rule, events in trace.events.items():
        hit = [
            (cells, what)
            for cells, what in touching[rule]
            if consistent(rule, cells, what, ref_cells, sub_cells, pre_cells)
        ]
        if not hit:
            continue
        # Distinct root cells the rule's events touch, against the cells they touch at all.
        touched = {c for cells, _ in hit for c in cells if c in roots}
        expected = len({c for cells, _ in events for c in cells}) * chance
        n = len(touched)
        if n > expected:
            score = n * math.log(n / max(expected, 1e-9)) - (n - expected)
        else:  # no more often than chance: listed after those that are, by the share of roots
            score = n / max(len(roots), 1) - 1
        evidence = tuple(
            _evidence(trace.tick, cells, what, scenario, ref_cells, sub_cells, roots)
            for cells, what in hit[:MAX_EVIDENCE]
        )
        out.append(RuleFinding(rule, score, n, len(events), SPEC_SENTENCE.get(rule, ""), evidence))
    out.sort(key=lambda f: (-round(f.score, 6), f.rule in _EVERYWHERE, f.events, f.rule))
    return out


# Rules deciding at nearly every item-tick: on a tie they come after the rarer ones.
_EVERYWHERE = {"straight_belt", "chained_movement", "turn"}


def _by_cell(pairs: np.ndarray, cells: set[int]) -> dict[int, list[tuple[int, int]]]:
    """The records of these cells, by cell."""
    rows = np.isin(key_cells(pairs[:, 0]), np.fromiter(cells, np.int64, len(cells)))
    out: dict[int, list[tuple[int, int]]] = {}
    for key, value in zip(pairs[rows, 0].tolist(), pairs[rows, 1].tolist(), strict=True):
        out.setdefault((key >> 16) & 0xFFFFFF, []).append((key, value))
    return out


def describe_cell(records: list[tuple[int, int]]) -> str:
    """A cell's records in words: "slot 0: 2, slot 3: 1", "buffer 3", "counts 2×5"."""
    parts = []
    for key, value in sorted(records):
        kind, low = key >> 56, key & 0xFFFF
        if kind == 1:
            parts.append(f"slot {low >> 8}: type {low & 0xFF}")
        elif kind == 2:
            parts.append(f"buffer: type {low & 0xFF}")
        elif kind == 3:
            parts.append(f"{value} of type {low & 0xFF} counted")
        elif kind == 4:
            parts.append(f"remaining {low}")
        elif kind == 5:
            parts.append(f"output: type {low & 0xFF}")
        elif kind == 6:
            parts.append(f"buffer {value} of type {low & 0xFF}")
    return ", ".join(parts) or "nothing"


def _evidence(tick, cells, what, scenario, ref_cells, sub_cells, roots) -> Evidence:
    w = scenario.width
    where = next((c for c in cells if c in roots), cells[0])
    at = cells[0]
    spec = f"at ({at % w}, {at // w}) the spec {what}"
    mine, theirs = sub_cells.get(where, []), ref_cells.get(where, [])
    shown = f"({where % w}, {where // w}) holds {describe_cell(mine)}"
    if sorted(mine) != sorted(theirs):
        shown += f" where the spec has {describe_cell(theirs)}"
    else:
        shown += ", as the spec has"
    return Evidence(tick, (where % w, where // w), spec, shown)


# Rules a slip of which changes how many items there are (a production, a count, a craft).
_CHANGE_TOTALS = {
    "source_period_and_full_buffer",
    "sink_counting",
    "assembler_capacity",
    "assembler_priority",
    "crafting_timing",
    "assembler_refuses_unneeded_type",
}


def _unaccounted(top: RuleFinding, laws: tuple[BrokenLaw, ...]) -> bool:
    """Items appeared or vanished on the submission's side, and the likeliest rule only moves
    items (a slip of it puts an item elsewhere, never makes or loses one)."""
    return top.rule not in _CHANGE_TOTALS and any(
        law.side == "submission" and law.law == "items_conserved" for law in laws
    )


def _summary(
    findings: list[RuleFinding], laws: tuple[BrokenLaw, ...], width: int, tick: int, *, explained: bool
) -> str:
    broken = [law for law in laws if law.side == "submission"]
    if findings and explained:
        top = findings[0]
        e = top.evidence[0]
        text = f"Most likely broken: {top.rule} (tick {tick}, cell ({e.cell[0]}, {e.cell[1]}))."
        if broken:
            text += " Also: " + "; ".join(law.text for law in broken) + "."
        return text
    if broken:
        text = "No rule of the spec explains it: " + "; ".join(law.text for law in broken) + "."
        return text + (" The rules listed only decided nearby." if findings else "")
    return "No rule of the spec explains it: no rule's decisive event touches the cells where it starts."
