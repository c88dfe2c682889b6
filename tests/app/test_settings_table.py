"""The README's configuration section is made from the settings' own descriptions
(app.settings_table): the section in the repository is what the settings say, and a
default the table words for a reader still says what the code does."""

from __future__ import annotations

from pathlib import Path

from app.platforms import settings_class
from app.settings_table import COMMAND, README, from_readme, section, shown_default, written
from bot.tools import REGISTRY, approval_tools

ROOT = Path(__file__).parents[2]


def test_the_configuration_section_is_made_from_the_settings() -> None:
    kept = written((ROOT / README).read_text())
    assert kept == section(), f"{README}'s configuration differs: run `{COMMAND}` and commit it"


def test_every_setting_has_a_row_with_its_description() -> None:
    rows = [line for line in section().splitlines() if line.startswith("| `")]
    for field in settings_class().model_fields.values():
        description = (field.description or "").replace("|", "\\|")
        row = f"| `{field.alias}` | {shown_default(field)} | {description} |"
        assert from_readme(row) in rows


def test_the_shown_default_of_approval_tools_names_the_tools_that_wait() -> None:
    field = settings_class().model_fields["approval_tools"]
    assert shown_default(field).endswith(f"`{','.join(approval_tools(None, REGISTRY))}`")
