"""The run header, always visible above the tabs: what was run, its verdict, its score
and where it stands in the field; for a harness run, its Score, Execution and rank."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QFont, QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from lattice_desktop.formatting import fuel, grouped, moment
from lattice_desktop.outcomes import Verdict
from lattice_desktop.services.run_failure import run_failure
from lattice_desktop.store.harness_runs import run_name
from lattice_desktop.store.pages import HarnessPage, RunPage
from lattice_desktop.ui.common import theme
from lattice_desktop.ui.leaderboard.model import UNRANKED_MARK


class ElidedLabel(QLabel):
    """One line of plain text that shortens with "…" (the whole text in its tooltip) rather
    than widening the window: a submission's name can be as long as it likes."""

    MIN_WIDTH = 120

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self.setTextFormat(Qt.TextFormat.PlainText)

    def setText(self, text: str) -> None:
        self._full = text
        self.updateGeometry()
        self._elide()

    def text(self) -> str:
        return self._full

    def sizeHint(self) -> QSize:
        margins = self.contentsMargins()
        width = self.fontMetrics().horizontalAdvance(self._full) + margins.left() + margins.right() + 2
        return QSize(width, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(min(self.MIN_WIDTH, self.sizeHint().width()), super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        room = self.contentsRect().width()
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, room)
        super().setText(shown)
        self.setToolTip(self._full if shown != self._full else "")


class ChipLabel(QLabel):
    """A verdict chip as a label: symbol, word and colour together."""

    def set_verdict(self, verdict: Verdict | None) -> None:
        if verdict is None:
            self.clear()
            self.setStyleSheet("")
            return
        colour = theme.verdict_colour(verdict)
        self.setText(verdict.look.text)
        self.setStyleSheet(
            f"QLabel {{ background: {theme.tint(colour, 60).name(QColor.NameFormat.HexArgb)};"
            f" border: 1px solid {colour.name()}; border-radius: 10px; padding: 2px 10px; }}"
        )


class RunHeader(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = ElidedLabel()
        title_font = QFont(self.title.font())
        title_font.setPointSizeF(title_font.pointSizeF() * 1.25)
        title_font.setBold(True)
        self.title.setFont(title_font)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.chip = ChipLabel()
        self.score = QLabel()
        score_font = QFont(title_font)
        score_font.setBold(False)
        self.score.setFont(score_font)
        self.score.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.standing = QLabel()
        self.subtitle = QLabel()
        self.subtitle.setEnabled(False)  # the palette's quieter text
        self.subtitle.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for label in (self.standing, self.subtitle):  # a submission's text: `<h1>` in a name
            label.setTextFormat(Qt.TextFormat.PlainText)  # must not become markup

        top = QHBoxLayout()
        top.addWidget(self.title)
        top.addWidget(self.chip)
        top.addStretch(1)
        top.addWidget(self.score)
        bottom = QHBoxLayout()
        bottom.addWidget(self.subtitle)
        bottom.addStretch(1)
        bottom.addWidget(self.standing)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.addLayout(top)
        layout.addLayout(bottom)
        self.show_page(None)

    def show_page(self, page: RunPage | None) -> None:
        if page is None:
            self.title.setText("No run open")
            self.chip.set_verdict(None)
            self.score.clear()
            self.standing.clear()
            self.subtitle.setText("Pick a run on the left, or Grade submission… (Ctrl+G).")
            return
        s = page.run.summary
        self.title.setText(f"{s.submission} · {s.case_label} · {s.model}")
        self.chip.set_verdict(s.verdict)
        if s.score is not None:
            self.score.setText(fuel(s.score))
            self.score.setToolTip(f"{grouped(s.score)} fuel over the stress cases")
        elif s.verdict is Verdict.OVER_CEILING and s.stress_fuel is not None:
            over = f" (+{s.max_percent_over:.1f}% over the ceiling)" if s.max_percent_over else ""
            self.score.setText(f"no score{over}")
            self.score.setToolTip(f"{grouped(s.stress_fuel)} fuel, partly on the runway")
        elif (failure := run_failure(page.run.results, page.run.build_log)) is not None:
            self.score.setText("no score — build failed" if failure.is_build else "no score — module refused")
            self.score.setToolTip(failure.why)
        else:
            self.score.setText("no score")
            self.score.setToolTip("Only a correct run earns a fuel score")
        if page.standing is not None:
            self.standing.setText(page.standing.describe())
            self.standing.setToolTip(
                "Rank among every model's best correct run of this case, "
                "version, variant and wasmtime version"
            )
        else:
            self.standing.setText("not ranked (only correct runs are)")
            self.standing.setToolTip("")
        if not s.identity.registered:  # the title names the case; its identity is said here
            self.standing.setText(f"{self.standing.text()} · unregistered case, ranked apart")
            self.standing.setToolTip(f"{s.identity.note}: its field holds only runs of this content")
        when = moment(s.started, local=True)
        self.subtitle.setText(f"run #{s.id} · {when} · wasmtime {page.run.wasmtime_version}")

    def show_message(self, title: str, subtitle: str) -> None:
        """For a page that is not a performance run (a harness run)."""
        self.title.setText(title)
        self.chip.set_verdict(None)
        self.score.clear()
        self.standing.clear()
        self.subtitle.setText(subtitle)

    def show_harness(self, page: HarnessPage) -> None:
        """A harness run: "harness · box · stage · model", its Score and Execution."""
        r = page.result
        score, execution = r.metrics["score"], r.execution
        self.title.setText(f"{r.harness} · {r.box} · {r.stage} · {r.model}")
        self.chip.set_verdict(None)
        self.score.setText(f"Score {score.shown} · Execution {execution.shown}")
        self.score.setToolTip(
            f"{score.shown_formula}\n{execution.shown_formula}\n\nScore ranks first, "
            'then Execution; "-" is a metric that could not be measured'
        )
        self.standing.setText(harness_standing(page))
        if r.unranked is not None:
            self.standing.setToolTip(
                f"{UNRANKED_MARK} not ranked: {r.unranked}\nPlaced by its Score, after the ranked "
                "runs of that Score, an unknown cost taken as Cost 0.\nA board lists one run per "
                "harness, model and agent: its best"
            )
        elif page.position is not None:
            self.standing.setToolTip(
                "Rank among every harness and model's best run of this box "
                "and stage: by Score, then Execution, then tie-breakers"
            )
        else:
            self.standing.setToolTip("A board lists one run per harness, model and agent: its best")
        when = moment(page.imported, local=True)
        self.subtitle.setText(
            f"harness run {run_name(r)} · #{page.id} · imported {when} · scorer version {r.scorer_version}"
        )


def harness_standing(page: HarnessPage) -> str:
    """Where a harness run stands, as the harness board shows it: "#2 of 3 on box · stage";
    "#2* of 3 …" and the reason for a run placed by its Score but not ranked; or the run
    that stands for its agent (and this run's own reason, when it is not ranked)."""
    r = page.result
    board = f"{r.box} · {r.stage}"
    reason = f" · not ranked: {r.unranked}" if r.unranked is not None else ""
    if page.position is None:
        return f"not on the board — run #{page.best_id} is this agent's best{reason}"
    mark = "" if r.unranked is None else UNRANKED_MARK
    return f"#{page.position}{mark} of {page.board_size} on {board}{reason}"
