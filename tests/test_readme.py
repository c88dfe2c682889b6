"""The README and the pages under docs/ are part of the contract: every setting, brainbot's
own and each registered platform's, is in docs/configuration.md's tables; the README shows
the two commands."""

from __future__ import annotations

from pathlib import Path

from app.platforms import settings_class

ROOT = Path(__file__).parents[1]
README = (ROOT / "README.md").read_text()
CONFIGURATION = (ROOT / "docs" / "configuration.md").read_text()


def test_every_setting_is_documented() -> None:
    fields = settings_class().model_fields.values()
    missing = [f.alias for f in fields if f"| `{f.alias}` |" not in CONFIGURATION]
    assert missing == []


def test_readme_shows_the_two_commands() -> None:
    assert "make run" in README and "make test" in README
