"""A regression report as one self-contained HTML file: the two runs, each case's fuel side
by side with its change, the plots (fuel per case, fuel against size), and the functions
behind each change with their source lines (for modules built with -g). Built like the run
export (`html_report`), from the same pieces."""

from __future__ import annotations

from lattice_desktop.formatting import grouped
from lattice_desktop.services.compare_runs import TOP_LINES, CaseChange, Comparison
from lattice_desktop.services.exports.html_report import _facts, document
from lattice_desktop.services.exports.html_text import escape
from lattice_desktop.services.exports.svg import Bar, Series, bar_chart, loglog_chart

A_COLOUR, B_COLOUR = "#56B4E9", "#E69F00"


def comparison_html(comparison: Comparison, *, threshold: float | None = None) -> str:
    a, b = comparison.before, comparison.after
    parts = [
        f"<h1>Compare {escape(a.label)} → {escape(b.label)}</h1>",
        _facts(
            [
                ("A", f"{a.label} · {a.model} · {a.case} · {a.verdict}"),
                ("B", f"{b.label} · {b.model} · {b.case} · {b.verdict}"),
                ("Case content", a.manifest_hash if a.manifest_hash == b.manifest_hash else "differs"),
                ("wasmtime", a.wasmtime_version if a.wasmtime_version == b.wasmtime_version else "differs"),
            ]
        ),
    ]
    parts += [f'<p class="banner">{escape(note)}</p>' for note in comparison.notes]
    if threshold is not None:
        worse = comparison.worse_than(threshold)
        verdict = (
            f"{len(worse)} case(s) got worse by more than {threshold:g}% or lost their verdict: "
            + ", ".join(c.name for c in worse)
            if worse
            else f"no stress case got worse by more than {threshold:g}% and no verdict was lost "
            "(smoke-test fuel is not gated)"
        )
        parts.append(f'<p class="banner">{escape(verdict)}</p>')
    parts += ["<h2>Fuel</h2>", _bars(comparison), _growth(comparison), "<h2>Cases</h2>", _cases(comparison)]
    for case in comparison.cases:
        if case.functions:
            parts += [f"<h2>What changed on {escape(case.name)}</h2>", _functions(case), _lines(case)]
    return document(f"Compare run {a.run_id} and run {b.run_id}", parts)


def _bars(comparison: Comparison) -> str:
    bars = []
    for c in comparison.cases:
        for side, fuel, colour, outcome in (
            ("A", c.before_fuel, A_COLOUR, c.before_outcome),
            ("B", c.after_fuel, B_COLOUR, c.after_outcome),
        ):
            note = f"{side} · {outcome}" + (
                f" · {_percent(c)}" if side == "B" and c.percent is not None else ""
            )
            tip = (
                f"{c.name} {side}: {grouped(fuel)} fuel" if fuel is not None else f"{c.name} {side}: no fuel"
            )
            bars.append(Bar(f"{c.name} · {side}", fuel, colour, note, tip))
    return bar_chart("Fuel per case: A and B", bars)


def _growth(comparison: Comparison) -> str:
    series = []
    for name, colour, points, hollow in (
        ("A", A_COLOUR, [(c.size, c.before_fuel) for c in comparison.cases], False),
        ("B", B_COLOUR, [(c.size, c.after_fuel) for c in comparison.cases], True),
    ):
        pts = [(float(x), float(y)) for x, y in points if x and y]
        if pts:
            series.append(Series(name, pts, colour, "", None, hollow))
    return loglog_chart("Fuel against input size", series) if series else ""


def _cases(comparison: Comparison) -> str:
    head = (
        "<tr><th>Case</th><th class='num'>A fuel</th><th class='num'>B fuel</th>"
        "<th class='num'>Change</th><th class='num'>%</th><th>Verdict</th></tr>"
    )
    rows = []
    for c in comparison.cases:
        verdict = f"{c.before_outcome} → {c.after_outcome}" if c.verdict_changed else c.after_outcome
        delta = "-" if c.delta is None else f"{c.delta:+,}"
        rows.append(
            f"<tr><td>{escape(c.name)}</td><td class='num'>{grouped(c.before_fuel)}</td>"
            f"<td class='num'>{grouped(c.after_fuel)}</td><td class='num'>{delta}</td>"
            f"<td class='num'>{escape(_percent(c))}</td><td>{escape(verdict)}</td></tr>"
        )
    return f"<table><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"


def _functions(case: CaseChange) -> str:
    rows = "".join(
        f"<tr><td class='mono'>{escape(f.name)}</td><td class='num'>{grouped(f.before)}</td>"
        f"<td class='num'>{grouped(f.after)}</td><td class='num'>{f.delta:+,}</td>"
        f"<td class='num'>{_share(f.delta, case.delta)}</td></tr>"
        for f in case.functions
    )
    head = (
        "<tr><th>Function</th><th class='num'>A self fuel</th><th class='num'>B self fuel</th>"
        "<th class='num'>Change</th><th class='num'>of the case's change</th></tr>"
    )
    return f"<table><thead>{head}</thead><tbody>{rows}</tbody></table>"


def _lines(case: CaseChange) -> str:
    """The lines behind each function's change (the first TOP_LINES of each), or why none."""
    if not any(f.lines for f in case.functions):
        return f'<p class="meta">{escape(case.lines_note)}</p>' if case.lines_note else ""
    rows = "".join(
        f"<tr><td class='mono'>{escape(f.name)}</td><td class='mono'>{escape(ln.place)}</td>"
        f"<td class='num'>{grouped(ln.before)}</td><td class='num'>{grouped(ln.after)}</td>"
        f"<td class='num'>{ln.delta:+,}</td><td class='num'>{_share(ln.delta, f.delta)}</td></tr>"
        for f in case.functions
        for ln in f.lines[:TOP_LINES]
    )
    head = (
        "<tr><th>Function</th><th>Source line</th><th class='num'>A fuel</th>"
        "<th class='num'>B fuel</th><th class='num'>Change</th>"
        "<th class='num'>of the function's change</th></tr>"
    )
    more = sum(max(0, len(f.lines) - TOP_LINES) for f in case.functions)
    tail = (
        f'<p class="meta">{more} more changed line(s): the --json report lists every one</p>' if more else ""
    )
    return f"<h3>Source lines</h3><table><thead>{head}</thead><tbody>{rows}</tbody></table>{tail}"


def _percent(case: CaseChange) -> str:
    return "-" if case.percent is None else f"{case.percent:+.2f}%"


def _share(part: int, whole: int | None) -> str:
    return "-" if not whole else f"{100 * part / whole:.1f}%"
