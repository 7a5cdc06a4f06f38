"""The review wing: a person finishes the score (DESIGN "Review: a person finishes the score").

It reads the run wing's records (results.json runs) and the operator's review files, and is
joined to run mode by the `pytest_tcab_run_results` hook alone: nothing under `pytest_tcab.run`
imports it.
"""
