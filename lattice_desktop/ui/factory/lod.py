"""The map zoomed out past one pixel per cell: each pixel stands for k×k cells and shows the
busiest of them — an item's colour wherever any of them holds one, else an entity wherever
there is one — and a differing cell wherever any of them differs. Drawing the grid at one
pixel per cell and letting the screen drop pixels would hide a lone item or a lone
difference on a 2048² factory; pooling keeps both in sight. Plain numpy."""

from __future__ import annotations

import math

import numpy as np

from lattice_desktop.lattice.scenario import Entity
from lattice_desktop.lattice.view import FactoryState, occupied
from lattice_desktop.ui.factory.raster import Rasterizer, Region

POOL_BELOW = 0.75  # pixels per cell under which cells are pooled


def pool_factor(pixels_per_cell: float) -> int:
    """How many cells each way one pixel stands for (1: none pooled)."""
    if pixels_per_cell >= POOL_BELOW:
        return 1
    return max(2, math.ceil(1.0 / max(pixels_per_cell, 1e-6)))


def priority(state: FactoryState) -> np.ndarray:
    """(H, W) uint8: 2 where a cell holds an item (belt slot or source buffer), 1 where it
    has an entity, 0 on empty ground."""
    out = (state.entity != Entity.EMPTY).astype(np.uint8)
    out[occupied(state.slots) | (state.source_buffer > 0)] = 2
    return out


def _padded(array: np.ndarray, k: int) -> np.ndarray:
    """`array` padded with zeros to whole k×k blocks, as (rows, k, cols, k) (a view of the
    padded copy, or of `array` itself when it already fits)."""
    h, w = array.shape
    rows, cols = -(-h // k), -(-w // k)
    if (rows * k, cols * k) != (h, w):
        padded = np.zeros((rows * k, cols * k), array.dtype)
        padded[:h, :w] = array
        array = padded
    return array.reshape(rows, k, cols, k)


def pool_pixels(pixels: np.ndarray, rank: np.ndarray, k: int) -> np.ndarray:
    """Per k×k block of ARGB32 pixels, the pixel of its highest-`rank` cell (rank goes in
    the alpha byte for the comparison, then the alpha is made opaque again)."""
    if k <= 1:
        return pixels
    keyed = (pixels & np.uint32(0x00FFFFFF)) | (rank.astype(np.uint32) << np.uint32(24))
    pooled = _padded(keyed, k).max(axis=(1, 3))
    return np.ascontiguousarray(pooled | np.uint32(0xFF000000))


def pool_counts(counts: np.ndarray, k: int) -> np.ndarray:
    """Per k×k block, the most differing records of any of its cells."""
    return counts if k <= 1 else _padded(counts, k).max(axis=(1, 3))


class PooledRaster:
    """Draws a state pooled k×k straight from the sparse things that move: the still layer
    (entities, pooled by `priority`'s entity rank) is pooled once per k and kept; a frame
    copies it and paints each block holding an item (on a belt or in a source's buffer) or
    a busy assembler. A frame costs one pass over the belts' slots and the items, never
    the 4·W·H pixels of the grid at a pixel a cell."""

    def __init__(self, raster: Rasterizer) -> None:
        self.raster = raster
        self._still: dict[int, np.ndarray] = {}

    def still(self, k: int) -> np.ndarray:
        pooled = self._still.get(k)
        if pooled is None:
            r = self.raster
            full = r._still_image(Region(0, 0, r.width, r.height, 1))
            pooled = pool_pixels(full, (r.entity != Entity.EMPTY).astype(np.uint8), k)
            self._still[k] = pooled
        return pooled

    def render(self, state: FactoryState, k: int) -> np.ndarray:
        r = self.raster
        out = self.still(k).copy()
        flat, cols, opaque = out.reshape(-1), out.shape[1], np.uint32(0xFF000000)

        def blocks(cells: np.ndarray) -> np.ndarray:  # flat cells -> flat pooled pixels
            ys, xs = np.divmod(cells, r.width)
            return (ys // k) * cols + xs // k

        cells, lead = state.items  # the sparse layers come worked out with the state
        flat[blocks(cells)] = r._tint[lead] | opaque
        held = state.held_sources
        flat[blocks(held)] = r._item[r.static.source_type.reshape(-1)[held]] | opaque
        if len(r._asm_cells):
            remaining, _ = r._assemblers(state)
            flat[blocks(r._asm_cells[remaining != 0])] = r._crafting | opaque
        return out
