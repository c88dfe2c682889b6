"""A thought filed without a model: its title starts with a capital (a name written
like `iPhone` aside), and a category hint (`Idea:`, `project:`) picks the category
while the body keeps the person's words whole (issue 40)."""

from __future__ import annotations

from pathlib import Path

import frontmatter

from bot.tools import title_from
from tests.bot.helpers import message, notes
from tests.fakes.brain import running_brain


def test_a_title_made_from_words_starts_with_a_capital() -> None:
    assert title_from("tomatoes want a sunny wall") == "Tomatoes want a sunny wall"
    long = "remember that the community garden opens its plots for the spring season in march"
    assert title_from(long) == "Remember that the community garden opens its plots for the…"
    assert title_from("iPhone battery drains overnight") == "iPhone battery drains overnight"
    assert title_from("eBay listing for the old bike") == "eBay listing for the old bike"
    assert title_from("éclairs for the party") == "Éclairs for the party"
    assert title_from("ßtraße") == "ßtraße"  # no one-letter capital: left as written
    assert title_from("42 ways to fold a shirt") == "42 ways to fold a shirt"
    assert title_from("https://example.org/some/page/") == "example.org/some/page"


async def test_the_hint_picks_the_category_and_the_body_keeps_every_word(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        vault = brain.settings.vault_dir
        await brain.engine.handle(message("Idea: a rain barrel under the gutter"))
        await brain.engine.handle(message("project: repaint the fence before the frost"))
        long = "remember that the community garden opens its plots for the spring season"
        await brain.engine.handle(message(long))
        assert notes(vault) == [
            "ideas/a-rain-barrel-under-the-gutter.md",
            "inbox/remember-that-the-community-garden-opens-its-plots-for-the.md",
            "projects/repaint-the-fence-before-the-frost.md",
        ]
        idea = frontmatter.load(vault / "ideas/a-rain-barrel-under-the-gutter.md")
        assert idea["title"] == "A rain barrel under the gutter"
        assert idea.content == "Idea: a rain barrel under the gutter"
        project = frontmatter.load(vault / "projects/repaint-the-fence-before-the-frost.md")
        assert project["title"] == "Repaint the fence before the frost"
        assert project.content == "project: repaint the fence before the frost"
        cut = frontmatter.load(vault / notes(vault)[1])
        assert cut["title"] == "Remember that the community garden opens its plots for the…"
        assert cut.content == long
