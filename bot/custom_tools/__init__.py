"""Tools people add without changing brainbot: HTTP tools declared in a vault's
`.brainbot/tools.yaml`, and Python tools from packages (the `brainbot.tools`
entry-point group)."""
