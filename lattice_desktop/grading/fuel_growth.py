"""How fuel grows with input size: the slope of a least-squares line on log–log axes."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

_ORDERS = (
    (0.0, "O(1)"),
    (0.5, "O(√n)"),
    (1.0, "O(n)"),
    (1.5, "O(n^1.5)"),
    (2.0, "O(n²)"),
    (2.5, "O(n^2.5)"),
    (3.0, "O(n³)"),
)


def fit_slope(sizes: Sequence[float], fuels: Sequence[float]) -> tuple[float, float] | None:
    """(slope, intercept) of log10(fuel) against log10(size); None with < 2 usable sizes."""
    pairs = zip(sizes, fuels, strict=True)
    points = [(math.log10(s), math.log10(f)) for s, f in pairs if s and f and s > 0 and f > 0]
    if len({x for x, _ in points}) < 2:
        return None
    xs, ys = np.array(points).T
    slope, intercept = np.polyfit(xs, ys, 1)
    return float(slope), float(intercept)


def describe_slope(slope: float) -> str:
    """'slope 1.02 ≈ O(n)': the nearest familiar order of growth."""
    _, order = min(_ORDERS, key=lambda o: abs(o[0] - slope))
    return f"slope {slope:.2f} ≈ {order}"
