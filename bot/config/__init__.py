"""The settings: every setting brainbot reads, from the environment and an optional
`.env`, typed and validated once at start (`settings`); the variables read whole rather
than field by field, a custom tool's secrets among them, and the order of the sources
(`sources`)."""

from bot.config.settings import Settings
from bot.config.sources import (
    SECRET_PREFIX,
    SECRET_VAULTS_SETTING,
    SECRET_VAULTS_SUFFIX,
    allowance_of,
    secret_variables,
)

__all__ = [
    "SECRET_PREFIX",
    "SECRET_VAULTS_SETTING",
    "SECRET_VAULTS_SUFFIX",
    "Settings",
    "allowance_of",
    "secret_variables",
]
