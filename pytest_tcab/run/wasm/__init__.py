"""The wasm wing: produced modules run under wasmtime, measured in fuel or played against each other.

Owns the runner and its module cache (`runner`), linear-memory caps (`memory`), the performance
items (`performance`: build, correctness, fuel), tournaments (`tournament`: schedule, matches,
standings), their items (`tournament_items`) and the referee loader (`referee`). May import the
run, `build/`, `browser/` (replays) and the shared modules; not `report/`.
"""
