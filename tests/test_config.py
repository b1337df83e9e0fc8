import dataclasses
import os
import shutil
import subprocess
import sys

import pytest

import vero
from vero import ChatOpenAI, LLMConfigError
from vero.config import SETTING_NAMES, Settings, env_flag, reload_settings


@pytest.mark.processes
def test_import_vero_needs_no_configuration_and_does_not_import_openai(tmp_path):
    code = "import sys, vero; from vero.agents import ReActAgent; print('openai' in sys.modules)"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": os.path.dirname(os.path.dirname(vero.__file__))}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env, check=True
    )
    assert out.stdout.strip() == "False"


def test_chat_openai_without_key_or_base_url_says_what_to_set():
    with pytest.raises(LLMConfigError) as info:
        ChatOpenAI()
    message = str(info.value)
    assert "OPENAI_API_KEY" in message and "OPENAI_BASE_URL" in message
    assert "Ollama" in message and "llama.cpp" in message


def test_settings_read_environment_and_dotenv(tmp_path, monkeypatch):
    (tmp_path / ".env").write_text("MODEL_NAME=from-dotenv\nTEMPERATURE=0.2\nMAX_RETRIES=5\nDEBUG=true\n")
    monkeypatch.setenv("MODEL_NAME", "from-env")  # the environment wins over .env
    settings = reload_settings()
    assert settings.MODEL_NAME == "from-env"
    assert settings.TEMPERATURE == 0.2
    assert settings.MAX_RETRIES == 5
    assert settings.DEBUG is True


def test_settings_defaults():
    settings = Settings.from_env(environ={})
    assert settings.OPENAI_API_KEY is None
    assert settings.MODEL_NAME == "gpt-4o-mini"
    assert settings.MAX_RETRIES == 2


def test_settings_repr_hides_keys():
    settings = Settings.from_env(environ={"OPENAI_API_KEY": "sk-secret-123", "TAVILY_API_KEY": "tv-secret"})
    assert "sk-secret-123" not in repr(settings)
    assert "tv-secret" not in repr(settings)
    assert "OPENAI_API_KEY='***'" in repr(settings)


def test_chat_openai_with_base_url_only_works_for_local_servers(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    reload_settings()
    llm = ChatOpenAI()
    assert llm.base_url == "http://127.0.0.1:9/v1"


def test_chat_openai_repr_never_shows_the_key():
    llm = ChatOpenAI(api_key="sk-very-secret-key", base_url="http://127.0.0.1:9/v1", model_name="m")
    assert "sk-very-secret-key" not in repr(llm)
    assert "model_name='m'" in repr(llm)


@pytest.mark.processes
def test_agents_are_reexported_from_vero_lazily(tmp_path):
    code = (
        "import sys, vero; loaded = 'vero.agents.react' in sys.modules; "
        "from vero import ReActAgent, PlanExecuteAgent; print(loaded, ReActAgent.__module__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": os.path.dirname(os.path.dirname(vero.__file__))},
        check=True,
    )
    assert out.stdout.split() == ["False", "vero.agents.react"]


def test_a_bad_setting_names_the_variable():
    with pytest.raises(ValueError, match="TIMEOUT='soon' is not a valid float"):
        Settings.from_env(environ={"TIMEOUT": "soon"})


@pytest.mark.parametrize(
    "name, value, says",
    [
        ("TIMEOUT", "0", "seconds above 0"),
        ("TIMEOUT", "-1", "seconds above 0"),
        ("TIMEOUT", "nan", "seconds above 0"),
        ("MAX_RETRIES", "-5", "0 or more"),
        ("TEMPERATURE", "nan", "is not a number"),
    ],
)
def test_a_setting_out_of_its_range_is_refused_when_read(name, value, says):
    with pytest.raises(ValueError, match=f"{name}='{value}'.*{says}"):
        Settings.from_env(environ={name: value})


@pytest.mark.parametrize(
    "value, default, expected",
    [
        ("y", False, True),
        ("ON", False, True),
        (" 1 ", False, True),
        ("n", True, False),
        ("No", True, False),
        ("off", True, False),
        ("fail", True, True),
        ("maybe", False, False),
        ("", True, True),
        (None, False, False),
    ],
)
def test_env_flag_reads_on_and_off_words_and_keeps_the_default_for_anything_else(value, default, expected):
    assert env_flag(value, default) is expected


def test_debug_and_the_sandbox_switch_read_the_same_words(monkeypatch):
    from vero.tools.builtin import python_runner

    monkeypatch.setenv("DEBUG", "y")
    monkeypatch.setenv("VERO_PYTHON_SANDBOX", "n")
    assert Settings.from_env().DEBUG is True and python_runner.sandbox_enabled() is False
    monkeypatch.setenv("VERO_PYTHON_SANDBOX", "unsure")  # unclear: the sandbox stays on
    assert python_runner.sandbox_enabled() is True


