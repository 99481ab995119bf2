"""Storage of cases, submissions, runs and results (peewee; SQLite by default)."""
