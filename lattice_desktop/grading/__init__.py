"""Grading: smoke tests first, then fuel on the stress cases; verdicts and the field."""
