"""Conservation laws between tick t-1 and t: no item appears or vanishes.

Every item is somewhere: on a belt, in a source's buffer, in an assembler's buffer or
output, or counted by a sink. From one tick to the next the total of each type changes
only by what the spec makes and uses: one item for each source due with an empty buffer
(phase 1), minus the inputs of each craft started (phase 3), plus each product delivered.
`check_laws` checks that for one side's records (the submission's or the reference's),
and that sinks never lose counts and assemblers hold only what their recipe needs.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from lattice_desktop.lattice.records import key_cells
from lattice_desktop.lattice.world import BELT_DIRS, Scenario


@dataclass(frozen=True)
class BrokenLaw:
    """A conservation law one side's state breaks between tick - 1 and tick."""

    law: str  # "items_conserved", "sinks_never_lose", "assembler_holds_what_it_needs"
    side: str  # "submission" or "reference"
    text: str  # one sentence, with the counts and where
    cells: tuple[int, ...]  # where it shows (cells of the grid), at most a few thousand

    def to_json(self, width: int) -> dict:
        return {
            "law": self.law,
            "side": self.side,
            "text": self.text,
            "cells": [[c % width, c // width] for c in self.cells[:50]],
        }


def item_totals(pairs: np.ndarray) -> Counter[int]:
    """Items of each type anywhere in these records (belts, buffers, outputs, sink counts)."""
    keys, values = pairs[:, 0].astype(np.uint64), pairs[:, 1].astype(np.uint64)
    kinds = keys >> np.uint64(56)
    types = (keys & np.uint64(0xFF)).astype(np.int64)
    counted = np.where(np.isin(kinds, [3, 6]), values, np.isin(kinds, [1, 2, 5]).astype(np.uint64))
    sums = np.bincount(types, weights=counted.astype(np.float64), minlength=256)  # exact below 2**53
    return Counter({k: int(n) for k, n in enumerate(sums.tolist()) if n})


def expected_change(scenario: Scenario, before: np.ndarray, after: np.ndarray, tick: int) -> Counter[int]:
    """How the spec changes each type's total at `tick`: sources due with an empty buffer
    make one; crafts started at `tick` (remaining = the recipe's time in `after`) use their
    inputs; assemblers with 1 tick remaining before deliver their product."""
    change: Counter[int] = Counter()
    full = set(_kind_cells(before, 2).tolist())
    for c, source in scenario.sources.items():
        if c not in full and (tick - 1) % source.period == 0:
            change[source.type] += 1
    for pairs, sign in ((before, 0), (after, 1)):
        keys = pairs[:, 0].astype(np.uint64)
        rows = np.nonzero((keys >> np.uint64(56)) == np.uint64(4))[0]
        for key in keys[rows].tolist():
            c, remaining = (key >> 16) & 0xFFFFFF, key & 0xFFFF
            recipe = scenario.recipes[scenario.assemblers[c].recipe_id]
            if sign == 0 and remaining == 1:
                change[recipe.product] += 1
            elif sign == 1 and remaining == recipe.time:
                for k, n in recipe.inputs:
                    change[k] -= n
    return change


def check_laws(
    scenario: Scenario,
    before: np.ndarray,
    after: np.ndarray,
    tick: int,
    *,
    side: str,
    reference: np.ndarray | None = None,
) -> list[BrokenLaw]:
    """The laws `after` (one side's records at `tick`) breaks, given `before` (tick - 1).
    `reference`: the reference's records at `tick`, to say where items went missing."""
    broken: list[BrokenLaw] = []
    got = item_totals(after)
    had = item_totals(before)
    change = expected_change(scenario, before, after, tick)
    lost = gained = 0
    types_lost, types_gained = [], []
    for k in sorted(set(got) | set(had) | set(change)):
        delta = got[k] - had[k] - change[k]
        if delta < 0:
            lost -= delta
            types_lost.append(k)
        elif delta > 0:
            gained += delta
            types_gained.append(k)
    if lost or gained:
        where = _where(scenario, after, reference) if reference is not None else ("", ())
        parts = []
        if lost:
            parts.append(f"{lost:,} item{'s' if lost != 1 else ''} (type {_list(types_lost)}) vanished")
        if gained:
            parts.append(f"{gained:,} item{'s' if gained != 1 else ''} (type {_list(types_gained)}) appeared")
        broken.append(BrokenLaw("items_conserved", side, " and ".join(parts) + where[0], where[1]))
    sinks_before, sinks_after = _sink_counts(before), _sink_counts(after)
    fell = [c for (c, k), n in sinks_before.items() if sinks_after.get((c, k), 0) < n]
    if fell:
        broken.append(
            BrokenLaw(
                "sinks_never_lose", side, f"{len(fell):,} sink counts went down", tuple(sorted(set(fell)))
            )
        )
    over = _overfull(scenario, after)
    if over:
        broken.append(
            BrokenLaw(
                "assembler_holds_what_it_needs",
                side,
                f"{len(over):,} assemblers hold a type their recipe does not use, "
                "or more than twice its count",
                tuple(over),
            )
        )
    return broken


def _kind_cells(pairs: np.ndarray, kind: int) -> np.ndarray:
    keys = pairs[:, 0].astype(np.uint64)
    return key_cells(keys[(keys >> np.uint64(56)) == np.uint64(kind)])


def _sink_counts(pairs: np.ndarray) -> dict[tuple[int, int], int]:
    keys = pairs[:, 0].astype(np.uint64)
    rows = np.nonzero((keys >> np.uint64(56)) == np.uint64(3))[0]
    return {
        ((key >> 16) & 0xFFFFFF, key & 0xFF): value
        for key, value in zip(keys[rows].tolist(), pairs[rows, 1].tolist(), strict=True)
    }


def _overfull(scenario: Scenario, pairs: np.ndarray) -> list[int]:
    keys = pairs[:, 0].astype(np.uint64)
    rows = np.nonzero((keys >> np.uint64(56)) == np.uint64(6))[0]
    out = set()
    for key, value in zip(keys[rows].tolist(), pairs[rows, 1].tolist(), strict=True):
        c, k = (key >> 16) & 0xFFFFFF, key & 0xFF
        caps = dict(scenario.recipes[scenario.assemblers[c].recipe_id].inputs)
        if k not in caps or value > 2 * caps[k]:
            out.add(c)
    return sorted(out)


def _per_cell_items(pairs: np.ndarray) -> Counter[int]:
    keys = pairs[:, 0].astype(np.uint64)
    kinds = keys >> np.uint64(56)
    rows = np.isin(kinds, [1, 2, 5])
    return Counter(key_cells(keys[rows]).tolist())


def _where(scenario: Scenario, after: np.ndarray, reference: np.ndarray) -> tuple[str, tuple[int, ...]]:
    """Where the side holds fewer (or more) items than the reference: a phrase and the cells."""
    mine, theirs = _per_cell_items(after), _per_cell_items(reference)
    short = sorted(c for c in theirs if mine.get(c, 0) < theirs[c])
    extra = sorted(c for c in mine if mine[c] > theirs.get(c, 0))
    cells = short or extra
    if not cells:
        return "", ()
    belts = [c for c in cells if scenario.grid[c] in BELT_DIRS]
    lines = count_lines(scenario, belts)
    what = "fewer" if short else "more"
    phrase = f"; {what} items than the reference's in {len(cells):,} cells"
    if belts:
        phrase += f", on {lines:,} line{'s' if lines != 1 else ''} of belts"
    return phrase, tuple(cells)


def count_lines(scenario: Scenario, belts: list[int]) -> int:
    """How many lines (belts chained exit to slot 0) these belt cells form."""
    w, h = scenario.width, scenario.height
    inside = set(belts)
    parent = {c: c for c in belts}

    def root(c: int) -> int:
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    for c in belts:
        d = BELT_DIRS[scenario.grid[c]]
        x, y = c % w + d.dx, c // w + d.dy
        t = y * w + x
        if 0 <= x < w and 0 <= y < h and t in inside:
            parent[root(c)] = root(t)
    return len({root(c) for c in belts})


def _list(types: list[int]) -> str:
    shown = ", ".join(str(k) for k in types[:5])
    return shown + (", …" if len(types) > 5 else "")
