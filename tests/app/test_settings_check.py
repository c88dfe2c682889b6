"""Every setting with a format is checked when the settings are read: a bad value is
one line naming the variable, the value as written and an example."""

from __future__ import annotations

import pytest

from app.settings_check import SettingsInvalid, load_settings

BAD = [
    ("BRAINBOT_TIMEZONE", "Mars/Olympus", "Europe/Berlin"),
    ("BRAINBOT_DIGEST_TIME", "8am", "07:30"),
    ("BRAINBOT_REMINDER_TIME", "25:99", "07:30"),
    ("BRAINBOT_CATEGORIES", "notes,.git", "people,projects"),
    ("BRAINBOT_ALLOWED_USERS", "U0123ABC", "slack:U0123ABC"),
    ("BRAINBOT_APPROVAL_TOOLS", "frobnicate", "delete,move"),
    ("BRAINBOT_DIRECT_CHANGES", "rewrite", "append,tag,tick"),
    ("BRAINBOT_TOOL_HOSTS", "https://api.example/v1", "api.weather.example"),
    ("BRAINBOT_API_CORS_ORIGINS", "*", "https://wiki.example.org"),
    ("BRAINBOT_API_CORS_ORIGINS", "https://wiki.example.org/page", "https://wiki.example.org"),
    ("BRAINBOT_TEAM_VAULTS", "ops", "slack:C0123=team-ops"),
    ("DATABASE_URL", "mysql://db/brainbot", "postgresql://"),
    ("OPENAI_BASE_URL", "localhost:11434/v1", "http://localhost:11434/v1"),
    ("SLACK_API_URL", "slack.com/api", "https://slack.com/api/"),
    ("TELEGRAM_API_URL", "ftp://api.telegram.org", "https://api.telegram.org"),
    ("TELEGRAM_WEBHOOK_URL", "bot.example.org/telegram", "https://"),
    ("BRAINBOT_HTTP_PORT", "70000", "8080"),
    ("BRAINBOT_HTTP_PORT", "http", "8080"),
    ("BRAINBOT_MAX_NOTE_BYTES", "1MB", "1000000"),
    ("BRAINBOT_MAX_NOTE_BYTES", "0", "1000000"),
    ("BRAINBOT_MAX_ATTACHMENT_BYTES", "-1", "20000000"),
    ("BRAINBOT_EMBEDDINGS", "openia", "openai, local or none"),
    ("BRAINBOT_LLM_TOOLS", "some", "all or routed"),
    ("BRAINBOT_LOG_LEVEL", "loud", "INFO"),
    ("BRAINBOT_CONFIDENCE_THRESHOLD", "60", "0.6"),
]


@pytest.mark.parametrize(("name", "value", "example"), BAD)
def test_a_bad_value_is_one_line_with_name_value_and_example(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object, name: str, value: str, example: str
) -> None:
    monkeypatch.chdir(str(tmp_path))  # no .env of this checkout
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsInvalid) as raised:
        load_settings()
    (line,) = raised.value.lines
    assert line.startswith(f"{name}={value!r}"), line
    assert example in line, line
    assert "\n" not in line


def test_good_values_pass(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    monkeypatch.chdir(str(tmp_path))
    for name, value in {
        "BRAINBOT_TIMEZONE": "Europe/Berlin",
        "BRAINBOT_ALLOWED_USERS": "slack:U1,telegram:*,slack:T0OTHER:*",
        "BRAINBOT_TOOL_HOSTS": "api.weather.example,intranet.local:8443",
        "DATABASE_URL": "postgresql+psycopg://u:p@db:5432/brainbot",
        "OPENAI_BASE_URL": "http://localhost:11434/v1",
        "BRAINBOT_HTTP_PORT": "0",
        "BRAINBOT_LOG_LEVEL": "debug",
        "BRAINBOT_SYNC_INTERVAL": "0",
        "BRAINBOT_API_CORS_ORIGINS": "https://Wiki.Example.org:443/, http://localhost:3000",
    }.items():
        monkeypatch.setenv(name, value)
    settings = load_settings()
    assert settings.http_port == 0 and settings.timezone.key == "Europe/Berlin"
    assert settings.api_cors_origins == ("https://wiki.example.org", "http://localhost:3000")


def test_a_password_in_a_bad_url_is_not_printed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    monkeypatch.chdir(str(tmp_path))
    monkeypatch.setenv("DATABASE_URL", "mysql://bob:hunter22@db/brainbot")
    with pytest.raises(SettingsInvalid) as raised:
        load_settings()
    (line,) = raised.value.lines
    assert line.startswith("DATABASE_URL=") and "hunter22" not in line, line
    assert "e.g. postgresql://brainbot@localhost:5432/brainbot" in line
