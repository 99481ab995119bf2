"""A small SVG writer for the exported reports: log axes, horizontal bars and log–log
points drawn from the numbers, as plain text with no Qt (the core stays Qt-free) and no
external asset (an exported report is one file that opens anywhere).

Text and axes use `currentColor`, so a plot follows the page's light or dark colours;
every colour that means something comes with a symbol or a word beside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from lattice_desktop.formatting import si
from lattice_desktop.services.exports.html_text import escape

FONT = "font-family:system-ui,sans-serif;font-size:11px"


@dataclass
class Svg:
    """An SVG element built up from shapes; `text()` is the finished markup."""

    width: int
    height: int
    title: str
    parts: list[str] = field(default_factory=list)

    def line(self, x1: float, y1: float, x2: float, y2: float, *, style: str = "") -> None:
        self.parts.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'style="stroke:currentColor;{style}"/>'
        )

    def rect(self, x: float, y: float, w: float, h: float, *, fill: str, tip: str = "") -> None:
        shape = f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0.5):.1f}" height="{h:.1f}" fill="{fill}"'
        self.parts.append(_with_tip(shape, tip))

    def circle(self, x: float, y: float, r: float, *, fill: str, tip: str = "", stroke: str = "") -> None:
        outline = f' stroke="{stroke}" stroke-width="1.5"' if stroke else ""
        shape = f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{fill}"{outline}'
        self.parts.append(_with_tip(shape, tip))

    def diamond(self, x: float, y: float, r: float, *, fill: str, tip: str = "") -> None:
        points = f"{x:.1f},{y - r:.1f} {x + r:.1f},{y:.1f} {x:.1f},{y + r:.1f} {x - r:.1f},{y:.1f}"
        self.parts.append(_with_tip(f'<polygon points="{points}" fill="{fill}" stroke="currentColor"', tip))

    def text(
        self, x: float, y: float, words: str, *, anchor: str = "start", style: str = "", fill: str = ""
    ) -> None:
        colour = f' fill="{fill}"' if fill else ' fill="currentColor"'
        self.parts.append(
            f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{colour} style="{style}">'
            f"{escape(words)}</text>"
        )

    def markup(self) -> str:
        body = "\n".join(self.parts)
        return (
            f'<svg class="plot" viewBox="0 0 {self.width} {self.height}" width="{self.width}" '
            f'height="{self.height}" role="img" style="{FONT}"><title>{escape(self.title)}</title>\n'
            f"{body}\n</svg>"
        )


def _with_tip(shape: str, tip: str) -> str:
    return f"{shape}><title>{escape(tip)}</title></{shape[1 : shape.index(' ')]}>" if tip else f"{shape}/>"


@dataclass(frozen=True)
class LogAxis:
    """A base-10 axis from whole decades around the values, mapped onto [start, end] pixels."""

    low: int  # exponent of the first decade
    high: int  # exponent of the last decade
    start: float
    end: float

    @classmethod
    def around(cls, values: list[float], start: float, end: float) -> LogAxis:
        positive = [v for v in values if v > 0] or [1.0]
        low = math.floor(math.log10(min(positive)))
        high = math.ceil(math.log10(max(positive)))
        return cls(low, max(high, low + 1), start, end)

    def at(self, value: float) -> float:
        exponent = math.log10(value) if value > 0 else self.low
        share = (min(max(exponent, self.low), self.high) - self.low) / (self.high - self.low)
        return self.start + share * (self.end - self.start)

    def decades(self) -> list[float]:
        return [10.0**e for e in range(self.low, self.high + 1)]


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None  # None: no reading (drawn as a word, never as a zero bar)
    colour: str
    note: str  # the outcome as symbol and words, printed after the bar
    tip: str = ""
    marks: tuple[tuple[float, str], ...] = ()  # (value, "ceiling" | "runway" | "best") per bar


def bar_chart(title: str, bars: list[Bar], *, unit: str = "fuel", width: int = 760) -> str:
    """Horizontal bars on a log axis, one row per bar, with each bar's marks: the ceiling
    dashed, the runway's end dotted, the field's best as a diamond."""
    label_w, note_w, row, top = 170, 150, 22, 30
    height = top + row * max(1, len(bars)) + 34
    svg = Svg(width, height, title)
    values = [b.value for b in bars if b.value] + [v for b in bars for v, _ in b.marks if v]
    axis = LogAxis.around(values, label_w, width - note_w)
    svg.text(4, 16, title, style="font-weight:600;font-size:12px")
    bottom = top + row * max(1, len(bars))
    _vertical_grid(svg, axis, top, bottom, unit)
    for i, bar in enumerate(bars):
        y = top + i * row
        svg.text(label_w - 6, y + 15, _clip(bar.label, 26), anchor="end")
        if bar.value:
            svg.rect(
                axis.start, y + 4, axis.at(bar.value) - axis.start, row - 8, fill=bar.colour, tip=bar.tip
            )
        for value, kind in bar.marks:
            x = axis.at(value)
            if kind == "best":
                svg.diamond(x, y + row / 2, 5, fill="#F0E442", tip=f"field best {si(value, unit)}")
            else:
                dash = "4,3" if kind == "ceiling" else "1,3"
                svg.line(x, y + 1, x, y + row - 1, style=f"stroke-width:2;stroke-dasharray:{dash}")
        svg.text(axis.end + 8, y + 15, bar.note if bar.value else f"{bar.note} · no fuel reading")
    _legend(svg, height - 8, [b for b in bars if b.marks])
    return svg.markup()


def _vertical_grid(svg: Svg, axis: LogAxis, top: float, bottom: float, unit: str) -> None:
    for value in axis.decades():
        x = axis.at(value)
        svg.line(x, top, x, bottom, style="stroke-opacity:0.18")
        svg.text(x, bottom + 14, si(value), anchor="middle", style="font-size:10px")
    svg.line(axis.start, bottom, axis.end, bottom, style="stroke-opacity:0.6")
    svg.text((axis.start + axis.end) / 2, bottom + 27, f"{unit} (log scale)", anchor="middle")


def _legend(svg: Svg, y: float, marked: list[Bar]) -> None:
    kinds = {kind for b in marked for _, kind in b.marks}
    x = 4.0
    for kind, words in (("ceiling", "ceiling"), ("runway", "runway's end"), ("best", "field best")):
        if kind not in kinds:
            continue
        if kind == "best":
            svg.diamond(x + 6, y - 4, 5, fill="#F0E442")
        else:
            dash = "4,3" if kind == "ceiling" else "1,3"
            svg.line(x + 6, y - 11, x + 6, y + 2, style=f"stroke-width:2;stroke-dasharray:{dash}")
        svg.text(x + 16, y, words)
        x += 24 + 7 * len(words)


@dataclass(frozen=True)
class Series:
    name: str
    points: list[tuple[float, float]]  # (size, fuel)
    colour: str
    fit: str = ""  # "slope 1.02 ≈ O(n)", or "" without a fit
    line: tuple[float, float] | None = None  # (slope, intercept) of log10 fuel on log10 size
    hollow: bool = False


def loglog_chart(title: str, series: list[Series], *, width: int = 760, height: int = 320) -> str:
    """Fuel against input size on log–log axes, one marker shape per series, each with its
    fitted line and slope named in the legend."""
    left, right, top, bottom = 70, width - 200, 42, height - 40
    svg = Svg(width, height, title)
    svg.text(4, 16, title, style="font-weight:600;font-size:12px")
    points = [p for s in series for p in s.points]
    xs = LogAxis.around([x for x, _ in points], left, right)
    ys = LogAxis.around([y for _, y in points], bottom, top)
    for value in xs.decades():
        x = xs.at(value)
        svg.line(x, top, x, bottom, style="stroke-opacity:0.18")
        svg.text(x, bottom + 14, si(value), anchor="middle", style="font-size:10px")
    for value in ys.decades():
        y = ys.at(value)
        svg.line(left, y, right, y, style="stroke-opacity:0.18")
        svg.text(left - 6, y + 4, si(value), anchor="end", style="font-size:10px")
    svg.line(left, bottom, right, bottom, style="stroke-opacity:0.6")
    svg.line(left, top, left, bottom, style="stroke-opacity:0.6")
    svg.text((left + right) / 2, bottom + 30, "input size (log scale)", anchor="middle")
    svg.text(left - 6, top - 10, "fuel (log scale)", anchor="start", style="font-size:10px")
    for i, s in enumerate(series):
        if s.line is not None and len(s.points) > 1:
            slope, intercept = s.line
            ends = [min(x for x, _ in s.points), max(x for x, _ in s.points)]
            y0, y1 = (10 ** (intercept + slope * math.log10(x)) for x in ends)
            svg.line(
                xs.at(ends[0]),
                ys.at(y0),
                xs.at(ends[1]),
                ys.at(y1),
                style=f"stroke:{s.colour};stroke-width:1.5",
            )
        for x, y in s.points:
            tip = f"{s.name}: size {si(x)} · {si(y, 'fuel')}"
            if s.hollow:
                svg.circle(xs.at(x), ys.at(y), 4.5, fill="none", stroke=s.colour, tip=tip)
            else:
                svg.circle(xs.at(x), ys.at(y), 4, fill=s.colour, tip=tip)
        ly = top + 10 + i * 34
        if s.hollow:
            svg.circle(right + 16, ly - 4, 4.5, fill="none", stroke=s.colour)
        else:
            svg.circle(right + 16, ly - 4, 4, fill=s.colour)
        svg.text(right + 26, ly, _clip(s.name, 26))
        svg.text(right + 26, ly + 14, s.fit or "no fit (fewer than two sizes)", style="font-size:10px")
    return svg.markup()


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
