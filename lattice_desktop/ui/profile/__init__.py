"""The Profile view: where a run's fuel goes, per function, per call edge, as a flame graph."""
