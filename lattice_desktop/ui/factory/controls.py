"""What the Factory tab's player, keys and "Why?" tool steer, as Protocols: they are given the
tab but know it only by these faces, so none imports the tab that builds them (no import
circle) or reaches into its private state."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtWidgets import QComboBox

    from lattice_desktop.lattice.confirm_child import Confirmation
    from lattice_desktop.lattice.divergence import Divergence
    from lattice_desktop.lattice.playback import Playback
    from lattice_desktop.lattice.snapshots import Snapshots
    from lattice_desktop.store.queries import StoredRun
    from lattice_desktop.ui.factory.canvas import FactoryCanvas
    from lattice_desktop.ui.factory.divergence_bar import DivergenceBar
    from lattice_desktop.ui.factory.divergence_view import DivergenceNavigator
    from lattice_desktop.ui.factory.loader import StateLoader
    from lattice_desktop.ui.factory.map_tools import MapTools
    from lattice_desktop.ui.factory.transport import TransportBar
    from lattice_desktop.ui.factory.why import WhyTool


class Hunter(Protocol):
    """Play to the next divergence (P): start or stop it."""

    def hunt(self) -> None: ...

    def stop_hunt(self, why: str = "") -> None: ...


class FactoryControls(Protocol):
    """The Factory tab as its player and keys see it."""

    playback: Playback | None
    tick: int
    snapshots: Snapshots | None  # the open scenario's snapshot checksums, once known
    navigator: DivergenceNavigator
    transport: TransportBar
    bar: DivergenceBar
    loader: StateLoader
    canvas: FactoryCanvas
    tools: MapTools
    why: WhyTool

    @property
    def player(self) -> Hunter: ...

    @property
    def confirmation(self) -> Confirmation | None: ...

    def show_tick(self, tick: int) -> None: ...

    def step_ticks(self, delta: int) -> None: ...

    def step_snapshot(self, direction: int) -> None: ...

    def toggle_play(self) -> None: ...

    def next_divergence(self) -> None: ...


class WhyHost(Protocol):
    """The Factory tab as its "Why?" tool sees it: the map, the differing cells and the
    submission (the navigator's), where the first wrong tick is, and how to show a tick, or
    open one of the run's cases."""

    playback: Playback | None
    snapshots: Snapshots | None
    run: StoredRun | None
    tick: int
    canvas: FactoryCanvas
    navigator: DivergenceNavigator
    loader: StateLoader
    case_box: QComboBox

    @property
    def divergence(self) -> Divergence | None: ...

    def show_tick(self, tick: int) -> None: ...

    def stop_playing(self) -> None: ...

    def open_case(self, name: str, *, at_first_divergence: bool = False) -> None: ...
