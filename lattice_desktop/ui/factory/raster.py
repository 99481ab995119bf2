"""Draw a factory state as a uint8 image of palette codes, with numpy only.

Each cell becomes a P×P block (P = 1, 4, 8, 16 or 32 pixels, chosen by the zoom) and
only the visible region is drawn, so an image never holds much more than the screen's
pixels. At P = 1 a belt is tinted with the colour of its leading item (a map view);
from P = 4 every item is its own square in its slot, and from P = 8 belts get rails
and a direction chevron, sources a notch, assemblers a progress arc.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from lattice_desktop.lattice.scenario import Entity, Scenario
from lattice_desktop.lattice.view import FactoryState
from lattice_desktop.ui.factory import palette as pal

SCALES = (1, 4, 8, 16, 32)
ARC_STEPS = 24


@dataclass(frozen=True)
class Region:
    """Cells [x0, x1) × [y0, y1) drawn at `scale` pixels per cell."""

    x0: int
    y0: int
    x1: int
    y1: int
    scale: int


@dataclass(frozen=True)
class Static:
    """What never changes during a run: the scenario's per-cell source types and recipe times."""

    source_type: np.ndarray  # (H, W) uint8
    recipe_time: dict[int, int]  # assembler cell -> its recipe's time

    @classmethod
    def of(cls, scenario: Scenario) -> Static:
        source_type = np.zeros(scenario.width * scenario.height, np.uint8)
        for c, s in scenario.sources.items():
            source_type[c] = s.type
        times = {c: scenario.recipes[a.recipe_id].time for c, a in scenario.assemblers.items()}
        return cls(source_type.reshape(scenario.height, scenario.width), times)


def scale_for(pixels_per_cell: float) -> int:
    """The block size for a zoom: the largest scale not much above the screen's."""
    for scale in reversed(SCALES):
        if pixels_per_cell >= scale * 0.85:
            return scale
    return 1


def lead_item(slots: np.ndarray) -> np.ndarray:
    """Per belt, the item nearest its exit (slot 3 first), 0 when empty."""
    lead = slots[..., 0].copy()
    for s in (1, 2, 3):
        lead = np.where(slots[..., s] != 0, slots[..., s], lead)
    return lead


def cell_codes(state: FactoryState, static: Static, region: Region) -> np.ndarray:
    """One code per cell: the map view, and the base every block is drawn on."""
    sl = np.s_[region.y0:region.y1, region.x0:region.x1]
    entity = state.entity[sl]
    codes = np.full(entity.shape, pal.GROUND_CODE, np.uint8)
    codes[entity == Entity.WALL] = pal.WALL
    codes[entity == Entity.SINK] = pal.SINK
    codes[entity == Entity.ASSEMBLER] = pal.ASSEMBLER
    belt = entity == Entity.BELT
    if region.scale == 1:
        codes[belt] = pal.TINT_CODE[lead_item(state.slots[sl])[belt]]
    else:
        codes[belt] = pal.BELT
    source = entity == Entity.SOURCE
    codes[source] = pal.SOURCE_CODE[static.source_type[sl][source]]
    if region.scale == 1:
        codes[source & (state.source_buffer[sl] != 0)] = pal.ITEM_CODE[static.source_type[sl][
            source & (state.source_buffer[sl] != 0)]]
        for c, (remaining, _, _) in state.assemblers.items():
            x, y = c % state.entity.shape[1] - region.x0, c // state.entity.shape[1] - region.y0
            if remaining and 0 <= x < codes.shape[1] and 0 <= y < codes.shape[0]:
                codes[y, x] = pal.ASSEMBLER_CRAFTING
    return codes


def render(state: FactoryState, static: Static, region: Region) -> np.ndarray:
    """The region as a (rows·P, cols·P) uint8 code image."""
    p = region.scale
    codes = cell_codes(state, static, region)
    if p == 1:
        return codes
    image = np.repeat(np.repeat(codes, p, axis=0), p, axis=1)
    sl = np.s_[region.y0:region.y1, region.x0:region.x1]
    entity, direction, slots = state.entity[sl], state.direction[sl], state.slots[sl]
    belt = entity == Entity.BELT
    masks = _masks(p)
    _paint(image, entity == Entity.WALL, masks["hatch"], pal.WALL_HATCH, p)
    _paint(image, entity == Entity.SINK, masks["rim"], pal.SINK_RIM, p)
    for d in range(4):
        facing = direction == d
        along = belt & facing
        if p >= 8:
            _paint(image, along, masks["rails"][d], pal.BELT_RAIL, p)
            _paint(image, along, masks["chevron"][d], pal.BELT_CHEVRON, p)
        for s in range(4):
            has = along & (slots[..., s] != 0)
            _paint(image, has, masks["slot"][d][s], pal.ITEM_CODE[slots[..., s][has]], p)
        source = (entity == Entity.SOURCE) & facing
        if p >= 8:
            _paint(image, source, masks["notch"][d], pal.NOTCH, p)
    source = entity == Entity.SOURCE
    held = state.source_buffer[sl]
    _paint(image, source & (held == 0), masks["centre"], pal.BUFFER_EMPTY, p)
    _paint(image, source & (held != 0), masks["centre"], pal.ITEM_CODE[held[source & (held != 0)]], p)
    _draw_assemblers(image, state, static, region, masks)
    return image


