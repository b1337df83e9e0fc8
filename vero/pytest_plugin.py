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

import hashlib
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


MAX_NAME_CHARS = 100  # a file name's part of a test's id; a longer one is cut, and told apart by its hash


def cassette_path(node: pytest.Item) -> Path:
    """Where a test's cassette lives: ``cassettes/<module>/<test id>.jsonl`` beside the test file, the id its class
    and name (``TestA.test_run``).  Its characters a file name cannot hold are written ``_``, and then a short hash of
    the id keeps apart ids that differ only there (``[x/y]``, ``[x y]``); a long id is cut, its hash kept.  A cassette
    recorded under the name vero gave it before (the test's name alone) is still found there."""
    folder = Path(str(node.path)).parent / "cassettes" / Path(str(node.path)).stem
    written = ".".join(node.nodeid.split("::")[1:]) or node.name
    name = _file_name(written)
    if name != written or len(name) > MAX_NAME_CHARS:
        name = f"{name[:MAX_NAME_CHARS]}-{hashlib.sha256(written.encode()).hexdigest()[:8]}"
    earlier = folder / f"{_file_name(node.name)}.jsonl"  # as named before
    found = name != earlier.stem and len(earlier.name) < 255 and earlier.is_file()
    return earlier if found else folder / f"{name}.jsonl"


def _file_name(text: str) -> str:
    """``text`` with every run of characters a file name may not hold written ``_``."""
    return re.sub(r"[^\w.-]+", "_", text).strip("_") or "test"


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
