"""The settings: every setting of brainbot's own, from the environment and an optional
`.env`, typed and validated once at start (`settings`; each platform's own are its
adapter's, composed with these by the app); the variables read whole rather
than field by field, a custom tool's secrets among them, and the order of the sources
(`settings_sources`)."""

from bot.config.settings import GROUPS, Settings, web_address
from bot.config.settings_sources import (
    SECRET_PREFIX,
    SECRET_VALUE_DESCRIPTION,
    SECRET_VALUE_SETTING,
    SECRET_VAULTS_SETTING,
    SECRET_VAULTS_SUFFIX,
    allowance_of,
    secret_variables,
)

__all__ = [
    "GROUPS",
    "SECRET_PREFIX",
    "SECRET_VALUE_DESCRIPTION",
    "SECRET_VALUE_SETTING",
    "SECRET_VAULTS_SETTING",
    "SECRET_VAULTS_SUFFIX",
    "Settings",
    "allowance_of",
    "secret_variables",
    "web_address",
]
