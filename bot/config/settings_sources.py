"""Settings read whole rather than field by field, and the order every source is
read in: an empty BRAINBOT_DIRECT_CHANGES (which means "none"), and a custom tool's
secrets (BRAINBOT_SECRET_<NAME>, and BRAINBOT_SECRET_<NAME>_VAULTS as one setting)."""

from __future__ import annotations

import os
from typing import Any

from dotenv import dotenv_values
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    DotEnvSettingsSource,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
)
from pydantic_settings.sources import DotenvType

DIRECT_CHANGES_ENV = "BRAINBOT_DIRECT_CHANGES"


class _WholeSource(PydanticBaseSettingsSource):
    """A source that reads its variables itself (from the environment and `env_file`)
    and answers for a whole setting at once, never field by field."""

    def __init__(self, settings_cls: type[BaseSettings], env_file: DotenvType | None) -> None:
        super().__init__(settings_cls)
        self.env_file = env_file

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False


class _EmptyDirectChanges(_WholeSource):
    """`BRAINBOT_DIRECT_CHANGES=` (set, but empty) means "none": every change waits for
    Approve. Other empty variables are ignored (a blank line of a compose file)."""

    def __call__(self) -> dict[str, Any]:
        sources = [
            EnvSettingsSource(self.settings_cls, env_ignore_empty=False),
            DotEnvSettingsSource(self.settings_cls, self.env_file, env_ignore_empty=False),
        ]
        for source in sources:  # the environment first, as for every other setting
            value = source.env_vars.get(DIRECT_CHANGES_ENV.lower())
            if value is not None:
                return {} if value.strip() else {DIRECT_CHANGES_ENV: ""}
        return {}


# A custom HTTP tool's secrets: BRAINBOT_SECRET_<NAME> holds the value of
# `{secret:NAME}`, BRAINBOT_SECRET_<NAME>_VAULTS the vaults whose tools may use it.
SECRET_PREFIX = "BRAINBOT_SECRET_"
SECRET_VAULTS_SUFFIX = "_VAULTS"
SECRET_VAULTS_SETTING = f"{SECRET_PREFIX}<NAME>{SECRET_VAULTS_SUFFIX}"
# The secret's value is no field (it is read whole): its meaning, for the README's table.
SECRET_VALUE_SETTING = f"{SECRET_PREFIX}<NAME>"
SECRET_VALUE_DESCRIPTION = (
    "the value of `{secret:NAME}` in a custom HTTP tool's headers (environment or `.env`, like "
    "every setting); never written in the vault"
)


def secret_variables(env_file: DotenvType | None = ".env") -> dict[str, str]:
    """Every BRAINBOT_SECRET_* variable, read like every other setting: from the
    environment, else from `.env` (names keep their case: `{secret:Name}` is exact)."""
    files = [env_file] if isinstance(env_file, (str, os.PathLike)) else list(env_file or ())
    found: dict[str, str] = {}
    for path in files:
        for key, value in dotenv_values(path).items():
            if key.startswith(SECRET_PREFIX) and value is not None:
                found[key] = value
    found.update((k, v) for k, v in os.environ.items() if k.startswith(SECRET_PREFIX))
    return found


def allowance_of(variable: str) -> str | None:
    """The secret a BRAINBOT_SECRET_<NAME>_VAULTS variable allows; None for any other
    variable (a secret's own value)."""
    if not variable.startswith(SECRET_PREFIX) or not variable.endswith(SECRET_VAULTS_SUFFIX):
        return None
    return variable[len(SECRET_PREFIX) : -len(SECRET_VAULTS_SUFFIX)] or None


class _SecretVaults(_WholeSource):
    """BRAINBOT_SECRET_<NAME>_VAULTS, one variable per secret, as one setting: the
    secret's name → the vaults allowed to use it, as written."""

    def __call__(self) -> dict[str, Any]:
        allowed = {
            secret: value
            for key, value in secret_variables(self.env_file).items()
            if (secret := allowance_of(key)) is not None
        }
        return {SECRET_VAULTS_SETTING: allowed} if allowed else {}


def read_in_order(
    settings_cls: type[BaseSettings],
    init_settings: PydanticBaseSettingsSource,
    env_settings: PydanticBaseSettingsSource,
    dotenv_settings: PydanticBaseSettingsSource,
    file_secret_settings: PydanticBaseSettingsSource,
) -> tuple[PydanticBaseSettingsSource, ...]:
    """pydantic-settings' sources with the settings read whole before the environment
    (Settings.settings_customise_sources): what comes first wins."""
    env_file = (
        dotenv_settings.env_file if isinstance(dotenv_settings, DotEnvSettingsSource) else None
    )
    return (
        init_settings,
        _EmptyDirectChanges(settings_cls, env_file),
        _SecretVaults(settings_cls, env_file),
        env_settings,
        dotenv_settings,
        file_secret_settings,
    )
