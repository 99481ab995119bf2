"""The harness runs' face in the app: opening a harness run (`side.py`), its Results view
(`results.py`, `models.py`), its Transcript (`transcript_tab.py`, `transcript_model.py`),
imports and checks (`ops.py`); the harness leaderboard's model is `ui/leaderboard/harness_board.py`."""
