"""Tools people add without changing brainbot: HTTP tools declared in a vault's
`.brainbot/tools.yaml`, and Python tools from packages (the `brainbot.tools`
entry-point group)."""

from bot.custom_tools.declarations import TOOLS_FILE
from bot.custom_tools.headers import secret_values
from bot.custom_tools.plugins import load_plugins
from bot.custom_tools.vault_tools import VaultTools, load_file

__all__ = ["TOOLS_FILE", "VaultTools", "load_file", "load_plugins", "secret_values"]
