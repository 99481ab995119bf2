"""Text another program wrote where it does not belong: a model name that is not UTF-8 and
text in the checksums column read back as unknown (the runs list and the run stay usable),
like the other damaged columns."""

from __future__ import annotations

from lattice_desktop.cli.main import main
from lattice_desktop.store.database import open_database
from lattice_desktop.store.field import leaderboard
from lattice_desktop.store.queries import distinct_values, list_runs, load_run
from tests.hostile.test_stored_data import damage, two_runs

NOT_UTF8 = "update run set model = cast(x'6576696cfffe80' as text) where id = 1"
TEXT_CHECKSUMS = "update case_result set checksums = 'not a blob' where run_id = 2"


def test_a_model_name_that_is_not_utf8_reads_as_unknown_bytes(tmp_path, capsys):
    path = two_runs(tmp_path)
    damage(path, NOT_UTF8)
    db = ["--db", str(path)]
    assert main(["runs", *db]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "evil\ufffd" in out and "model-b" in out
    open_database(path)
    runs = {r.id: r for r in list_runs()}
    assert runs[1].model.startswith("evil\ufffd") and runs[2].model == "model-b"
    assert load_run(1).summary.model.startswith("evil")
    assert any(m.startswith("evil") for m in distinct_values("model"))
    assert {e.model for e in leaderboard("echo").entries} >= {"model-b"}


def test_text_in_the_checksums_column_reads_as_unknown(tmp_path, capsys):
    path = two_runs(tmp_path)
    damage(path, TEXT_CHECKSUMS)
    db = ["--db", str(path)]
    assert main(["show", "2", *db]) == 0, capsys.readouterr().err
    assert "✓ pass" in capsys.readouterr().out
    assert main(["show", "2", "--json", *db]) == 0
    open_database(path)
    assert all(result.checksums is None for result in load_run(2).results)