@pytest.fixture
def fresh_env_file_state(monkeypatch):
    """Forget which names earlier tests took from a .env file, and which endpoints were warned about."""
    from vero import config

    monkeypatch.setattr(config, "_from_file", {})
    monkeypatch.setattr(config, "_warned", set())
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "VERO_PYTHON_SANDBOX"):
        monkeypatch.delenv(name, raising=False)
    return config


def test_a_dotenv_may_switch_the_sandbox_on_but_never_off(tmp_path, monkeypatch, fresh_env_file_state, caplog):
    config = fresh_env_file_state
    (tmp_path / ".env").write_text("VERO_PYTHON_SANDBOX=off\n")
    assert config.read_env_file(str(tmp_path / ".env")) == {}
    assert "VERO_PYTHON_SANDBOX" not in os.environ and "cannot switch off a safety setting" in caplog.text
    (tmp_path / ".env").write_text("VERO_PYTHON_SANDBOX=on\n")
    assert config.read_env_file(str(tmp_path / ".env")) == {"VERO_PYTHON_SANDBOX": "on"}
    assert "VERO_PYTHON_SANDBOX" not in os.environ  # and on is the default: the sandbox stays on


def test_an_endpoint_from_a_dotenv_is_warned_about_once_unless_its_key_comes_from_the_same_file(
    tmp_path, monkeypatch, fresh_env_file_state, caplog
):
    config = fresh_env_file_state
    dotenv = tmp_path / ".env"
    dotenv.write_text("OPENAI_BASE_URL=http://user:s3cr3t-pw@elsewhere.invalid:8080/v1\nOPENAI_API_KEY=sk-file-key\n")
    config.read_env_file(str(dotenv))
    config.warn_if_endpoint_from_env_file("OPENAI_BASE_URL")
    assert caplog.text == ""  # the file's author sends their own key to their own server
    config.warn_if_endpoint_from_env_file("OPENAI_BASE_URL", key_given=True)
    config.warn_if_endpoint_from_env_file("OPENAI_BASE_URL", key_given=True)
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and str(dotenv) in warnings[0] and "host elsewhere.invalid" in warnings[0]
    assert "your code" in warnings[0] and "s3cr3t" not in warnings[0] and "sk-file-key" not in warnings[0]


# --------------------------------------------------------------------------- a .env sets vero's own settings only

PROCESS_WIDE = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "SSL_CERT_FILE", "SSLKEYLOGFILE", "OPENAI_LOG")


@pytest.fixture
def no_proxy_in_the_environment(monkeypatch):
    """No proxy or certificate variable of the machine running the tests: only a .env could set one."""
    for name in list(os.environ):
        if "proxy" in name.lower() or name in PROCESS_WIDE or name.startswith("SSL_") or name == "REQUESTS_CA_BUNDLE":
            monkeypatch.delenv(name)


class CountingProxy:
    """A TCP server on 127.0.0.1 that counts the connections it gets and closes each one."""

    def __init__(self):
        import socket
        import threading

        self.connections = 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:  # closed
                return
            self.connections += 1
            conn.close()

    def close(self):
        self.sock.close()


def test_process_wide_variables_in_a_dotenv_reach_neither_the_environment_nor_the_model_client(
    tmp_path, no_proxy_in_the_environment, fresh_env_file_state, caplog
):
    import ssl

    from vero.testing import MockOpenAIServer

    proxy = CountingProxy()
    keylog, ca_file = tmp_path / "keys.log", tmp_path / "their-ca.pem"
    shutil.copy(ssl.get_default_verify_paths().openssl_cafile, ca_file)  # a file that loads, as theirs would
    (tmp_path / ".env").write_text(
        f"HTTPS_PROXY={proxy.url}\nHTTP_PROXY={proxy.url}\nALL_PROXY={proxy.url}\n"
        f"SSL_CERT_FILE={ca_file}\nSSLKEYLOGFILE={keylog}\nOPENAI_LOG=debug\nMODEL_NAME=from-file\n"
    )
    try:
        with MockOpenAIServer(["Paris"]) as server:
            reload_settings()
            # a client of its own (a new key), built after the .env was read, retrying nothing
            llm = ChatOpenAI(base_url=server.base_url, api_key="sk-only-for-this-test-proxy", max_retries=0)
            reply = llm.generate([{"role": "user", "content": "Capital of France?"}])
            requests = len(server.requests)
    finally:
        proxy.close()
    assert proxy.connections == 0
    assert [name for name in PROCESS_WIDE if name in os.environ] == []
    assert reply.text == "Paris" and requests == 1
    assert llm.model_name == "from-file"  # vero's own setting in the same file still counts
    assert not keylog.exists()


