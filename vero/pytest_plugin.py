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
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from vero.cassette import Cassette, CassetteError, Mode


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("vero", "vero record and replay")
    group.addoption(
        "--vero-record",
        action="store_true",
        help="vero_cassette: ask the model for the requests a cassette lacks, and add them",
    )
    group.addoption("--vero-rerecord", action="store_true", help="vero_cassette: record every cassette anew")


MAX_NAME_BYTES = 100  # a file name's part of a test's id, in UTF-8 (file systems count bytes); a longer one is cut,
# and told apart by its hash


def cassette_path(node: pytest.Item, rerecord: bool = False) -> Path:
    """Where a test's cassette lives: ``cassettes/<module>/<test id>.jsonl`` beside the test file, the id its class
    and name (``TestA.test_run``).  Its characters a file name cannot hold are written ``_``, and then a short hash of
    the id keeps apart ids that differ only there (``[x/y]``, ``[x y]``); a long id is cut, its hash kept.  A cassette
    recorded under the name vero gave it before (the test's name alone) is still replayed while the test has none of
    its own, unless that name may be another test's: one of this session's tests has it as its name, or had it."""
    folder = Path(str(node.path)).parent / "cassettes" / Path(str(node.path)).stem
    own, earlier = folder / f"{_own_name(node)}.jsonl", folder / f"{_file_name(node.name)}.jsonl"
    if rerecord or own == earlier or len(os.fsencode(earlier.name)) >= 255 or own.exists() or not earlier.is_file():
        return own  # a new recording always goes under the test's own name: another test's file is never cut
    session_items = getattr(getattr(node, "session", None), "items", [])
    claimed = any(
        item is not node and item.path == node.path and earlier.stem in (_own_name(item), _file_name(item.name))
        for item in session_items
    )
    return own if claimed else earlier


def _own_name(node: pytest.Item) -> str:
    """The file name of a test's id: its classes and name joined by ``.`` (its parameters as written, ``[a::b]``
    not ``[a.b]``), with a short hash of the id where characters were replaced or the name was cut."""
    _, _, test_id = node.nodeid.partition("::")
    base, bracket, parameters = (test_id or node.name).partition("[")
    written = base.replace("::", ".") + bracket + parameters
    name = _file_name(written)
    if name != written or len(name.encode()) > MAX_NAME_BYTES:  # 天 is 3 bytes
        cut = name.encode()[:MAX_NAME_BYTES].decode("utf-8", "ignore")  # whole characters only
        name = f"{cut}-{hashlib.sha256(written.encode()).hexdigest()[:8]}"
    return name


def _file_name(text: str) -> str:
    """``text`` with every run of characters a file name may not hold written ``_``."""
    return re.sub(r"[^\w.-]+", "_", text).strip("_") or "test"


@pytest.fixture
def vero_cassette(request: pytest.FixtureRequest) -> Iterator[Cassette]:
    """This test's cassette: replayed, or recorded with ``--vero-record`` / ``--vero-rerecord``."""
    config = request.config
    mode: Mode = (
        "record"
        if config.getoption("vero_rerecord")
        else "replay_then_live"
        if config.getoption("vero_record")
        else "replay"
    )
    path = cassette_path(request.node, rerecord=mode == "record")
    try:
        cassette = Cassette(path, mode)
    except CassetteError as exc:
        hint = " Run `pytest --vero-record` once with a model configured to record it." if not path.exists() else ""
        pytest.fail(f"{exc}.{hint}", pytrace=False)
    yield cassette
    if cassette.error is not None:  # a full disk: the test passed, its recording is not whole
        pytest.fail(f"the cassette {path} could not be written ({cassette.error.strerror or cassette.error})", False)
