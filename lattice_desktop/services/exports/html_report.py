"""Exports as one self-contained HTML file: the page's words and tables, its plots as
inline SVG, its CSS inline. Nothing is fetched, so the file reads the same offline, mailed
or archived; every piece of stored text is escaped (a model name is someone else's)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime

from lattice_desktop import __version__
from lattice_desktop.formatting import grouped, si
from lattice_desktop.grading.fuel_growth import describe_slope, fit_slope
from lattice_desktop.grading.report import CaseResult
from lattice_desktop.outcomes import GREY, Look, Verdict
from lattice_desktop.services.exports.html_text import escape
from lattice_desktop.services.exports.svg import Bar, Series, bar_chart, loglog_chart
from lattice_desktop.services.exports.tables import Cell, Table, board_scope, board_table
from lattice_desktop.services.run_report import detail_text
from lattice_desktop.store.field import Leaderboard
from lattice_desktop.store.fuel_queries import CaseBest
from lattice_desktop.store.harness_runs import StoredHarnessRun
from lattice_desktop.store.pages import RunPage
from lattice_desktop.store.queries import ListedRun, RunSummary

CSS = """
:root { color-scheme: light dark; --fg: #1d2026; --bg: #ffffff; --muted: #5b616b; --line: #d5d8de;
  --band: #f3f4f6; --accent: #0072B2; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8eb; --bg: #16181d; --muted: #a3a8b1;
  --line: #3a3e46; --band: #1f2228; } }
body { font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg);
  margin: 2rem auto; max-width: 1040px; padding: 0 1rem; }
