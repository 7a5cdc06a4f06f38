"""The schema fixtures are TOML files of every kind, copied into place by the tests that read
them: pytest-tcab would otherwise collect a `tcab.toml` or a `test-case.toml` here as an author's."""

collect_ignore_glob = ["valid/*", "mistakes/*"]
