"""`/search` with the search syntax, through the engine and the command router: what
the person reads back."""

from __future__ import annotations

from pathlib import Path

from tests.bot.helpers import message
from tests.fakes.brain import running_brain


async def test_search_syntax_through_the_router(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        await brain.engine.handle(message("project: repaint the fence"))
        await brain.engine.handle(message("project: fence for the garden, draft"))
        await brain.engine.handle(message("/capture pay the water bill by friday"))
        (tagged,) = await brain.engine.handle(message("/tag repaint-the-fence #home"))
        assert "tagged #home" in tagged.text

        # A lone quote or a quoted symbol is no filter that matches nothing (issue 19).
        (symbol,) = await brain.engine.handle(message('/search fence "$"'))
        assert "projects/repaint-the-fence.md" in symbol.text
        (lone,) = await brain.engine.handle(message('/search water"'))
        assert "admin/pay-the-water-bill.md" in lone.text

        (tagged,) = await brain.engine.handle(message("/search tag:home"))
        assert "projects/repaint-the-fence.md" in tagged.text
        assert "garden" not in tagged.text
        (excluded,) = await brain.engine.handle(message("/search fence -draft"))
        assert "projects/repaint-the-fence.md" in excluded.text
        assert "garden" not in excluded.text
        (either,) = await brain.engine.handle(message("/search water OR garden"))
        assert "admin/pay-the-water-bill.md" in either.text and "garden" in either.text
        assert "repaint" not in either.text
        (listed,) = await brain.engine.handle(message("/search category:projects"))
        # Newest first: the fence note changed last (its tag).
        assert listed.text.index("repaint-the-fence") < listed.text.index("garden")
        assert "water" not in listed.text

        (nothing,) = await brain.engine.handle(message("/search fence tag:garden"))
        assert nothing.text == "No notes tagged #garden."
        (nothing,) = await brain.engine.handle(message("/search status:done after:2030-01"))
        assert "No notes with status done and no notes changed on or after" in nothing.text