def test_a_dotenv_warns_once_naming_the_ignored_variables_never_their_values(tmp_path, fresh_env_file_state, caplog):
    (tmp_path / ".env").write_text(
        "HTTPS_PROXY=http://user:pr0xy-pass@127.0.0.1:9\nDATABASE_URL=postgres://db-s3cret@h/x\n"
        "OPENAI_API_KEY=sk-file-key-1234567890\nTEMPERATURE=0.1\n"
    )
    settings = reload_settings()
    reload_settings()  # read again: no second warning
    warnings = [r.getMessage() for r in caplog.records if "ignored" in r.getMessage()]
    assert len(warnings) == 1, warnings
    assert "HTTPS_PROXY" in warnings[0] and "DATABASE_URL" in warnings[0] and str(tmp_path / ".env") in warnings[0]
    assert "OPENAI_API_KEY" not in warnings[0] and "TEMPERATURE" not in warnings[0]  # taken, not ignored
    for value in ("pr0xy-pass", "127.0.0.1", "db-s3cret", "sk-file-key"):
        assert value not in caplog.text
    assert settings.OPENAI_API_KEY == "sk-file-key-1234567890" and settings.TEMPERATURE == 0.1


def test_the_names_a_dotenv_may_set_are_the_settings_vero_reads():
    fields = {f.name for f in dataclasses.fields(Settings)}
    assert fields <= set(SETTING_NAMES)
    others = {name for name in SETTING_NAMES if name not in fields and name.removeprefix("VERO_") not in fields}
    assert others == {"VERO_PYTHON_SANDBOX"}  # read by python_exec, from the environment (a .env may only keep it on)


def test_the_vero_prefixed_name_wins_and_the_plain_name_is_still_read(tmp_path, monkeypatch):
    monkeypatch.setenv("MODEL_NAME", "another-tools-model")  # exported for another program
    monkeypatch.setenv("TIMEOUT", "5")
    (tmp_path / ".env").write_text("VERO_MODEL_NAME=vero-model\nVERO_DEBUG=1\nDEBUG=0\nMAX_TOKENS=77\n")
    settings = reload_settings()
    assert settings.MODEL_NAME == "vero-model" and settings.DEBUG is True  # VERO_ wins, in the file too
    assert settings.TIMEOUT == 5 and settings.MAX_TOKENS == 77  # plain names, from the environment and the file
    monkeypatch.setenv("VERO_TIMEOUT", "9")
    monkeypatch.setenv("VERO_MODEL_NAME", "exported")  # the environment wins over the file, name for name
    settings = reload_settings()
    assert settings.TIMEOUT == 9 and settings.MODEL_NAME == "exported"


@pytest.mark.parametrize("name", ["TEMPERATURE", "TIMEOUT", "MAX_RETRIES", "MAX_TOKENS", "MAX_CALL_SECONDS"])
def test_a_bad_vero_prefixed_setting_names_the_variable_it_came_from(name):
    with pytest.raises(ValueError, match=f"VERO_{name}='warm'"):
        Settings.from_env(environ={f"VERO_{name}": "warm", name: "1"})


def test_a_dotenv_value_is_taken_as_written_never_expanded_from_the_environment(
    tmp_path, monkeypatch, fresh_env_file_state
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-exported-key-123456")
    (tmp_path / ".env").write_text("VERO_DDG_URL=http://127.0.0.1:9/?k=${OPENAI_API_KEY}\n")
    assert reload_settings().VERO_DDG_URL == "http://127.0.0.1:9/?k=${OPENAI_API_KEY}"


def test_the_search_tool_reads_its_endpoints_from_the_dotenv(tmp_path, monkeypatch, fresh_env_file_state):
    from vero.tools.builtin import search

    sent = []
    monkeypatch.setattr(search, "_http", lambda url, *rest: sent.append(url) or b"{}")
    (tmp_path / ".env").write_text("VERO_DDG_URL=http://127.0.0.1:9/ddg\nVERO_TAVILY_URL=http://127.0.0.1:9/tv\n")
    reload_settings()
    search.duckduckgo("q", 3)
    search.tavily("q", 3, "tvly-key")
    assert [url.split("?")[0] for url in sent] == ["http://127.0.0.1:9/ddg", "http://127.0.0.1:9/tv"]


@pytest.mark.parametrize("content", [b"MODEL_NAME=\xff\xfe-not-utf8\n", None])
def test_an_unreadable_dotenv_is_ignored_with_a_warning(tmp_path, caplog, content):
    dotenv = tmp_path / ".env"
    dotenv.write_bytes(content or b"MODEL_NAME=m\n")
    if content is None:
        dotenv.chmod(0)
        if os.access(dotenv, os.R_OK):  # root reads it anyway
            pytest.skip("this user can read a file of mode 000")
    assert reload_settings().MODEL_NAME == "gpt-4o-mini"
    assert f"ignored {dotenv}: it cannot be read" in caplog.text
