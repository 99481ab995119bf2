"""Tables as CSV text that a spreadsheet opens safely: a header row, then values as they
are stored (whole fuel, not SI-prefixed), empty for a missing value."""

from __future__ import annotations

import csv
import io

from lattice_desktop.services.exports.tables import Cell, Table

# A text cell a spreadsheet would run as a formula (a model or submission name is someone
# else's text) is kept as text by a leading apostrophe.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_text(table: Table) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.headers)
    writer.writerows([_cell(value) for value in row] for row in table.rows)
    return out.getvalue()


def _cell(value: Cell) -> str | int | float:
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value
