"""Text put into an HTML export: control characters written as visible escapes first
(`formatting.printable`: ESC as `\\u001b`, NUL as `\\u0000`, as the terminal shows them),
then HTML-escaped. Someone else's text (a harness event, a model name, a build log) can
neither inject markup nor hide raw bytes in the file."""

from __future__ import annotations

import html

from lattice_desktop.formatting import printable


def escape(value: object, *, keep: str = "") -> str:
    """`value` safe inside HTML text or an attribute; `keep` names control characters left
    as they are (newlines and tabs inside a `<pre>`)."""
    return html.escape(printable(value, keep=keep))
