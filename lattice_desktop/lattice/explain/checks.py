"""Whether the submission's state at a rule's event could come from a slip of that rule.

A rule's event at a root cell is evidence only if what the submission shows there is what
a different decision by that rule would leave: an item in another slot (where items land),
a side-load that did not come in, another contender moved, an item still where it was (the
items behind a stuck exit), a count or a craft that differs. An event the submission's state
contradicts is dropped from the rule's hits.
"""

from __future__ import annotations

Records = list[tuple[int, int]]


def consistent(
    rule: str, cells: tuple[int, ...], what: str, ref_cells: dict, sub_cells: dict, pre_cells: dict
) -> bool:
    """Whether the submission's state at an event's cells could come from a slip of `rule`
    there (False: the rule decided there, but the submission did not decide otherwise)."""
    at = cells[0]
    mine, theirs = sorted(sub_cells.get(at, [])), sorted(ref_cells.get(at, []))

    def differs(c: int) -> bool:
        return sorted(sub_cells.get(c, [])) != sorted(ref_cells.get(c, []))

    def stayed(c: int) -> bool:  # an item the spec moved on is still where it was
        before, ref = set(pre_cells.get(c, [])), set(ref_cells.get(c, []))
        return any(r[0] >> 56 == 1 and r in before and r not in ref for r in sub_cells.get(c, []))

    if rule == "straight_belt":  # the same items in the cell, in other slots
        return _types(mine) == _types(theirs) and mine != theirs
    if rule == "turn":  # the side-load did not come in, or came in otherwise
        return any(differs(c) for c in cells)
    if rule == "side_load_priority":  # another contender moved
        return any(differs(c) for c in cells[1:])
    if rule == "compression_behind_blocked_exit":
        return any(stayed(c) for c in cells)
    if rule == "chained_movement":  # (a train of one type that stands still shows only at its ends)
        return any(differs(c) for c in cells)
    if rule == "grid_edge":  # the item left the grid's edge
        return _items(mine) < _items(theirs) or any(differs(c) for c in cells[1:])
    if rule == "sink_counting":
        return mine != theirs
    if rule == "assembler_capacity":  # more or fewer taken than there was room for
        return _buffered(mine) != _buffered(theirs)
    if rule == "assembler_priority":  # as many taken, from other sides
        return _buffered(mine) == _buffered(theirs) and any(differs(c) for c in cells[1:])
    if rule == "source_period_and_full_buffer":  # an item more (or, for a due one, fewer) there
        mine_n = sum(_items(sub_cells.get(c, [])) for c in cells)
        theirs_n = sum(_items(ref_cells.get(c, [])) for c in cells)
        return mine_n < theirs_n if what.startswith("makes an item") else mine_n > theirs_n
    if rule == "crafting_timing":  # the craft's countdown or output differs
        return _craft_state(mine) != _craft_state(theirs)
    if rule == "assembler_refuses_unneeded_type":  # an unneeded type kept, or the offers' fates differ
        caps = {key & 0xFF for key, _ in theirs if key >> 56 == 6}
        odd = any(key >> 56 == 6 and (key & 0xFF) not in caps and (key, v) not in theirs for key, v in mine)
        return odd or any(differs(c) for c in cells[1:])
    return True


def _types(records: list[tuple[int, int]]) -> list[int]:
    return sorted(key & 0xFF for key, _ in records if key >> 56 == 1)


def _items(records: list[tuple[int, int]]) -> int:
    return sum(1 for key, _ in records if key >> 56 in (1, 2, 5))


def _craft_state(records: list[tuple[int, int]]) -> list[tuple[int, int]]:
    return sorted(r for r in records if r[0] >> 56 in (4, 5))


def _buffered(records: list[tuple[int, int]]) -> int:
    return sum(value for key, value in records if key >> 56 == 6)
