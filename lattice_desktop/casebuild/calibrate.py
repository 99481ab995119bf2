"""The one rule that turns measured fuel into a case's ceiling and runways.

Fuel is deterministic, so one run of an engine per stress case is the whole measurement:
no repetitions, no noise margin, and the same figures on every machine (within one
wasmtime release line). The rule, with `Rule`'s defaults (Lattice's own):

1. Ceiling = `headroom` × the most fuel the *pace* engine needs on any stress case,
   rounded up to two significant figures: an engine of the pace engine's class with a
   somewhat worse constant still passes, and the pass line reads as a round number.
2. The largest stress case's runway R = ⌈`reading` × the most fuel the *reading* engine
   needs on any stress case × `slack` / ceiling⌉: a correct engine up to `reading` times
   slower than that engine still finishes within its budget and gets a reading.
3. Each smaller size gets `step` × R more per size step down (⌈R × (1 + step × steps)⌉):
   the multiplier shrinks as the inputs grow, since a wide budget costs more on a large
   input, while on a small one a constant factor matters less.

A case kit's case uses its reference for both engines (`case build`); the Lattice case
(`lattice/case_builder.py`) measures the pace with its fast sample (`lines`) and the reading
with its straightforward one (`reference`), with a 1% slack for the calls around the entry
that its meter (`lattice_run` alone) leaves out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """The rule's four numbers; a case states its own in kit.toml's [calibration]."""

    headroom: float = 1.5
    reading: float = 4.0
    step: float = 0.05
    slack: float = 1.0


@dataclass(frozen=True)
class Figures:
    """What the rule gives: the ceiling, and a runway per stress case (in input order)."""

    ceiling: int
    runways: tuple[int, ...]


def round_up(value: float) -> int:
    """Up to two significant figures, so the ceiling reads as a round number."""
    if value <= 0:
        return 1
    scale = 10 ** max(0, int(math.log10(value)) - 1)
    return int(math.ceil(value / scale) * scale)


def calibrate(
    sizes: Sequence[int], pace: Sequence[int], reading: Sequence[int], rule: Rule = Rule()
) -> Figures:
    """The ceiling and the runways of stress cases of these `sizes`, from the pace engine's
    and the reading engine's fuel on each (all three in the same order)."""
    if not sizes or not len(sizes) == len(pace) == len(reading):
        raise ValueError("one size, pace fuel and reading fuel per stress case")
    ceiling = round_up(max(pace) * rule.headroom)
    return Figures(ceiling, runways(sizes, reading, ceiling, rule))


def runways(
    sizes: Sequence[int], reading: Sequence[int], ceiling: int, rule: Rule = Rule()
) -> tuple[int, ...]:
    """Steps 2 and 3 of the rule: the runway of each stress case for a given ceiling."""
    largest = max(1, math.ceil(rule.reading * max(reading) * rule.slack / ceiling))
    ranked = sorted(set(sizes), reverse=True)
    # Rounded before the ceiling so that float noise (100 × 1.1 = 110.00000000000001) adds no unit.
    return tuple(math.ceil(round(largest * (1 + rule.step * ranked.index(size)), 9)) for size in sizes)
