"""The Results tab's diagnosis of a wrong run: the rule it most likely broke, the spec's
sentence for it, and the events that prove it as links; a link names a case, a tick and
a cell, and `place_chosen` asks the Factory tab to show them. Worked out on a worker
(`services.explain_run`, cached on disk with the run)."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from lattice_desktop.lattice.explain.diagnosis import Diagnosis
from lattice_desktop.services.explain_run import NotLattice, NotWrong, explain_run
from lattice_desktop.store.queries import StoredRun
from lattice_desktop.ui.common.latest_query import LatestQuery
from lattice_desktop.work import Step, Work

MAX_RULES = 3


def diagnose_or_none(run: StoredRun, *, work: Work) -> Diagnosis | None:
    """The run's diagnosis, None when there is nothing to show (no wrong answer, or a case
    that is not a Lattice factory)."""
    try:
        return explain_run(run, work=work)
    except (NotWrong, NotLattice):
        return None


def place_link(case: str, tick: int, x: int, y: int) -> str:
    return f"place:{case}:{tick}:{x}:{y}"


def diagnosis_html(d: Diagnosis) -> str:
    link = place_link(d.case, d.tick, *d.cell)
    rows = [
        f"<b>Why it is wrong</b> — <code>{html.escape(d.case)}</code>, first wrong tick "
        f"<a href='{link}'>{d.tick:,} at ({d.cell[0]}, {d.cell[1]})</a>, {d.differing_cells:,} cells differ",
    ]
    if not d.explained:  # an explained run's summary says again what its rows below say
        rows.append(html.escape(d.summary))
    rows += [f"⚠ {html.escape(law.side)}: {html.escape(law.text)}" for law in d.conservation]
    for i, rule in enumerate(d.rules[:MAX_RULES]):
        head = "Likely rule" if i == 0 and d.explained else ("Decided nearby" if not d.explained else "Also")
        rows.append(f"{head}: <b><code>{html.escape(rule.rule)}</code></b> — {html.escape(rule.sentence)}")
        for e in rule.evidence[:3]:
            href = place_link(d.case, e.tick, *e.cell)
            rows.append(
                f"&nbsp;&nbsp;• <a href='{href}'>tick {e.tick:,}, ({e.cell[0]}, {e.cell[1]})</a>: "
                f"{html.escape(e.spec)}; the submission's {html.escape(e.submission)}"
            )
    return "<br>".join(rows)


class DiagnosisPanel(QWidget):
    """Shows a wrong run's diagnosis; hidden for a run with nothing to explain."""

    place_chosen = Signal(str, int, int, int)  # case, tick, x, y

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.LinksAccessibleByMouse
        )
        self.label.linkActivated.connect(self._link)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        self.diagnosis: Diagnosis | None = None
        self.done = True  # nothing under way: a diagnosis, nothing to show, or a failure is shown
        self._query = LatestQuery(self._show, self, on_step=self._progress)
        self._query.failed.connect(self._failed)
        self.hide()

    def show_run(self, run: StoredRun | None) -> None:
        """Explain `run` in the background if it has a wrong answer; else hide."""
        self._query.forget()
        self.diagnosis, self.done = None, True
        if run is None or not any(r.mismatch is not None for r in run.results):
            self.hide()
            return
        self.label.setText("<b>Why it is wrong</b> — finding the first wrong tick and the rule behind it…")
        self.show()
        self.done = False
        self._query.request(diagnose_or_none, run, work=True)

    def stop(self) -> None:
        self._query.forget()

    @Slot(object)
    def _show(self, diagnosis: Diagnosis | None) -> None:
        self.diagnosis, self.done = diagnosis, True
        if diagnosis is None:
            self.hide()
            return
        self.label.setText(diagnosis_html(diagnosis))
        self.show()

    def _progress(self, step: Step) -> None:
        if step.message:
            self.label.setText(f"<b>Why it is wrong</b> — {html.escape(step.message)}")

    @Slot(str, str)
    def _failed(self, message: str, trace: str) -> None:
        self.label.setText(f"<b>Why it is wrong</b> — the diagnosis failed: {html.escape(message)}")
        self.label.setToolTip(trace)
        self.done = True
        self.show()

    @Slot(str)
    def _link(self, href: str) -> None:
        kind, _, rest = href.partition(":")
        if kind != "place":
            return
        case, tick, x, y = rest.rsplit(":", 3)
        self.place_chosen.emit(case, int(tick), int(x), int(y))
