"""The README's configuration section, made from the settings themselves: each group of
brainbot's settings and each platform's, one row per variable with its default and its
field's description, so the table cannot drift from the code.

    python -m app.settings_table --write    (or `make docs`): the README's section anew
    python -m app.settings_table            prints the section

tests/app/test_settings_table.py fails when the README's section differs from it.
"""

from __future__ import annotations

import re
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

README = Path("README.md")
COMMAND = "make docs"
# The section runs from its heading to the end marker; what is between is generated.
START = "## Configuration\n"
END = "<!-- end of the configuration section -->\n"
# A description links a docs page as the pages link each other; from the README it is
# under docs/.
_DOCS_LINK = re.compile(r"\]\((?![a-z]+:|#|docs/|\.\./)([\w-]+\.md)")

INTRO = """\
## Configuration

<!-- Made by `python -m app.settings_table --write` (`make docs`) from the settings'
own descriptions: change a setting's description in the code, not here. -->

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


def section(platforms: Platforms = PLATFORMS) -> str:
    """The README's configuration section: the introduction, then a part per group of
    settings and per platform, up to its end marker."""
    parts = [INTRO]
    for group in GROUPS:
        title, lead = _title_and_lead(group)
        parts.append(f"\n### {title}\n\n" + (f"{lead}\n\n" if lead else "") + table(group))
    for platform in platforms:
        lead = f"How to set it up: [{platform.title} set-up](docs/{platform.name}.md)."
        parts.append(f"\n### {platform.title}\n\n{lead}\n\n" + table(platform.settings))
    parts.append(f"\n{END}")
    return from_readme("".join(parts))


def from_readme(text: str) -> str:
    """`text` (a description linking docs pages by name) with its links as the README
    reaches the pages."""
    return _DOCS_LINK.sub(r"](docs/\1", text)


def written(readme: str) -> str:
    """The configuration section as `readme` has it ("" when it has none)."""
    start = readme.find(START)
    end = readme.find(END, start)
    return readme[start : end + len(END)] if start >= 0 and end >= 0 else ""


def with_section(readme: str, platforms: Platforms = PLATFORMS) -> str:
    """`readme` with its configuration section made anew (added at its end if missing)."""
    old = written(readme)
    if not old:
        return readme.rstrip("\n") + "\n\n" + section(platforms)
    return readme.replace(old, section(platforms))


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        README.write_text(with_section(README.read_text()))
    else:
        sys.stdout.write(section())
