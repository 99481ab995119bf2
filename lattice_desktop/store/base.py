"""The database handle every table binds to; which database it is is chosen at open time."""

from __future__ import annotations

from peewee import DatabaseProxy, Model

db_proxy = DatabaseProxy()


class BaseModel(Model):
    class Meta:
        database = db_proxy
        legacy_table_names = False
