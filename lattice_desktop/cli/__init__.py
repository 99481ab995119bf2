"""The command line: grading, runs, leaderboards, case authoring and harness scoring."""
