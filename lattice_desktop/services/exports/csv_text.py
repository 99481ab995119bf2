"""Tables as CSV text that a spreadsheet opens safely: a header row, then values as they
are stored (whole fuel, not SI-prefixed), empty for a missing value, text with its
control characters escaped."""

from __future__ import annotations

import csv
import io

from lattice_desktop.formatting import printable
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
    """A text cell with its control characters escaped (ESC as `\\u001b`, a newline as
    `\\u000a`, as the terminal shows them: someone else's text carries no raw bytes into a
    spreadsheet), and kept as text when it would start a formula."""
    if value is None:
        return ""
    if isinstance(value, str):
        value = printable(value)
        return "'" + value if value.startswith(_FORMULA_STARTS) else value
    return value
