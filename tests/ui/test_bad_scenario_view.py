"""A scenario file that cannot be opened shows its error where the map would be — the
fault and its line first, the file below — sized to the map, however long its path; the
window keeps its width; the next good file takes the message away."""

from __future__ import annotations

from lattice_desktop.lattice.generator import generate
from lattice_desktop.ui.factory.empty_state import split_location

BAD = "lattice 1\nsize 3 2\nticks 10\nsnapshot 5\nitem 1\nsource 9 9 E 1 1\ngrid\n...\n...\n"


def test_a_bad_file_shows_its_error_on_the_map_without_widening_the_window(qtbot, window, tmp_path):
    folder = tmp_path / ("a_rather_long_folder_name_for_the_team_scenarios_" * 4)
    folder.mkdir()
    bad = folder / "bad_factory_from_the_review_meeting.lat"
    bad.write_text(BAD)
    window.show()
    qtbot.waitExposed(window)
    width = window.width()
    window.open_scenarios([bad])
    tab = window.factory_tab
    message = tab.open_error
    qtbot.waitUntil(message.isVisible, timeout=10_000)
    assert message.title.text() == "⚠ bad_factory_from_the_review_meeting.lat could not be opened"
    assert message.body.text() == "Line 6: source: cell (9, 9) is off the 3x2 grid"
    assert str(bad) in message.hint.text()
    assert message.geometry() == tab.canvas.rect()  # where the map would be
    qtbot.wait(50)  # let any relayout the long text would cause happen
    assert window.width() == width
    assert all(label.width() <= message.width() for label in (message.title, message.body, message.hint))

    good = tmp_path / "good.lat"
    good.write_text(generate(5, width=12, height=12, ticks=40, snapshot=10))
    window.open_scenarios([good])
    qtbot.waitUntil(lambda: not message.isVisible(), timeout=30_000)


def test_the_location_is_split_from_the_fault_only_when_it_names_the_file():
    assert split_location("/x/a.lat:6: source: off the grid", "/x/a.lat") == (
        "in /x/a.lat",
        "Line 6: source: off the grid",
    )
    assert split_location("/x/a.lat: scenario is 9 bytes", "/x/a.lat") == (
        "in /x/a.lat",
        "scenario is 9 bytes",
    )
    assert split_location("engine trapped", "/x/a.lat") == ("", "engine trapped")
    assert split_location("anything", None) == ("", "anything")
