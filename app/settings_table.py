"""docs/configuration.md, made from the settings themselves: each group of brainbot's
settings and each platform's, one row per variable with its default and its field's
description, so the page cannot drift from the code.

    python -m app.settings_table > docs/configuration.md    (or `make docs`)

tests/app/test_settings_table.py fails when the page differs from what this prints.
"""

from __future__ import annotations

import sys
from datetime import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from app.platforms import PLATFORMS, Platforms
from bot.config import (
    GROUPS,
    SECRET_VALUE_DESCRIPTION,
    SECRET_VALUE_SETTING,
    SECRET_VAULTS_SETTING,
)

PAGE = Path("docs/configuration.md")
COMMAND = "make docs"

INTRO = """\
# Configuration

<!-- Made by `python -m app.settings_table` (`make docs`) from the settings' own
descriptions: change a setting's description in the code, not here. -->

Settings come from the environment or a `.env` file in the working directory.
Every value with a format (times of day, the time zone, URLs, the port, byte sizes,
lists of tools, categories, users and hosts) is read once at start: a bad one stops
every command with one line naming the variable, its value and an example, e.g.
`brainbot: BRAINBOT_DIGEST_TIME='8am' is not a time of day as HH:MM (24 h), e.g. 07:30`
(exit code 2), and `brainbot doctor` reports the same line as a problem.
"""

HEAD = "| variable | default | meaning |\n| --- | --- | --- |\n"


def shown_default(field: FieldInfo) -> str:
    """The default as a reader wants it: the field's own `shown_default` when the code's
    default says less (`<data>/vault`), else the default written as it is set."""
    extra = field.json_schema_extra
    if isinstance(extra, dict) and isinstance(extra.get("shown_default"), str):
        return str(extra["shown_default"])
    value: Any = field.default
    if value is None or value == () or value == {}:
        return "unset"
    if isinstance(value, bool):
        value = str(value).lower()
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, time):
        value = f"{value:%H:%M}"
    elif isinstance(value, tuple):
        value = ",".join(value)
    return f"`{value}`"


def _row(variable: str, default: str, meaning: str) -> str:
    cells = (f"`{variable}`", default, meaning)
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |\n"


def table(model: type[BaseModel]) -> str:
    """The rows of the variables `model` declares itself (not those it inherits)."""
    rows = []
    for name in model.__annotations__:
        field = model.model_fields.get(name)
        if field is None or field.alias is None:
            continue
        if not field.description:
            raise ValueError(f"{field.alias} has no description")
        if field.alias == SECRET_VAULTS_SETTING:  # the secret's value is read whole, no field
            rows.append(_row(SECRET_VALUE_SETTING, "unset", SECRET_VALUE_DESCRIPTION))
        rows.append(_row(field.alias, shown_default(field), field.description))
    return HEAD + "".join(rows)


def _title_and_lead(model: type[BaseModel]) -> tuple[str, str]:
    title, _, lead = (model.__doc__ or model.__name__).strip().partition("\n")
    return title.strip(), " ".join(lead.split())


def page(platforms: Platforms = PLATFORMS) -> str:
    """docs/configuration.md: the introduction, then a section per group of settings
    and per platform."""
    parts = [INTRO]
    for group in GROUPS:
        title, lead = _title_and_lead(group)
        parts.append(f"\n## {title}\n\n" + (f"{lead}\n\n" if lead else "") + table(group))
    for platform in platforms:
        lead = f"How to set it up: [{platform.title} set-up]({platform.name}.md)."
        parts.append(f"\n## {platform.title}\n\n{lead}\n\n" + table(platform.settings))
    return "".join(parts)


if __name__ == "__main__":
    sys.stdout.write(page())
