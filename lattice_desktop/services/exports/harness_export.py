"""A harness run exported like a graded one: one CSV row per metric (value, exact fraction,
evidence, filled-in formula) and an HTML page with the same table, its loops and tool-call
findings, so a published row can be checked by someone without the app."""

from __future__ import annotations

from lattice_desktop.formatting import printable, rounded
from lattice_desktop.harness.metric import Metric
from lattice_desktop.harness.provenance import provenance_lines
from lattice_desktop.harness.result import METRIC_ORDER, HarnessResult
from lattice_desktop.services.exports.html_report import document, table_html
from lattice_desktop.services.exports.html_text import escape
from lattice_desktop.services.exports.tables import Cell, Table, metric_value
from lattice_desktop.store.harness_runs import StoredHarnessRun

HARNESS_NOTE = (
    'Score ranks first, then Execution; "-" is a metric that could not be measured, never 0. '
    "Each formula is printed exactly: its operands are the values the result was computed from."
)

METRIC_HEADERS = (
    "run",
    "name",
    "box",
    "stage",
    "harness",
    "model",
    "metric",
    "value",
    "shown",
    "exact",
    "evidence",
    "formula",
)


def harness_table(stored: StoredHarnessRun) -> Table:
    """Score, Cost, Focus, Time, Compliance, Tools, then Execution; a missing value is empty
    (never 0), its shown form "-"."""
    r = stored.result
    metrics = [(name, r.metrics[name]) for name in METRIC_ORDER if name in r.metrics]
    rows: list[tuple[Cell, ...]] = [
        (
            stored.id,
            stored.name,
            r.box,
            r.stage,
            r.harness,
            r.model,
            name,
            metric_value(m.value),
            m.shown,
            None if m.exact is None else str(m.exact),
            m.evidence,
            m.formula,
        )
        for name, m in [*metrics, ("execution", r.execution)]
    ]
    return Table("Metrics", METRIC_HEADERS, rows)


def harness_html(stored: StoredHarnessRun) -> str:
    r = stored.result
    table = harness_table(stored)
    shown = Table(
        "Metrics",
        ("metric", "value", "evidence", "formula"),
        [(row[6], row[8], row[10], row[11]) for row in table.rows],
    )
    loops = Table(
        "Loops",
        ("repeated calls", "repetitions", "lines", "penalty"),
        [
            (
                " → ".join(loop.tools),
                loop.repetitions,
                f"{loop.first_line}–{loop.last_line}",
                rounded(loop.penalty),
            )
            for loop in r.loops
        ],
    )
    findings = Table(
        "Tool-call findings",
        ("line", "kind", "tool", "message"),
        [(f.line, f.kind, f.tool or "-", f.message) for f in r.tool_findings],
    )
    parts = [
        f"<h1>Run {stored.id} · {escape(stored.name)}</h1>",
        f'<p class="meta">harness run · {escape(r.harness)} / {escape(r.model)} · box {escape(r.box)} · '
        f"stage {escape(r.stage)} · status {escape(r.status)}"
        + (f" · not ranked: {escape(r.unranked)}" if r.unranked else "")
        + "</p>",
        table_html(shown),
    ]
    if r.loops:
        parts += ["<h2>Loops (only the worst counts)</h2>", table_html(loops)]
    if r.tool_findings:
        parts += ["<h2>Tool-call findings</h2>", table_html(findings)]
    notes = [f"{name}: {note}" for name, m in shown_metrics(r) for note in m.notes if m.measured]
    if notes:
        parts += ["<h2>Notes</h2>", "<ul>" + "".join(f"<li>{escape(n)}</li>" for n in notes) + "</ul>"]
    provenance = provenance_lines(r)
    if provenance:
        parts += [
            "<h2>Inputs shown for recomputation</h2>",
            f"<pre>{escape(chr(10).join(printable(line) for line in provenance), keep=chr(10))}</pre>",
        ]
    parts.append(
        f'<p class="meta">box {escape(stored.box_source)} · trace {escape(stored.trace_source)} · '
        f"scorer version {r.scorer_version}</p>"
    )
    return document(f"Run {stored.id} · {stored.name}", parts, note=HARNESS_NOTE)


def shown_metrics(r: HarnessResult) -> list[tuple[str, Metric]]:
    """(name, metric) in the page's order: the six metrics, then Execution."""
    return [(name.capitalize(), r.metrics[name]) for name in METRIC_ORDER if name in r.metrics] + [
        ("Execution", r.execution)
    ]
