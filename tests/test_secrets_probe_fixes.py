"""Keys an outside probe found printed, and a cassette it found crashing vero: argparse's usage
errors (made before the command masks anything), credentials of the base URL echoed outside the
URL, a ``.env`` setting that holds the key by mistake, and a cassette header nested too deeply."""

from __future__ import annotations

import base64

import pytest
from test_cli import vero

from vero import ChatOpenAI, LLMConfigError, cli, config
from vero.cassette import Cassette, CassetteError
from vero.cli import api_key_values
from vero.config import Settings
from vero.core.secrets import MIN_PIECE, url_credentials
from vero.core.text import redact_url
from vero.testing import HTTPFault

KEY = "sk-test-acme-r17-0123456789"  # the key of the environment, .env or --api-key
QUERY_KEY = "sk-test-QUERY-r17-987654321"  # a key in the base URL's query string
PASSWORD = "sk-test-PASSWORD-r17-4242"  # a key as the base URL's userinfo password


def shows(secret: str, text: str) -> bool:
    """True if ``text`` holds ``secret`` or a piece of it ``MIN_PIECE`` characters long."""
    return any(secret[i : i + MIN_PIECE] in text for i in range(len(secret) - MIN_PIECE + 1))


@pytest.fixture
def dotenv(tmp_path):
    """``./.env`` of one test (the working folder is ``tmp_path``), removed before conftest reads the settings again."""
    path = tmp_path / ".env"
    yield path
    path.unlink(missing_ok=True)


@pytest.fixture
def srv(shared_mock_server):
    """An empty, running MockOpenAIServer (reused between tests, reset for each: see mock_pool.py)."""
    return shared_mock_server


# --------------------------------------------------------------------------- 1. argparse's usage errors


