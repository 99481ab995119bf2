"""Colours of the factory canvas: a dark ground, quiet entities, items in Okabe–Ito.

The canvas is a uint8 image of *codes* drawn through one lookup table (`LUT`), so
every colour lives here. Item types map onto 16 colour slots: the eight Okabe–Ito
colours (black swapped for near-white, which reads on a dark ground), then the same
hues lightened. The legend always names the item, so colour is never the only cue.
"""

from __future__ import annotations

import numpy as np

OKABE_ITO = (
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#009E73",  # bluish green
    "#F0E442",  # yellow
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#EDEDED",  # near-white (Okabe–Ito's black, turned for a dark ground)
)
ITEM_SLOTS = 16

GROUND = "#15171C"
# Entity codes 0..15, item colours 16..31, tinted belts 32..47, source bodies 48..63.
GROUND_CODE = 0
WALL = 1
WALL_HATCH = 2
BELT = 3
BELT_RAIL = 4
BELT_CHEVRON = 5
SINK = 6
SINK_RIM = 7
ASSEMBLER = 8
ASSEMBLER_CRAFTING = 9
ARC = 10
ARC_TRACK = 11
NOTCH = 12
BUFFER_EMPTY = 13
ITEM = 16
TINTED_BELT = 32
SOURCE_BODY = 48

_ENTITY_COLOURS = {
    GROUND_CODE: GROUND,
    WALL: "#4A4D55",
    WALL_HATCH: "#6C707A",
    BELT: "#2B3442",
    BELT_RAIL: "#222A35",
    BELT_CHEVRON: "#3A4658",
    SINK: "#08090B",
    SINK_RIM: "#5B6270",
    ASSEMBLER: "#3B4252",
    ASSEMBLER_CRAFTING: "#465066",
    ARC: "#8FD3FF",
    ARC_TRACK: "#2A303C",
    NOTCH: GROUND,
    BUFFER_EMPTY: "#1C1F26",
}

# What the legend shows for the entities (name, code).
ENTITY_LEGEND = (
    ("belt", BELT),
    ("wall", WALL_HATCH),
    ("sink", SINK_RIM),
    ("assembler", ASSEMBLER_CRAFTING),
)

DIFF_OUTLINE = "#FF5C8A"
FOCUS_OUTLINE = "#FFD84D"
HOVER_OUTLINE = "#FFFFFF"


def rgb(hex_colour: str) -> tuple[int, int, int]:
    value = int(hex_colour.lstrip("#"), 16)
    return value >> 16, (value >> 8) & 255, value & 255


def _mix(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def item_colour(slot: int) -> tuple[int, int, int]:
    """The colour of an item colour slot 0..15."""
    base = rgb(OKABE_ITO[slot % 8])
    return base if slot < 8 else _mix(base, (255, 255, 255), 0.45)


def item_slot(type_: int) -> int:
    return (type_ - 1) % ITEM_SLOTS


def item_hex(type_: int) -> str:
    r, g, b = item_colour(item_slot(type_))
    return f"#{r:02X}{g:02X}{b:02X}"


def _lut() -> np.ndarray:
    lut = np.zeros((256, 4), np.uint8)
    lut[:, 3] = 255
    lut[:, :3] = rgb(GROUND)
    for code, colour in _ENTITY_COLOURS.items():
        lut[code, :3] = rgb(colour)
    belt = rgb(_ENTITY_COLOURS[BELT])
    for slot in range(ITEM_SLOTS):
        item = item_colour(slot)
        lut[ITEM + slot, :3] = item
        lut[TINTED_BELT + slot, :3] = _mix(belt, item, 0.55)
        lut[SOURCE_BODY + slot, :3] = _mix(item, rgb(GROUND), 0.35)
    return lut


LUT = _lut()
# Item type -> code of the item's own colour, of a belt carrying it, of its source's body.
ITEM_CODE = np.array([ITEM + item_slot(t) if t else GROUND_CODE for t in range(256)], np.uint8)
TINT_CODE = np.array([TINTED_BELT + item_slot(t) if t else BELT for t in range(256)], np.uint8)
SOURCE_CODE = np.array([SOURCE_BODY + item_slot(t) if t else BELT for t in range(256)], np.uint8)


# --- differences over the map -------------------------------------------------------------

MARK_RGBA = (255, 92, 138, 120)  # a differing cell's tint (DIFF_OUTLINE, see-through)
# The heatmap: the factory dimmed, then 1, 2, 3, 4+ differing records in a cell from pale
# yellow to deep magenta (light to dark, so it reads without colour too).
HEAT_RGBA = np.array(
    [(0, 0, 0, 170), (255, 236, 140, 235), (255, 170, 60, 240), (240, 90, 40, 245), (200, 30, 110, 250)],
    np.uint8,
)


def mark_image(counts: np.ndarray, *, heatmap: bool) -> np.ndarray:
    """(H, W, 4) RGBA over the grid: differing cells tinted, or (heatmap) coloured by their
    count over a dimmed factory."""
    if heatmap:
        return HEAT_RGBA[np.minimum(counts, len(HEAT_RGBA) - 1)]
    image = np.zeros((*counts.shape, 4), np.uint8)
    image[counts > 0] = MARK_RGBA
    return image
