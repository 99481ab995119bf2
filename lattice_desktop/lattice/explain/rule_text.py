"""One sentence of the spec (lattice-v1.md) for each rule, by the smoke test named after it."""

from __future__ import annotations

SPEC_SENTENCE: dict[str, str] = {
    "straight_belt": (
        "§2: a belt has 4 slots; items flow 0→1→2→3, and an item leaving a cell enters the next "
        "belt's slot 0 (§3)."
    ),
    "turn": ("§4c: slot 0 of a belt takes items from behind it and from its left and right neighbours."),
    "compression_behind_blocked_exit": (
        "§4d: a slot is open when it is empty at the start of the tick, so items close up behind "
        "a slot 3 item that stays."
    ),
    "chained_movement": (
        "§4d: a slot is open when it is empty at the start of the tick, or its item moves this tick."
    ),
    "side_load_priority": (
        "§4c: contenders are ranked behind B first, then B's left neighbour, then B's right; only"
        " the highest-ranked one holding an item is the candidate."
    ),
    "opposite_belt_refused": (
        "§3: a target belt facing exactly opposite to the exit's direction never takes the item."
    ),
    "ring_rotation": (
        "§4d: resolved as the greatest fixed point, a closed ring of full slots, each the "
        "candidate of the next, rotates as a whole."
    ),
    "jammed_ring": (
        "§4c/§4d: a ring stands still when a higher-ranked feeder holds an item, for then the "
        "ring's own item is not the candidate."
    ),
    "source_period_and_full_buffer": (
        "§4 phase 1: a source gets an item when its buffer is empty and (t − 1) mod p = 0; a full"
        " buffer skips that production, nothing is queued."
    ),
    "sink_counting": (
        "§4a: a move into a sink always succeeds, and the sink adds one to its count for each "
        "item it received."
    ),
    "assembler_capacity": (
        "§4b: an offer is accepted when buffer[k] at the start of the tick plus the items of type"
        " k accepted earlier this tick is below 2·count[k]."
    ),
    "assembler_priority": (
        "§4b: the exits targeting an assembler are taken in priority order of their cell: the "
        "neighbour to the N first, then E, S, W."
    ),
    "crafting_timing": (
        "§4 phase 3: a craft starts only when remaining = 0 and output = 0 and every input is in the buffer."
    ),
    "grid_edge": ("§3: an exit whose target is outside the grid never moves; the item stays."),
    "assembler_refuses_unneeded_type": (
        "§2/§4b: an assembler needs a type only when its recipe uses it; other offers are "
        "refused, and refusing one does not stop it taking the next."
    ),
}
