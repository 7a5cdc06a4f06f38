"""`run_pytest_script.py`: pytest with the adapter and the ids the explorer wrote to RUN_TEST_IDS_PIPE."""

import os
import pathlib
import sys

import pytest

if __name__ == "__main__":
    sys.path.append(os.fspath(pathlib.Path(__file__).parent.parent))
    ids_file = pathlib.Path(os.environ["RUN_TEST_IDS_PIPE"])
    ids = ids_file.read_text(encoding="utf-8").splitlines()
    ids_file.unlink()
    pytest.main(["-p", "vscode_pytest", *sys.argv[1:], *ids])
