"""The tests of the benchmark code (``python -m pytest benchmarks/tests``; CI runs them after the suite).

They live beside the benchmarks, out of the README's test command, and use the suite's own fixtures:
tests/conftest.py is loaded under another module name (both files are ``conftest`` to pytest), so
every test here starts, as every test of the suite does, with nothing configured.
"""

import importlib.util
from pathlib import Path

_SUITE = Path(__file__).resolve().parents[2] / "tests" / "conftest.py"
_spec = importlib.util.spec_from_file_location("vero_suite_conftest", _SUITE)
assert _spec is not None and _spec.loader is not None
_suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_suite)

clean_config = _suite.clean_config  # autouse: no developer configuration, an empty working folder
pytest_xdist_auto_num_workers = _suite.pytest_xdist_auto_num_workers  # -n auto: the suite's count
