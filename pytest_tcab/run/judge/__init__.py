"""The judge wing: validation scripts, and the verdicts they decide.

Owns the `validate[...]` items (`drivers`), the `requirement[...]` items of game definitions
(`requirements`) and baseline capture (`baselines`). May import the run, `browser/` (to reach
the page) and the shared modules; not `report/`.
"""
