"""The shapes drawn inside one P×P cell of the factory canvas, as boolean masks made once
per scale: belt rails and chevrons, item slots, a source's notch, an assembler's progress
arc (in `ARC_STEPS` steps). The rectangular ones also come as boxes, so the rasterizer
can fill them with slices instead of masks."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

ARC_STEPS = 24


@lru_cache(maxsize=8)
def cell_masks(p: int) -> dict:
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
        "slot": slots,
        "rails": turned(rails_east),
        "chevron": turned(chevron_east),
        "notch": turned(notch_east),
        "centre": centre,
        "inset": inset,
        "ring": ring,
        "arc": arcs,
        "hatch": hatch,
        "rim": rim,
    }


# --- the fast path ------------------------------------------------------------------------
#
# `render` above is the plain statement of what a frame looks like; the canvas draws
# with `Rasterizer`, which gives exactly the same picture (tests/ui/test_factory_tab.py
# checks it at every scale) for far less work per frame:
#
# * A cell's look at rest depends only on its class (entity, direction, source type),
#   so each scale has one P×P tile per class, and the still layer of a region (ground,
#   hatched walls, sink rims, belt rails and chevrons, source bodies with their notch
#   and empty buffer, idle assemblers with their arc track) is one gather of tiles,
#   built when the region changes and copied into a reused buffer each frame.
# * The moving parts are painted on top as rectangles through a (rows, P, cols, P) view
#   of the image: one fancy-indexed assignment per slot and direction, no pixel lists.
# * It paints colours straight away when given the palette as 32-bit ARGB words, so a
#   QImage wraps the buffer as it is: no lookup pass, no levels, no copy.


def _box(mask: np.ndarray) -> tuple[int, int, int, int] | None:
    """(row0, row1, col0, col1) when `mask` is exactly a filled rectangle, else None."""
    rows, cols = np.nonzero(mask)
    if not len(rows):
        return None
    r0, r1, c0, c1 = int(rows.min()), int(rows.max()) + 1, int(cols.min()), int(cols.max()) + 1
    filled = mask[r0:r1, c0:c1].all() and int(mask.sum()) == (r1 - r0) * (c1 - c0)
    return (r0, r1, c0, c1) if filled else None


@lru_cache(maxsize=8)
def mask_boxes(p: int) -> dict:
    """The rectangular masks of `cell_masks(p)` as (row0, row1, col0, col1)."""
    masks = cell_masks(p)
    boxes = {
        "slot": [[_box(m) for m in per_dir] for per_dir in masks["slot"]],
        "centre": _box(masks["centre"]),
        "inset": _box(masks["inset"]),
    }
    slots: list[list[tuple[int, int, int, int] | None]] = boxes["slot"]  # type: ignore[assignment]
    for value in (boxes["centre"], boxes["inset"], *(b for d in slots for b in d)):
        if value is None:
            raise AssertionError(f"a slot, centre or inset mask at scale {p} is not a rectangle")
    return boxes
