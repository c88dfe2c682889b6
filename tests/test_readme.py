"""The README and the pages under docs/ are part of the contract: every setting, brainbot's
own and each registered platform's, is in the README's configuration table; the README shows
the two commands and links every page; no link of theirs leads nowhere."""

from __future__ import annotations

import re
from pathlib import Path

from app.platforms import settings_class

ROOT = Path(__file__).parents[1]
README = (ROOT / "README.md").read_text()
PAGES = sorted((ROOT / "docs").glob("*.md"))
# A Markdown link to a file of the repository: [text](path) or [text](path#anchor).
LOCAL_LINK = re.compile(r"\]\((?!https?://|mailto:|#)([^)\s#]+)(?:#[^)\s]*)?\)")


def test_every_setting_is_documented() -> None:
    fields = settings_class().model_fields.values()
    missing = [f.alias for f in fields if f"| `{f.alias}` |" not in README]
    assert missing == []


def test_readme_shows_the_two_commands() -> None:
    assert "make run" in README and "make test" in README


def test_readme_links_every_docs_page() -> None:
    unlinked = [p.name for p in PAGES if f"](docs/{p.name})" not in README]
    assert unlinked == []


def test_links_to_files_lead_to_files() -> None:
    broken = [
        f"{page.relative_to(ROOT)}: {target}"
        for page in [ROOT / "README.md", *PAGES]
        for target in LOCAL_LINK.findall(page.read_text())
        if not (page.parent / target).exists()
    ]
    assert broken == []
