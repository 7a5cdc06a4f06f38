"""The judge wing: validation scripts, and the verdicts they decide.

Owns the judge runtime, the Node process validation scripts run in outside the browser
(`runtime`, `judge.mjs`: the check kit and the verdict decision), what each of a script's
crossings does to the page (`crossings`), a script's passes (`scripts`), the `validate[...]`
items (`drivers`), the `requirement[...]` items of game definitions (`requirements`) and
baseline capture (`baselines`). May import the run, `browser/` (to reach
the page) and the shared modules; not `report/`.
"""
