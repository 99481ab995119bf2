"""Draw a factory state as a uint8 image of palette codes, with numpy only.

Each cell becomes a P×P block (P = 1, 4, 8, 16 or 32 pixels, chosen by the zoom) and
only the visible region is drawn, so an image never holds much more than the screen's
pixels. At P = 1 a belt is tinted with the colour of its leading item (a map view);
from P = 4 every item is its own square in its slot, and from P = 8 belts get rails
and a direction chevron, sources a notch, assemblers a progress arc.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lattice_desktop.lattice.assembler_table import AssemblerTable
from lattice_desktop.lattice.scenario import Entity, Scenario
from lattice_desktop.lattice.view import FactoryState, lead_item, occupied
from lattice_desktop.ui.factory import palette as pal
from lattice_desktop.ui.factory.cell_masks import ARC_STEPS, cell_masks, mask_boxes

SCALES = (1, 4, 8, 16, 32)


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


def cell_codes(state: FactoryState, static: Static, region: Region) -> np.ndarray:
    """One code per cell: the map view, and the base every block is drawn on."""
    sl = np.s_[region.y0 : region.y1, region.x0 : region.x1]
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
        codes[source & (state.source_buffer[sl] != 0)] = pal.ITEM_CODE[
            static.source_type[sl][source & (state.source_buffer[sl] != 0)]
        ]
        for _, x, y, remaining, _ in _assemblers_in(state, region):
            if remaining:
                codes[y, x] = pal.ASSEMBLER_CRAFTING
    return codes


def _assemblers_in(state: FactoryState, region: Region) -> list[tuple[int, int, int, int, int]]:
    """(cell, x, y, remaining, output) of each assembler inside `region`, x and y from its
    corner: picked with numpy, since a 2048² factory holds tens of thousands."""
    cells, remaining, output = state.assembler_arrays
    width = state.entity.shape[1]
    x, y = cells % width - region.x0, cells // width - region.y0
    inside = (x >= 0) & (y >= 0) & (x < region.x1 - region.x0) & (y < region.y1 - region.y0)
    picked = (a[inside].tolist() for a in (cells, x, y, remaining, output))
    return list(zip(*picked, strict=True))


def render(state: FactoryState, static: Static, region: Region) -> np.ndarray:
    """The region as a (rows·P, cols·P) uint8 code image."""
    p = region.scale
    codes = cell_codes(state, static, region)
    if p == 1:
        return codes
    image = np.repeat(np.repeat(codes, p, axis=0), p, axis=1)
    sl = np.s_[region.y0 : region.y1, region.x0 : region.x1]
    entity, direction, slots = state.entity[sl], state.direction[sl], state.slots[sl]
    belt = entity == Entity.BELT
    masks = cell_masks(p)
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


def _draw_assemblers(
    image: np.ndarray, state: FactoryState, static: Static, region: Region, masks: dict
) -> None:
    p = region.scale
    for c, x, y, remaining, output in _assemblers_in(state, region):
        block = image[y * p : (y + 1) * p, x * p : (x + 1) * p]
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


def argb_palette() -> np.ndarray:
    """`pal.LUT` as 0xAARRGGBB words, what QImage.Format_RGB32 reads."""
    lut = pal.LUT.astype(np.uint32)
    return (lut[:, 3] << 24) | (lut[:, 0] << 16) | (lut[:, 1] << 8) | lut[:, 2]


class Rasterizer:
    """Draws states of one scenario exactly like `render`, reusing buffers between frames.

    `colours` maps codes to what is written (uint8 identity: codes, like `render`; the
    `argb_palette()`: ARGB32 pixels). The returned image is overwritten by the next call.
    """

    def __init__(
        self, static: Static, grid: tuple[np.ndarray, np.ndarray], colours: np.ndarray | None = None
    ) -> None:
        self.static = static
        self.entity, self.direction = grid
        self.height, self.width = self.entity.shape
        self.colours = np.arange(256, dtype=np.uint8) if colours is None else colours
        c = self.colours
        self._item, self._tint = c[pal.ITEM_CODE], c[pal.TINT_CODE]
        self._crafting, self._arc, self._track = c[pal.ASSEMBLER_CRAFTING], c[pal.ARC], c[pal.ARC_TRACK]
        cells = np.sort(np.fromiter(static.recipe_time.keys(), np.int64, len(static.recipe_time)))
        self._asm_cells = cells
        self._asm_time = np.array([static.recipe_time[int(x)] for x in cells], np.int64)
        # Cell classes for the still layer: (entity, direction, source type) -> 0..n-1.
        key = (
            (self.entity.astype(np.int64) << 16)
            | (self.direction.astype(np.int64) << 8)
            | static.source_type.astype(np.int64)
        )
        uniques, inverse = np.unique(key.reshape(-1), return_inverse=True)
        self._class = inverse.reshape(self.entity.shape).astype(np.int32)
        first = np.zeros(len(uniques), np.int64)
        first[inverse[::-1]] = np.arange(inverse.size - 1, -1, -1)  # first cell of each class
        self._class_cell = first
        self._tiles: dict[int, np.ndarray] = {}
        self._still_key: Region | None = None
        self._still: np.ndarray | None = None
        self._out: np.ndarray | None = None
        self._asm_key: tuple[int, int] | None = None
        self._asm_arrays: tuple[np.ndarray, np.ndarray] = (np.zeros(0, np.int64), np.zeros(0, np.int64))

    # --- the still layer -------------------------------------------------------------------

    def _tiles_for(self, p: int) -> np.ndarray:
        """(classes, P, P) tiles: each class's block at rest, as `render` draws it."""
        tiles = self._tiles.get(p)
        if tiles is not None:
            return tiles
        rest = FactoryState(
            tick=0,
            entity=self.entity,
            direction=self.direction,
            slots=np.zeros((*self.entity.shape, 4), np.uint8),
            source_buffer=np.zeros(self.entity.shape, np.uint8),
            sink_counts={},
            assemblers=AssemblerTable.idle(self._asm_cells),
        )
        out = np.empty((len(self._class_cell), p, p), self.colours.dtype)
        for k, cell in enumerate(self._class_cell.tolist()):
            x, y = cell % self.width, cell // self.width
            out[k] = self.colours[render(rest, self.static, Region(x, y, x + 1, y + 1, p))]
        self._tiles[p] = out
        return out

    def _still_image(self, region: Region) -> np.ndarray:
        if self._still_key == region and self._still is not None:
            return self._still
        p = region.scale
        tiles = self._tiles_for(p)
        classes = self._class[region.y0 : region.y1, region.x0 : region.x1]
        rows, cols = classes.shape
        blocks = tiles[classes]  # (rows, cols, P, P)
        still = np.ascontiguousarray(blocks.transpose(0, 2, 1, 3)).reshape(rows * p, cols * p)
        self._still_key, self._still = region, still
        return still

    # --- a frame ---------------------------------------------------------------------------

    def render(self, state: FactoryState, region: Region) -> np.ndarray:
        still = self._still_image(region)
        if self._out is None or self._out.shape != still.shape:
            self._out = np.empty_like(still)
        out = self._out
        np.copyto(out, still)
        sl = np.s_[region.y0 : region.y1, region.x0 : region.x1]
        if region.scale == 1:
            self._map(out, state, region, sl)
        else:
            self._blocks(out, state, region, sl)
        return out

    def _assemblers(self, state: FactoryState) -> tuple[np.ndarray, np.ndarray]:
        """Per assembler (in `_asm_cells` order): remaining and output, once per state."""
        key = (id(state), state.tick)
        if self._asm_key != key:
            n = len(self._asm_cells)
            remaining, output = np.zeros(n, np.int64), np.zeros(n, np.int64)
            cells, held_remaining, held_output = state.assembler_arrays  # made off the GUI thread
            if len(cells) and n:
                at = np.searchsorted(self._asm_cells, cells).clip(0, n - 1)
                known = self._asm_cells[at] == cells
                remaining[at[known]], output[at[known]] = held_remaining[known], held_output[known]
            self._asm_key, self._asm_arrays = key, (remaining, output)
        return self._asm_arrays

    def _visible_assemblers(self, region: Region) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        x, y = self._asm_cells % self.width - region.x0, self._asm_cells // self.width - region.y0
        inside = (x >= 0) & (y >= 0) & (x < region.x1 - region.x0) & (y < region.y1 - region.y0)
        return inside, x, y

    def _map(self, out: np.ndarray, state: FactoryState, region: Region, sl) -> None:
        ys, xs = np.nonzero(occupied(state.slots[sl]))  # items are sparse: tint only those belts
        out[ys, xs] = self._tint[lead_item(state.slots[sl][ys, xs])]
        held = state.source_buffer[sl] != 0
        out[held] = self._item[self.static.source_type[sl][held]]
        if len(self._asm_cells):
            remaining, _ = self._assemblers(state)
            inside, x, y = self._visible_assemblers(region)
            busy = inside & (remaining != 0)
            out[y[busy], x[busy]] = self._crafting

    def _blocks(self, out: np.ndarray, state: FactoryState, region: Region, sl) -> None:
        p = region.scale
        view = out.reshape(region.y1 - region.y0, p, region.x1 - region.x0, p)
        boxes = mask_boxes(p)
        slots, direction = state.slots[sl], self.direction[sl]
        for s in range(4):
            ys, xs = np.nonzero(slots[..., s])
            if not len(ys):
                continue
            colour = self._item[slots[ys, xs, s]]
            facing = direction[ys, xs]
            for d in range(4):
                pick = facing == d
                if pick.any():
                    r0, r1, c0, c1 = boxes["slot"][d][s]
                    view[ys[pick], r0:r1, xs[pick], c0:c1] = colour[pick][:, None, None]
        held = state.source_buffer[sl]
        ys, xs = np.nonzero(held)
        if len(ys):
            r0, r1, c0, c1 = boxes["centre"]
            view[ys, r0:r1, xs, c0:c1] = self._item[held[ys, xs]][:, None, None]
        if len(self._asm_cells):
            self._busy_assemblers(view, state, region, boxes)

    def _busy_assemblers(self, view: np.ndarray, state: FactoryState, region: Region, boxes) -> None:
        p = region.scale
        remaining, output = self._assemblers(state)
        inside, x, y = self._visible_assemblers(region)
        busy = inside & (remaining != 0)
        if busy.any():
            bx, by = x[busy], y[busy]
            r0, r1, c0, c1 = boxes["inset"]
            view[by, r0:r1, bx, c0:c1] = self._crafting
            if p >= 8:
                masks = cell_masks(p)
                _paint_blocks(view, by, bx, masks["ring"], self._track)
                time = self._asm_time[busy]
                done = [
                    max(0, min(ARC_STEPS, round(ARC_STEPS * (t - r) / t)))
                    for t, r in zip(time.tolist(), remaining[busy].tolist(), strict=True)
                ]
                done_arr = np.array(done)
                for k in sorted(set(done)):
                    pick = done_arr == k
                    _paint_blocks(view, by[pick], bx[pick], masks["arc"][k], self._arc)
        ready = inside & (output != 0)
        if ready.any():
            r0, r1, c0, c1 = boxes["centre"]
            view[y[ready], r0:r1, x[ready], c0:c1] = self._item[output[ready]][:, None, None]


def _paint_blocks(view: np.ndarray, ys: np.ndarray, xs: np.ndarray, mask: np.ndarray, value) -> None:
    """Set `mask`'s pixels of the blocks at (ys, xs) of a (rows, P, cols, P) view."""
    if not len(ys):
        return
    my, mx = np.nonzero(mask)
    view[ys[:, None], my[None, :], xs[:, None], mx[None, :]] = value
