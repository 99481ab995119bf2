"""Finding things on a factory at one tick: a cell by its coordinates, the cells holding an
item type, the cells of an entity kind. Plain numpy, no Qt: the Factory tab's Go-to and
Find boxes call it, and say its errors as they are."""

from __future__ import annotations

import re

import numpy as np

from lattice_desktop.errors import Location, UserError
from lattice_desktop.lattice.scenario import Scenario
from lattice_desktop.lattice.view import FactoryState
from lattice_desktop.lattice.world import Entity

ENTITY_NAMES = {e.name.lower(): e for e in Entity if e is not Entity.EMPTY}
_CELL = re.compile(r"^\s*\(?\s*(-?\d+)\s*[, ]\s*(-?\d+)\s*\)?\s*$")


class SearchError(UserError):
    """A Go-to or Find query that names nothing on this factory."""


def parse_cell(text: str, scenario: Scenario) -> int:
    """The cell index of "x,y" (or "(x, y)", "x y"), checked against the grid."""
    match = _CELL.match(text)
    where = Location("Go to")
    if match is None:
        raise SearchError(f"{text.strip()!r} is not a cell: type x,y (e.g. 12,40)", where)
    x, y = int(match.group(1)), int(match.group(2))
    w, h = scenario.width, scenario.height
    if not (0 <= x < w and 0 <= y < h):
        raise SearchError(f"({x}, {y}) is outside the {w}×{h} grid (x 0–{w - 1}, y 0–{h - 1})", where)
    return y * w + x


def item_type(text: str, scenario: Scenario) -> int | None:
    """The item type a query names: its name (the scenario's `item` lines), "type N" or N."""
    query = text.strip().lower()
    for type_, name in scenario.items.items():
        if name.lower() == query:
            return type_
    number = re.fullmatch(r"(?:type|item)?\s*(\d+)", query)
    return int(number.group(1)) if number else None


def find_cells(text: str, scenario: Scenario, state: FactoryState) -> tuple[np.ndarray, str]:
    """(cells in grid order, what was found) for an item type — on a belt, in a source's
    buffer, made by a source — or an entity kind ("belt", "sink", …)."""
    query = text.strip().lower()
    if not query:
        raise SearchError("type an item (name or type number) or an entity kind", Location("Find"))
    kind = ENTITY_NAMES.get(query.rstrip("s")) or ENTITY_NAMES.get(query)
    if kind is not None:
        return np.flatnonzero(state.entity == kind), f"{kind.name.lower()} cells"
    type_ = item_type(query, scenario)
    if type_ is None or not 0 < type_ < 256:
        kinds = ", ".join(ENTITY_NAMES)
        names = ", ".join(sorted(scenario.items.values())) or "none named"
        raise SearchError(
            f"{text.strip()!r} is neither an item (named: {names}; or a type number) nor an entity ({kinds})",
            Location("Find"),
        )
    held = (state.slots == type_).any(axis=-1) | (state.source_buffer == type_)
    made = np.zeros(scenario.width * scenario.height, bool)
    made[[c for c, s in scenario.sources.items() if s.type == type_]] = True
    name = scenario.items.get(type_, f"type {type_}")
    return np.flatnonzero(held.ravel() | made), f"cells with {name}"
