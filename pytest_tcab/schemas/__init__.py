"""Editor schemas: a JSON Schema for every TOML file kind a suite holds, shipped in this package
(`*.schema.json`, generated from the models by `generate.py`) and written beside a suite, with the
`.taplo.toml` that maps its layouts to them, by `pytest --tcab-suite=SUITE --tcab-schemas` (`editors.py`)."""
