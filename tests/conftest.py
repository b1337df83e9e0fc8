"""Shared fixtures: no test may see the developer's real configuration."""

import os

import pytest

import vero.config
import vero.core.providers

# every setting vero reads from the environment, the names a .env may set (test_docs checks the docs name only these)
CONFIG_VARS = vero.config.SETTING_NAMES


@pytest.fixture(autouse=True)
def clean_config(monkeypatch, tmp_path):
    """Each test starts with nothing configured and no .env in the working folder."""
    for name in CONFIG_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(vero.core.providers, "FAMILIES", list(vero.core.providers.FAMILIES))  # add_family: per test
    vero.config.reload_settings()
    yield
    vero.config.reload_settings()


@pytest.fixture
def sigint_default():
    """Children get Ctrl-C as in a terminal, even when pytest itself runs with SIGINT ignored
    (a background job of a non-interactive shell): an ignored signal stays ignored across
    exec, so the ``python`` children would never see the SIGINT the test sends."""
    import signal

    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if ignored:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.fixture
def quick_sdk_backoff(monkeypatch):
    """A dropped connection or a read timeout carries no Retry-After, so the openai SDK waits
    its own backoff (0.5 s, less up to 25 % jitter) before retrying.  No test that uses this
    fixture measures that wait (waits that matter use Retry-After, which the SDK still honours), so
    it is cut to 10 ms: the retries still happen, request for request."""
    from openai import _base_client

    if isinstance(getattr(_base_client, "INITIAL_RETRY_DELAY", None), float):  # else: keep the real wait
        monkeypatch.setattr(_base_client, "INITIAL_RETRY_DELAY", 0.01)


# --------------------------------------------------------------------------- how many workers


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (pyproject's addopts): one worker more than the cores.  About a third of the suite's
    time is waiting (timeouts the faults need, servers and interpreters starting), and a third worker
    fills those waits: on 2 cores busy with other work too, 3 workers took 110 s where 2 took 130 s."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores + 1


# --------------------------------------------------------------------------- one mock server for many tests


@pytest.fixture(scope="session", autouse=True)
def _mock_server_pool():
    """The pool of reused mock servers (mock_pool.py): stopped when the session ends."""
    import mock_pool

    yield
    mock_pool.stop_idle()


@pytest.fixture
def shared_mock_server():
    """An empty, running ``MockOpenAIServer``, reused between tests for speed (mock_pool.py)."""
    from mock_pool import pooled_mock_server

    with pooled_mock_server() as server:
        yield server


@pytest.fixture(autouse=True)
def _no_keys_in_use_from_other_tests() -> None:
    """Each test starts with no model client's key registered (``vero.core.secrets.KEYS_IN_USE``)."""
    from vero.core.secrets import KEYS_IN_USE

    KEYS_IN_USE.clear()