def _draw_assemblers(image: np.ndarray, state: FactoryState, static: Static, region: Region,
                     masks: dict) -> None:
    p, width = region.scale, state.entity.shape[1]
    for c, (remaining, output, _) in state.assemblers.items():
        x, y = c % width - region.x0, c // width - region.y0
        if not (0 <= x < region.x1 - region.x0 and 0 <= y < region.y1 - region.y0):
            continue
        block = image[y * p:(y + 1) * p, x * p:(x + 1) * p]
        block[masks["inset"]] = pal.ASSEMBLER_CRAFTING if remaining else pal.ASSEMBLER
        if p >= 8:
            time = static.recipe_time.get(c, 1)
            done = 0 if not remaining else round(ARC_STEPS * (time - remaining) / time)
            block[masks["ring"]] = pal.ARC_TRACK
            block[masks["arc"][max(0, min(ARC_STEPS, done))]] = pal.ARC
        if output:
            block[masks["centre"]] = pal.ITEM_CODE[output]


def _paint(image: np.ndarray, cells: np.ndarray, mask: np.ndarray, value, p: int) -> None:
    """Set `mask`'s pixels of every selected cell's block to `value` (scalar or per cell)."""
    ys, xs = np.nonzero(cells)
    if not len(ys):
        return
    my, mx = np.nonzero(mask)
    rows = ys[:, None] * p + my[None, :]
    cols = xs[:, None] * p + mx[None, :]
    values = value[:, None] if isinstance(value, np.ndarray) else value
    image[rows, cols] = values


@lru_cache(maxsize=8)
def _masks(p: int) -> dict:
    """Boolean P×P masks, drawn facing east and turned for the other directions."""
    v, u = (np.mgrid[0:p, 0:p] + 0.5) / p  # u across (x), v down (y), pixel centres in 0..1

    def turned(east: np.ndarray) -> list[np.ndarray]:
        # N, E, S, W: rot90 turns counter-clockwise, so east's entry side ends at the bottom.
        return [np.rot90(east, 1), east, np.rot90(east, 3), np.rot90(east, 2)]

    seg = p / 4
    gap = 1 if seg >= 3 else 0
    half = max(1.0, seg - gap) / 2
    slots = []
    for d in range(4):
        per_slot = []
        for s in range(4):
            along = (u * p >= s * seg + gap / 2) & (u * p < (s + 1) * seg - gap / 2)
            across = np.abs(v * p - p / 2) <= half
            per_slot.append(turned(along & across)[d])
        slots.append(per_slot)
    thin = max(1.0, p / 16) / p
    rails_east = (v < thin) | (v >= 1 - thin)
    chevron_east = np.abs(np.abs(v - 0.5) - (0.62 - u)) < 0.07 + 0.35 / p
    chevron_east &= (u > 0.3) & (u < 0.66) & (np.abs(v - 0.5) < 0.3)
    notch_east = (u > 1 - 0.2) & (np.abs(v - 0.5) < 0.16)
    centre = (np.abs(u - 0.5) < 0.2) & (np.abs(v - 0.5) < 0.2)
    inset = (u > thin) & (u < 1 - thin) & (v > thin) & (v < 1 - thin)
    radius = np.hypot(u - 0.5, v - 0.5)
    ring = (radius > 0.3) & (radius < 0.42)
    angle = (np.arctan2(u - 0.5, 0.5 - v) % (2 * np.pi)) / (2 * np.pi)  # 0 at north, clockwise
    arcs = [ring & (angle < k / ARC_STEPS) for k in range(ARC_STEPS + 1)]
    hatch = ((np.mgrid[0:p, 0:p].sum(axis=0)) % max(3, p // 3)) == 0
    rim = ~inset | ((radius > 0.25) & (radius < 0.25 + 1.5 / p))
    return {
        "slot": slots, "rails": turned(rails_east), "chevron": turned(chevron_east),
        "notch": turned(notch_east), "centre": centre, "inset": inset, "ring": ring,
        "arc": arcs, "hatch": hatch, "rim": rim,
    }
