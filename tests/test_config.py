import os
import subprocess
import sys

import pytest

import vero
from vero import ChatOpenAI, LLMConfigError
from vero.config import Settings, env_flag, reload_settings


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
    from vero.tool.builtin import python_runner

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
    config.load_env_file(str(tmp_path / ".env"))
    assert "VERO_PYTHON_SANDBOX" not in os.environ and "cannot switch off a safety setting" in caplog.text
    (tmp_path / ".env").write_text("VERO_PYTHON_SANDBOX=on\n")
    config.load_env_file(str(tmp_path / ".env"))
    assert os.environ["VERO_PYTHON_SANDBOX"] == "on"
    monkeypatch.delenv("VERO_PYTHON_SANDBOX")


def test_an_endpoint_from_a_dotenv_is_warned_about_once_unless_its_key_comes_from_the_same_file(
    tmp_path, monkeypatch, fresh_env_file_state, caplog
):
    config = fresh_env_file_state
    dotenv = tmp_path / ".env"
    dotenv.write_text("OPENAI_BASE_URL=http://user:s3cr3t-pw@elsewhere.invalid:8080/v1\nOPENAI_API_KEY=sk-file-key\n")
    config.load_env_file(str(dotenv))
    config.warn_if_endpoint_from_env_file("OPENAI_BASE_URL")
    assert caplog.text == ""  # the file's author sends their own key to their own server
    config.warn_if_endpoint_from_env_file("OPENAI_BASE_URL", key_given=True)
    config.warn_if_endpoint_from_env_file("OPENAI_BASE_URL", key_given=True)
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and str(dotenv) in warnings[0] and "host elsewhere.invalid" in warnings[0]
    assert "your code" in warnings[0] and "s3cr3t" not in warnings[0] and "sk-file-key" not in warnings[0]
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name)