h1 { font-size: 1.35rem; margin: 0 0 .25rem; } h2 { font-size: 1.05rem; margin: 1.6rem 0 .5rem; }
.meta { color: var(--muted); margin: 0 0 1rem; } .meta span + span::before { content: " · "; }
.chip { font-weight: 600; white-space: nowrap; }
.mono, td.mono { font-family: ui-monospace, monospace; font-size: 12.5px; }
.banner { border-left: 4px solid #D55E00; background: var(--band); padding: .5rem .8rem; margin: 1rem 0; }
table { border-collapse: collapse; width: 100%; margin: .25rem 0 1rem; }
th, td { border-bottom: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { font-weight: 600; background: var(--band); } td.num, th.num { text-align: right;
  font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.muted td { color: var(--muted); } .plot { display: block; max-width: 100%; height: auto; margin: .5rem 0; }
pre { background: var(--band); padding: .6rem; overflow-x: auto; font-size: 12px; }
footer { color: var(--muted); font-size: 12px; margin-top: 2rem; }
"""


def run_html(page: RunPage, best: dict[str, CaseBest]) -> str:
    """A run's page: header, standing, its fuel plots against the field, every result."""
    run, s = page.run, page.run.summary
    meta = [
        f'<span class="chip" style="color:{s.verdict.look.colour}">{escape(s.verdict.look.text)}</span>',
        f"<span>score {escape(si(s.score, 'fuel'))}</span>" if s.score is not None else "",
        f"<span>standing {escape(page.standing.describe())}</span>" if page.standing else "",
        f"<span>wasmtime {escape(run.wasmtime_version)}</span>",
        "<span>hidden from the field</span>" if s.hidden else "",
    ]
    parts = [
        f"<h1>{escape(s.submission)} · {escape(s.labelled_case)} · {escape(s.model)}</h1>",
        f'<p class="meta">{"".join(m for m in meta if m)}</p>',
        _facts(
            [
                ("Run", f"#{s.id}"),
                ("Started", _when(s.started)),
                ("Finished", _when(s.finished)),
                ("Module sha256", run.module_sha256 or "-"),
                ("Case content", run.manifest_hash),
                ("Case manifest", run.manifest_path),
                ("Submission", run.submission_path),
                ("Fuel settings", run.fuel_settings),
            ]
        ),
    ]
    failed_smoke = [r for r in run.results if r.is_smoke and not r.outcome.passed]
    if failed_smoke:
        names = ", ".join(r.name for r in failed_smoke)
        parts.append(
            f'<p class="banner">Smoke test {escape(names)} failed — stress cases skipped (counted failed)</p>'
        )
    plotted = [r for r in run.results if not r.is_smoke] or list(run.results)
    if plotted:
        parts += ["<h2>Fuel</h2>", fuel_bars(plotted, best), fuel_growth(plotted, best)]
    for title, smoke in (("Smoke tests (correctness only)", True), ("Stress cases (fuel)", False)):
        rows = [r for r in run.results if r.is_smoke == smoke]
        if rows:
            parts += [f"<h2>{title}</h2>", _results_table(rows, smoke)]
    if run.build_log or run.build_detail:
        parts += [
            "<h2>Build log</h2>",
            f"<pre>{escape(run.build_detail + chr(10) + run.build_log, keep=chr(10) + chr(9)).strip()}</pre>",
        ]
    return document(f"Run {s.id} · {s.labelled_case} · {s.model}", parts)


def fuel_bars(results: list[CaseResult], best: dict[str, CaseBest]) -> str:
    bars = []
    for r in results:
        marks: list[tuple[float, str]] = [(r.ceiling, "ceiling")]
        if r.budget > r.ceiling:
            marks.append((r.budget, "runway"))
        if r.name in best:
            marks.append((best[r.name].fuel, "best"))
        tip = f"{r.name}: {grouped(r.fuel)} fuel" if r.fuel else f"{r.name}: no fuel measured"
        if r.name in best:
            b = best[r.name]
            tip += f"; field best {grouped(b.fuel)} ({b.model}, run #{b.run_id})"
        bars.append(Bar(r.name, r.fuel, r.outcome.look.colour, r.outcome.look.text, tip, tuple(marks)))
    return bar_chart("Fuel per case", bars)


def fuel_growth(results: list[CaseResult], best: dict[str, CaseBest]) -> str:
    series = []
    for name, colour, points, hollow in (
        ("this run", "#0072B2", [(r.size, r.fuel) for r in results if r.fuel], False),
        ("field's best", "#CC79A7", [(r.size, best[r.name].fuel) for r in results if r.name in best], True),
    ):
        pts = [(float(x), float(y)) for x, y in points if x and y]
        if not pts:
            continue
        line = fit_slope([x for x, _ in pts], [y for _, y in pts])
        fit = describe_slope(line[0]) if line else ""
        series.append(Series(name, pts, colour, fit, line, hollow))
    if not series:
        return "<p>Fuel against input size needs cases with fuel.</p>"
    return loglog_chart("Fuel against input size", series)


def _results_table(results: list[CaseResult], smoke: bool) -> str:
    headers = ["Case", "Behaviour" if smoke else "Size", "Outcome", "Fuel"]
    if not smoke:
        headers += ["% of ceiling", "Overshoot"]
    headers.append("Detail")
    body = []
    for r in results:
        cells = [
            f"<td>{escape(r.name)}</td>",
            f"<td>{escape(r.behaviour)}</td>" if smoke else f'<td class="num">{grouped(r.size)}</td>',
            _look_cell(r.outcome.look),
            f'<td class="num">{grouped(r.fuel)}</td>',
        ]
        if not smoke:
            pct = r.percent_of_ceiling
            cells += [
                f'<td class="num">{"-" if pct is None else f"{pct:.1f}%"}</td>',
                f'<td class="num">{grouped(r.overshoot)}</td>',
            ]
        cells.append(f'<td class="mono">{escape(detail_text(r, exact=True))}</td>')
        body.append(f"<tr>{''.join(cells)}</tr>")
    head = "".join(
        f'<th class="num">{h}</th>' if h in ("Size", "Fuel", "% of ceiling", "Overshoot") else f"<th>{h}</th>"
        for h in headers
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def runs_html(runs: Sequence[ListedRun], *, scope: str = "") -> str:
    """The runs list: how many of each verdict, then every run (the columns a reader needs;
    the CSV holds them all). A harness run shows its Score where fuel would be."""
    counts = Counter(r.verdict for r in runs if isinstance(r, RunSummary))
    summary = " · ".join(f"{n} {v.look.text}" for v, n in counts.most_common())
    harness = sum(isinstance(r, StoredHarnessRun) for r in runs)
    if harness:
        summary += f"{' · ' if summary else ''}{harness} harness run{'s' if harness != 1 else ''}"
    hidden = any(r.hidden for r in runs)
    table = Table(
        "Runs",
        ("run", "case", "model", "submission", "verdict", "score", "stress_fuel", "finished")
        + (("hidden",) if hidden else ()),
        [_run_cells(r) + (("hidden" if r.hidden else "",) if hidden else ()) for r in runs],
    )
    parts = [
        "<h1>Runs</h1>",
        f'<p class="meta">{len(runs)} run{"s" if len(runs) != 1 else ""}'
        f"{' · ' + escape(scope) if scope else ''}{' · ' + escape(summary) if summary else ''}</p>",
        table_html(table, looks={"verdict": _verdict_look}) if runs else "<p>No runs.</p>",
    ]
    return document("Lattice Desktop runs", parts)


def _run_cells(r: ListedRun) -> tuple[Cell, ...]:
    if isinstance(r, StoredHarnessRun):
        h = r.result
        score = f"Score {h.metrics['score'].shown} · Execution {h.execution.shown}"
        return (
            r.id,
            f"{h.box} · {h.stage}",
            f"{h.harness} / {h.model}",
            r.name,
            "◇ harness",
            score,
            None,
            _short(r.imported),
        )
    return (
        r.id,
        r.labelled_case,
        r.model,
        r.submission,
        r.verdict.value,
        r.score,
        r.stress_fuel,
        _short(r.finished),
    )


def leaderboard_html(board: Leaderboard) -> str:
    """A leaderboard: its scope, a bar per model's best fuel, the ranked and unranked rows."""
    ranked = [
        Bar(
            f"#{e.rank} {e.model}",
            e.fuel,
            "#0072B2",
            f"×{e.ratio:.2f}",
            f"{e.model}: {grouped(e.fuel)} fuel, run #{e.run_id}",
        )
        for e in board.entries
    ] + [
        Bar(
            f"▲ {e.model}",
            e.fuel,
            GREY,
            f"over ceiling +{e.percent_over or 0:.0f}%",
            f"{e.model}: {grouped(e.fuel)} fuel over the ceiling, run #{e.run_id}",
        )
        for e in board.over_ceiling
    ]
    parts = [
        f"<h1>Leaderboard · {escape(board.case_name)}</h1>",
        f'<p class="meta">{escape(board_scope(board))}</p>',
    ]
    if ranked:
        parts += [
            bar_chart("Best correct fuel per model (lower is better)", ranked),
            table_html(board_table(board, with_case=False)),
        ]
    else:
        parts.append("<p>No correct or over-ceiling runs in this scope yet.</p>")
    return document(f"Leaderboard · {board.case_name}", parts)


def _verdict_look(value: Cell) -> Look:
    if value == "◇ harness":
        return Look("◇", "harness", GREY)
    return Verdict.stored(value).look


def table_html(table: Table, *, looks: dict | None = None) -> str:
    """A table of plain values: numbers right-aligned and grouped, missing values as "-"."""
    looks = looks or {}
    numeric = [
        all(isinstance(row[i], int | float) or row[i] is None for row in table.rows) and table.rows
        for i in range(len(table.headers))
    ]
    head = "".join(
        f'<th class="num">{escape(_heading(h))}</th>' if numeric[i] else f"<th>{escape(_heading(h))}</th>"
        for i, h in enumerate(table.headers)
    )
    body = []
    for row in table.rows:
        cells = []
        for i, value in enumerate(row):
            name = table.headers[i]
            if name in looks and value is not None:
                cells.append(_look_cell(looks[name](value)))
            elif numeric[i]:
                cells.append(f'<td class="num">{_number(value)}</td>')
            else:
                cells.append(f"<td>{escape('-' if value is None else str(value))}</td>")
        muted = ' class="muted"' if row and row[0] == "over_ceiling" else ""
        body.append(f"<tr{muted}>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


HEADINGS = {"times_leader": "× leader", "percent_over": "% over", "max_percent_over": "max % over"}


def _heading(column: str) -> str:
    """A CSV column's name as a table heading: "stress_fuel" reads "stress fuel"."""
    return HEADINGS.get(column, column.replace("_", " "))


def _number(value: Cell) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return grouped(int(value))


def _look_cell(look: Look) -> str:
    return f'<td class="chip" style="color:{look.colour}">{escape(look.text)}</td>'


def _facts(rows: list[tuple[str, str]]) -> str:
    body = "".join(f'<tr><th>{escape(k)}</th><td class="mono">{escape(v)}</td></tr>' for k, v in rows)
    return f"<table>{body}</table>"


def _short(value: datetime | None) -> str:
    return "unknown" if value is None else value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _when(value: datetime | None) -> str:
    return "unknown" if value is None else value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


FUEL_NOTE = "Fuel is comparable only within one wasmtime version."


def document(title: str, parts: list[str], *, note: str = FUEL_NOTE) -> str:
    made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    body = "\n".join(p for p in parts if p)
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<style>{CSS}</style></head>\n<body>\n{body}\n"
        f"<footer>Exported by Lattice Desktop {escape(__version__)} on {made}. "
        f"{escape(note)}</footer>\n</body></html>\n"
    )
