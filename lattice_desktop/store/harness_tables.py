"""Tables for scored agent-harness runs. The box and trace are kept verbatim so that every
published metric can be recomputed later (`harness verify`)."""

from __future__ import annotations

from peewee import AutoField, CharField, DateTimeField, DoubleField, TextField

from lattice_desktop.store.base import BaseModel


class HarnessRun(BaseModel):
    id = AutoField()  # given by `run_numbers`: one sequence with graded runs
    box = CharField(index=True)
    stage = CharField()
    harness = CharField()
    model = CharField()
    score = DoubleField()
    execution = DoubleField(null=True)
    last_capture = DoubleField(null=True)  # seconds into the run; a tie-breaker
    box_source = TextField()
    box_text = TextField()
    trace_source = TextField()
    trace_text = TextField()
    result_json = TextField()  # what was published, to compare on verify
    imported = DateTimeField()
    # Hidden by the user (as `hidden_run` marks a graded run): kept, left out of the runs
    # list and the boards. A column here, since no covering index reads this table.
    hidden = DateTimeField(null=True)

    class Meta:
        table_name = "harness_run"


HARNESS_TABLES = [HarnessRun]
