"""Shared fixtures: no test may see the developer's real configuration."""

import pytest

import vero.config

_CONFIG_VARS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "MODEL_NAME", "TEMPERATURE", "TIMEOUT",
                "MAX_RETRIES", "MAX_TOKENS", "DEBUG", "TAVILY_API_KEY", "BOCHA_API_KEY")


@pytest.fixture(autouse=True)
def clean_config(monkeypatch, tmp_path):
    """Each test starts with nothing configured and no .env in the working folder."""
    for name in _CONFIG_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(tmp_path)
    vero.config.reload_settings()
    yield
    vero.config.reload_settings()
