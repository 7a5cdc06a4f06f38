"""The sandbox wing: every command the produced code runs, the sandbox and caps it runs under, and what guards the judge against it.

Owns the build steps (`steps`), the bubblewrap sandbox they run in (`sandbox`), the `[toolchain]`
items (`toolchain`), the reporter-side snapshot taken before the first step (`snapshot`), the
`.ts` stripping of validators (`typescript`), and the `build`/`proof[...]` family (`items`).
May import the run (`run.context`, `run.item`) and the package's shared modules; not `report/`.
"""