@pytest.mark.parametrize(
    "args",
    [
        ["--api-key", KEY, "run", "hi"],  # the global-option-first habit: KEY is taken for the command
        [f"--api-key={KEY}", "run", "hi"],
        ["demo", "--api-key", KEY],  # demo has no --api-key
        ["run", "hi", "--api_key", KEY],  # the underscore typo
        ["run", "hi", f"--api_key={KEY}"],
        ["run", f"--a={KEY}", "hi"],  # ambiguous (--agent, --api-key): argparse quotes it whole
    ],
)
def test_a_usage_error_masks_the_value_given_to_api_key(tmp_path, args):
    done = vero(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert "error: " in done.stderr and "***" in done.stderr
    assert not shows(KEY, done.stdout + done.stderr)


def test_a_subcommand_usage_error_masks_the_key_of_the_environment(tmp_path):
    done = vero("run", "hi", "--recovery", KEY, cwd=tmp_path, OPENAI_API_KEY=KEY)
    assert done.returncode == 2
    assert "vero run: error: argument --recovery: invalid choice: '***'" in done.stderr
    assert not shows(KEY, done.stderr)


def test_a_usage_error_masks_the_key_of_dotenv(tmp_path, dotenv):
    dotenv.write_text(f"OPENAI_API_KEY={KEY}\n")
    done = vero("run", "hi", KEY, cwd=tmp_path)  # the key pasted as an argument
    assert done.returncode == 2
    assert "unrecognized arguments: ***" in done.stderr and not shows(KEY, done.stderr)


def test_a_usage_error_redacts_credentials_in_a_url(tmp_path):
    done = vero(f"http://alice:{PASSWORD}@127.0.0.1:9/v1", "run", "hi", cwd=tmp_path)
    assert done.returncode == 2
    assert "http://***@127.0.0.1:9/v1" in done.stderr and not shows(PASSWORD, done.stderr)


def test_api_key_values_reads_every_spelling_of_the_option():
    args = ["--api-key", "a1", "--api-key=a2", "--api_key", "a3", "--api=a4", "--agent", "chat", "--api-key"]
    assert api_key_values(args) == ["a1", "a2", "a3", "a4", ""]


# --------------------------------------------------------------------------- 2. credentials in the base URL


def serve_query_url(srv, status: int, body: dict) -> None:
    """Answer ``body`` where the SDK sends a request for a base URL with a query string
    (``POST /v1/?key=...chat/completions``: its path is ``/v1/``)."""
    srv.add_route("POST", "/v1", lambda request: (status, {}, body))


def completion(text: str) -> dict:
    message = {"role": "assistant", "content": text}
    choice = {"index": 0, "message": message, "finish_reason": "stop"}
    return {"id": "c-r17", "object": "chat.completion", "created": 0, "model": "acme", "choices": [choice]}


def test_a_query_key_of_the_base_url_echoed_by_the_server_is_masked(srv, tmp_path):
    serve_query_url(srv, 401, {"error": {"message": f"Invalid api_key: {QUERY_KEY}", "type": "auth"}})
    url = f"{srv.base_url}?api_key={QUERY_KEY}&api-version=2024-06-01"
    done = vero("run", "hi", "--agent", "chat", "--tools", "none", "--base-url", url, cwd=tmp_path)
    assert done.returncode == 1
    assert "Invalid api_key: ***" in done.stderr
    assert not shows(QUERY_KEY, done.stdout + done.stderr)


def test_a_userinfo_password_of_the_base_url_echoed_by_the_server_is_masked(srv, tmp_path):
    srv.enqueue(HTTPFault(401, f"bad password {PASSWORD} for user alice"))
    url = srv.base_url.replace("http://", f"http://alice:{PASSWORD}@")
    done = vero("run", "hi", "--agent", "chat", "--tools", "none", "--base-url", url, cwd=tmp_path)
    assert "bad password *** for user alice" in done.stderr
    assert not shows(PASSWORD, done.stdout + done.stderr)


def test_a_query_key_of_openai_base_url_in_a_reply_is_masked_in_json(srv, tmp_path):
    serve_query_url(srv, 200, completion(f"The gateway key is {QUERY_KEY}"))
    url = f"{srv.base_url}?key={QUERY_KEY}"
    done = vero("run", "hi", "--agent", "chat", "--tools", "none", "--json", cwd=tmp_path, OPENAI_BASE_URL=url)
    assert done.returncode == 0, done.stderr
    assert '"answer": "The gateway key is ***"' in done.stdout
    assert not shows(QUERY_KEY, done.stdout + done.stderr)


def test_url_credentials_are_the_password_and_the_query_values_but_plain_ones():
    url = "https://bob:pa%24sword-r17@acme.example/v1?api-version=2024-06-01&sig=abc%2Bdef%3D123&n=1"
    basic = base64.b64encode(b"bob:pa$sword-r17").decode()  # the Authorization: Basic form of the two
    assert url_credentials(url) == ["pa%24sword-r17", "pa$sword-r17", "abc%2Bdef%3D123", "abc+def=123", basic]
    assert url_credentials("http://[::1") == [] and url_credentials(None) == []
    user_alone = url_credentials("https://ghp-token-0123456789@acme.example/v1")  # and the Basic form the library sends
    assert user_alone == ["ghp-token-0123456789", base64.b64encode(b"ghp-token-0123456789:").decode()]


# --------------------------------------------------------------------------- 3. a bad setting holding the key


@pytest.mark.parametrize("name", ["TIMEOUT", "TEMPERATURE", "MAX_TOKENS", "VERO_MAX_RETRIES"])
def test_a_bad_setting_from_dotenv_that_holds_the_key_does_not_show_it(dotenv, capsys, monkeypatch, name):
    dotenv.write_text(f"OPENAI_API_KEY={KEY}\n{name}={KEY}\n")
    monkeypatch.setattr(config, "_settings", None)  # main reads them, ./.env too (test_cli's vero() would first)
    assert cli.main(["run", "hi", "--base-url", "http://127.0.0.1:9/v1"]) == 2
    err = capsys.readouterr().err
    assert f"not valid: setting {name}='***'" in err and not shows(KEY, err)


def test_settings_from_env_error_shows_no_key():
    with pytest.raises(ValueError, match="TIMEOUT") as error:
        Settings.from_env(environ={"TAVILY_API_KEY": KEY, "TIMEOUT": f"{KEY}s"})
    assert not shows(KEY, str(error.value))


# --------------------------------------------------------------------------- 4. a cassette header nested too deeply


@pytest.mark.parametrize("mode", ["replay", "replay_then_live"])
def test_a_cassette_whose_header_is_nested_too_deeply_is_a_cassette_error(tmp_path, mode):
    path = tmp_path / "deep.jsonl"
    path.write_text("[" * 100_000 + "\n")
    with pytest.raises(CassetteError, match=r"deep\.jsonl, line 1: not a vero cassette"):
        Cassette(path, mode=mode)


def test_replaying_a_cassette_whose_header_is_nested_too_deeply_exits_2_with_one_line(tmp_path):
    (tmp_path / "deep.jsonl").write_text("[" * 100_000 + "\n")
    done = vero("run", "hi", "--replay", "deep.jsonl", "--base-url", "http://127.0.0.1:9/v1", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["vero: deep.jsonl, line 1: not a vero cassette (no header line)"]


# ----------------------------------------------------------------------- the search keys, in the files the CLI writes

SEARCH_KEY = "tvly-test-SEARCH-r29-13579"


def test_a_search_key_a_reply_repeats_is_masked_in_the_trace_and_the_cassette(srv, tmp_path):
    srv.enqueue(f"The search key is {SEARCH_KEY}.")
    trace, cassette = tmp_path / "trace.jsonl", tmp_path / "cassette.jsonl"
    done = vero(
        "run", "hi", "--agent", "chat", "--tools", "none", "--base-url", srv.base_url,
        "--trace", str(trace), "--record", str(cassette), cwd=tmp_path, TAVILY_API_KEY=SEARCH_KEY,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for written in (done.stdout + done.stderr, trace.read_text(encoding="utf-8"), cassette.read_text(encoding="utf-8")):
        assert "The search key is ***" in written or "search key" not in written
        assert not shows(SEARCH_KEY, written)


# --------------------------------------------------------------------------- a base URL's password with / ? or #

SLASHED = "Tok/en+SECRET-r29-pw"


@pytest.mark.parametrize("sign", ["/", "?", "#"])
def test_a_password_holding_a_url_sign_is_a_config_error_that_masks_it(sign):
    url = f"http://alice:{SLASHED.replace('/', sign)}@127.0.0.1:9/v1"
    with pytest.raises(LLMConfigError, match="%2F, %3F and %23") as refused:
        ChatOpenAI(model_name="m", api_key=KEY, base_url=url)
    assert "SECRET" not in str(refused.value) and "Tok" not in str(refused.value)
    assert redact_url(url) == "http://***@127.0.0.1:9/v1"
    assert SLASHED.replace("/", sign) in url_credentials(url)


def test_a_password_that_reads_as_a_port_is_refused_before_a_request_goes_to_that_host(tmp_path):
    url = "http://alice:4711#en+SECRET-r29-pw@127.0.0.1:9/v1"
    done = vero("run", "hi", "--tools", "none", "--base-url", url, "--json", cwd=tmp_path)
    assert done.returncode == 2 and "SECRET" not in done.stdout + done.stderr
    assert "%23" in done.stdout
