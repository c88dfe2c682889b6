"""The settings: every setting brainbot reads, from the environment and an optional
`.env`, typed and validated once at start (`settings`)."""

from bot.config.settings import (
    DEFAULT_CATEGORIES,
    SECRET_PREFIX,
    SECRET_VAULTS_SETTING,
    SECRET_VAULTS_SUFFIX,
    Settings,
    allowance_of,
    secret_variables,
)

__all__ = [
    "DEFAULT_CATEGORIES",
    "SECRET_PREFIX",
    "SECRET_VAULTS_SETTING",
    "SECRET_VAULTS_SUFFIX",
    "Settings",
    "allowance_of",
    "secret_variables",
]
