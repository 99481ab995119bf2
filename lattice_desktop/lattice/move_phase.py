"""Spec §4d over whole arrays: which items move, as the greatest fixed point.

`rules.Factory` finds, for every held item at once, its *successor* (§4a–§4c): the
position of the item in the full slot it is the candidate for, or FREE / BLOCKED when
its fate hangs on no other item. This module settles the rest. Each item has at most one
successor and each full slot at most one candidate, so the items form disjoint chains and
rings. An item on a chain shares the fate of the chain's end (FREE: it moves; BLOCKED:
it stays); the items of a ring of full slots, each the candidate of the next, all move:
by the greatest fixed point the ring rotates as a whole.

A chain can be thousands of slots long (a jammed belt line), so instead of walking it
item by item every item looks twice as far ahead each round (pointer jumping): after
round r an item knows its fate if its chain's end lies within 2^r steps. While chains are
left, each round settles some item (a chain holds an item at every distance from its end),
so a round that settles none leaves only rings.
"""

from __future__ import annotations

import numpy as np

# `Factory._successors`'s answers when an item's fate does not hang on another item's.
FREE, BLOCKED = -1, -2
# The fate of each position after phase 2 (`Factory._move` returns one per position).
EMPTY, MOVED, STAYED = 0, 1, 2


def greatest_fixed_point(held: np.ndarray, successor: np.ndarray, size: int) -> np.ndarray:
    """The fate (EMPTY, MOVED or STAYED) of each of `size` positions, given the held
    positions, in increasing order, and the successor of each (a position, FREE or BLOCKED).
    As §4c has it, an item inside a belt (a position not ending in 3) that has a successor
    has the item in the next slot."""
    # Items are numbered by their place in `held`; an item decided alone is its own successor.
    count = held.size
    items = np.arange(count, dtype=np.int32)
    number = np.zeros(size, np.int32)
    number[held] = items
    chained = successor >= 0
    ahead = items.copy()
    ahead[chained] = number[successor[chained]]
    decided = np.full(count, EMPTY, np.int8)
    decided[successor == FREE] = MOVED
    decided[successor == BLOCKED] = STAYED
    # Inside a belt an item's successor is the item in the next slot, the next item in
    # `held`; so an item first looks past those, to the first exit (a position ending in 3)
    # or decided item at or after its successor.
    stop = ~chained | (held & 3 == 3)
    first_stop = np.minimum.accumulate(np.where(stop, items, count)[::-1])[::-1]
    ahead = first_stop[ahead]
    # Then pointer jumping between the exits, whose fate the items behind them share.
    waiting = np.flatnonzero(chained & stop)
    while waiting.size:
        known = decided[ahead[waiting]]
        settled = known != EMPTY
        if not settled.any():
            break  # what is left lies on rings
        decided[waiting[settled]] = known[settled]
        waiting = waiting[~settled]
        ahead[waiting] = ahead[ahead[waiting]]  # look twice as far ahead
    decided[waiting] = MOVED  # §4d: a ring of full slots rotates
    fate = np.zeros(size, np.int8)
    fate[held] = decided[ahead]  # an exit's `ahead` shares its fate, as every item's does
    return fate


def fates(fate: np.ndarray) -> dict[int, int]:
    """Each held position's fate as position -> 1 (moved) or 0 (stayed), for readers that
    look at one tick item by item (the explain tracer)."""
    held = np.flatnonzero(fate)
    return dict(zip(held.tolist(), (fate[held] == MOVED).astype(int).tolist(), strict=True))
