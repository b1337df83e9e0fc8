"""The ``vero_cassette`` pytest fixture: record a session with a real model once, replay it in every test run.

Installed with vero (a ``pytest11`` entry point), so any project's tests can use it::

    def test_my_agent(vero_cassette):
        llm = ChatOpenAI(model_name="gpt-4o-mini", cassette=vero_cassette)
        ...

Each test has its own cassette, ``cassettes/<test module>/<test name>.jsonl`` beside the test
file.  ``pytest`` replays it offline (no key, no network); a test without one fails, saying how to
record it.  ``pytest --vero-record`` records the requests a cassette lacks (replaying the rest), and
``pytest --vero-rerecord`` records every cassette anew.  Commit the cassettes with the tests.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vero.core.cassette import Cassette, CassetteError, Mode


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("vero", "vero record and replay")
    group.addoption(
        "--vero-record",
        action="store_true",
        help="vero_cassette: ask the model for the requests a cassette lacks, and add them",
    )
    group.addoption("--vero-rerecord", action="store_true", help="vero_cassette: record every cassette anew")


def cassette_path(node: pytest.Item) -> Path:
    """Where a test's cassette lives: ``cassettes/<module>/<test name>.jsonl`` beside the test file."""
    test_file = Path(str(node.path))
    name = re.sub(r"[^\w.-]+", "_", node.name).strip("_") or "test"
    return test_file.parent / "cassettes" / test_file.stem / f"{name}.jsonl"


@pytest.fixture
def vero_cassette(request: pytest.FixtureRequest) -> Cassette:
    """This test's cassette: replayed, or recorded with ``--vero-record`` / ``--vero-rerecord``."""
    config = request.config
    mode: Mode = (
        "record"
        if config.getoption("vero_rerecord")
        else "replay_then_live"
        if config.getoption("vero_record")
        else "replay"
    )
    path = cassette_path(request.node)
    try:
        return Cassette(path, mode)
    except CassetteError as exc:
        hint = " Run `pytest --vero-record` once with a model configured to record it." if not path.exists() else ""
        pytest.fail(f"{exc}.{hint}", pytrace=False)
