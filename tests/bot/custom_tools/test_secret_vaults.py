"""Which vaults may use a secret: BRAINBOT_SECRET_<NAME>_VAULTS, the owner's vault when
unset. A tool using a secret its vault may not is skipped, logged, and `brainbot
doctor` reports it as a problem saying which setting allows it."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from pydantic import ValidationError

from app.tool_checks import custom_tools
from bot.config import Settings
from bot.custom_tools import VaultTools, secret_values
from bot.custom_tools.declarations import parse_tools
from bot.logs import redact, secrets_of
from bot.tools import REGISTRY

HOSTS = ("api.example.org",)
ENV = {"BRAINBOT_SECRET_TOKEN": "t0ken-value"}
TOOL = """\
tools:
  - name: lookup
    description: Look something up.
    url: https://api.example.org/x
    headers: {Authorization: "Bearer {secret:TOKEN}"}
    parameters: {type: object, properties: {}}
"""


def declared_in(vault: str, secret_vaults: dict[str, tuple[str, ...]]) -> list[str]:
    """The tools that load from TOOL in the vault called `vault`."""
    declared = parse_tools(
        TOOL,
        hosts=HOSTS,
        taken=REGISTRY,
        vault=vault,
        secret_vaults=secret_vaults,
        environ=ENV,
    )
    return [tool.name for tool in declared.tools]


def test_unset_a_secret_is_the_owners_vaults_only() -> None:
    assert declared_in("vault", {}) == ["lookup"]
    assert declared_in("ada-2", {}) == []
    assert declared_in("ops", {}) == []


def test_the_setting_names_the_vaults_and_only_those() -> None:
    allowed = {"TOKEN": ("ops", "ada-2")}
    assert declared_in("ops", allowed) == ["lookup"]
    assert declared_in("ada-2", allowed) == ["lookup"]
    assert declared_in("vault", allowed) == []  # listing vaults replaces the default
    assert declared_in("vault", {"TOKEN": ()}) == []  # empty: no vault at all


def test_the_refusal_says_which_setting_allows_it() -> None:
    (problem,) = parse_tools(
        TOOL, hosts=HOSTS, taken=REGISTRY, vault="ops", secret_vaults={}, environ=ENV
    ).problems
    assert str(problem) == (
        "line 2 (lookup): header Authorization: BRAINBOT_SECRET_TOKEN is not allowed for the "
        "vault ops (BRAINBOT_SECRET_TOKEN_VAULTS: unset: the owner's vault)"
    )
    assert problem.skipped and problem.fix == (
        "to allow it, add ops to BRAINBOT_SECRET_TOKEN_VAULTS; or take {secret:TOKEN} out of "
        "this file"
    )


def test_the_setting_is_read_from_the_environment_and_dotenv_and_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".env").write_text("BRAINBOT_SECRET_MAPS_VAULTS=team-ops\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BRAINBOT_SECRET_WEATHER_TOKEN_VAULTS", " Vault, ada-2 ")
    monkeypatch.setenv("BRAINBOT_SECRET_NOBODY_VAULTS", "")
    assert Settings().secret_vaults == {
        "MAPS": ("team-ops",),
        "WEATHER_TOKEN": ("vault", "ada-2"),
        "NOBODY": (),
    }
    monkeypatch.setenv("BRAINBOT_SECRET_WEATHER_TOKEN_VAULTS", "vault,Team Ops")
    with pytest.raises(ValidationError) as refused:
        Settings(_env_file=None)
    assert "BRAINBOT_SECRET_WEATHER_TOKEN_VAULTS: ['team ops'] are not vault names" in str(
        refused.value
    )


def test_an_allowance_is_no_secret_and_not_redacted_from_logs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BRAINBOT_SECRET_WEATHER_TOKEN", "wx-9f8e7d6c")
    monkeypatch.setenv("BRAINBOT_SECRET_WEATHER_TOKEN_VAULTS", "vault")
    assert "BRAINBOT_SECRET_WEATHER_TOKEN_VAULTS" not in secret_values()
    secrets = secrets_of(Settings(_env_file=None))
    assert redact("the vault sent wx-9f8e7d6c", secrets) == "the vault sent [redacted]"


async def test_doctor_reports_a_secret_used_without_leave_as_a_problem_with_its_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAINBOT_SECRET_TOKEN", "t0ken-value")
    settings = Settings(
        _env_file=None, BRAINBOT_DATA_DIR=str(tmp_path), BRAINBOT_TOOL_HOSTS="api.example.org"
    )
    for vault in (settings.vault_dir, tmp_path / "vaults" / "ops"):
        (vault / ".brainbot").mkdir(parents=True)
        (vault / ".brainbot" / "tools.yaml").write_text(TOOL)
    found = [f for f in await custom_tools(settings) if f.topic == "custom tools"]
    assert [(f.level, f.detail) for f in found] == [
        ("ok", f"{settings.vault_dir}/.brainbot/tools.yaml: lookup (GET, approval)"),
        (
            "problem",
            f"{tmp_path}/vaults/ops/.brainbot/tools.yaml line 2 (lookup): header Authorization: "
            "BRAINBOT_SECRET_TOKEN is not allowed for the vault ops "
            "(BRAINBOT_SECRET_TOKEN_VAULTS: unset: the owner's vault)",
        ),
    ]
    assert found[1].fix.startswith("to allow it, add ops to BRAINBOT_SECRET_TOKEN_VAULTS")


def test_the_refusal_is_logged_when_the_vault_is_used(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAINBOT_SECRET_TOKEN", "t0ken-value")
    (tmp_path / ".brainbot").mkdir()
    (tmp_path / ".brainbot" / "tools.yaml").write_text(TOOL)
    with caplog.at_level(logging.WARNING, "bot.custom_tools.vault_tools"):
        loaded = VaultTools(HOSTS, {}).for_root(tmp_path, "ops")
    assert dict(loaded.specs) == {}
    (line,) = caplog.messages
    assert "BRAINBOT_SECRET_TOKEN is not allowed for the vault ops" in line
    assert "that tool is skipped (to allow it, add ops to BRAINBOT_SECRET_TOKEN_VAULTS" in line
