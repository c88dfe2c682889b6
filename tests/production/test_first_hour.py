"""The first hour, as a new user meets it (issue: the first hour): a fresh data folder,
no model, a mistyped setting, lines piped into `brainbot chat`, the notes opened as
Obsidian reads them, then a desktop assistant over MCP with the owner's token.
Each step is one the issue saw go wrong; the details live in each item's own tests."""

from __future__ import annotations

import re
from pathlib import Path

import frontmatter
import pytest

from tests.bot.console_support import chat_env, piped_chat_process
from tests.bot.mcp.support import cli_process, stdio_session, text_of

pytestmark = pytest.mark.slow  # starts brainbot processes

THOUGHTS = 35  # more than BRAINBOT_RATE_LIMIT's default of 30 a minute
# Obsidian's date-time property: YYYY-MM-DDTHH:mm:ss, no offset.
WALL_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$")


def lines() -> list[str]:
    return [
        "project: Website redesign - next: email Tom the new mockups by Friday #web",
        "Met Sarah Kim at the climate meetup, she works on heat maps",
        "Sarah's birthday is on 4 May",
        *(f"idea: first hour thought {n:02d}" for n in range(1, THOUGHTS + 1)),
    ]


def properties(note: Path) -> dict[str, str]:
    """The note's frontmatter as written: each top-level property and its raw text."""
    head = note.read_text(encoding="utf-8").split("---\n")[1]
    return dict(
        line.split(":", 1)
        for line in head.splitlines()
        if line and not line.startswith((" ", "- "))
    )


@pytest.mark.slow(seconds=12)
async def test_a_new_users_first_hour(tmp_path: Path, database_url: str) -> None:
    vault = tmp_path / "data" / "vault"

    # A mistyped time zone stops the start with one line naming it; nothing is written.
    env = chat_env(tmp_path, database_url, BRAINBOT_TIMEZONE="Mars/Olympus")
    code, out, err = await cli_process(env, "chat")
    assert code == 2, out + err
    (line,) = [line for line in err.splitlines() if line.strip()]
    assert "BRAINBOT_TIMEZONE='Mars/Olympus'" in line, err
    assert "kept" not in out and not vault.exists()

    # Every piped line is filed, in order, and none is called saved that was not.
    done = piped_chat_process(tmp_path, database_url, lines())
    assert done.returncode == 0, done.stderr
    assert "faster than I file them" not in done.stdout
    assert "Sorry" not in done.stdout
    ideas = sorted(p.name for p in (vault / "ideas").glob("first-hour-thought-*.md"))
    assert ideas == [f"first-hour-thought-{n:02d}.md" for n in range(1, THOUGHTS + 1)]

    # Without a model, the thought's structure is kept; one person, one page.
    project = frontmatter.load(vault / "projects" / "website-redesign.md")
    assert project["title"] == "Website redesign"
    assert project["next_action"] == "email Tom the new mockups"
    assert project["tags"] == ["web"] and project["due"]
    people = sorted(p.name for p in (vault / "people").glob("*.md"))
    assert people == ["Sarah Kim.md"]
    linking = [p for p in vault.rglob("*.md") if "[[Sarah Kim" in p.read_text(encoding="utf-8")]
    assert linking, "the birthday note links to her page"

    # Obsidian reads every property: flat, typed times, nothing empty, an alias for a slug.
    for note in vault.rglob("*.md"):
        props = properties(note)
        assert "source" not in props, note  # flat source_* instead of a nested map
        for name in ("created", "updated"):
            assert WALL_TIME.match(props[name].strip().strip("'\"")), (note, props[name])
        empty = [k for k, v in props.items() if v.strip() in ("null", "[]", "{}", "''", '""')]
        assert not empty, (note, empty)
    assert "Website redesign" in project["aliases"]

    # A desktop assistant: the owner's token, a capture with only what it must say.
    code, out, err = await cli_process(chat_env(tmp_path, database_url), "mcp", "token", "me")
    assert code == 0, err
    token = next(line for line in out.splitlines() if line.startswith("bbmcp_"))
    async with stdio_session(
        chat_env(tmp_path, database_url), token, tmp_path / "mcp-stderr.log"
    ) as session:
        filed = await session.call_tool(
            "capture", {"category": "ideas", "title": "Tea walk", "body": "A walk for tea"}
        )
        assert not filed.isError, text_of(filed)
        path = (filed.structuredContent or {})["saved"]["path"]
        found = await session.call_tool("search_entries", {"query": "mockups"})
        assert "projects/website-redesign.md" in text_of(found)
    assert path.startswith("ideas/") and (vault / path).exists()  # the category asked for
