"""One record per command: /help, a platform's menu and the dispatch are made from the
same records, so they name the same commands, and every one of them is understood."""

from __future__ import annotations

import re
from pathlib import Path

from bot.commands import COMMANDS, as_command, menu
from bot.commands.router import help_text
from tests.bot.helpers import message
from tests.fakes.brain import running_brain

EVERY_TOOL_WAITS = ("update_entry", "move_entry", "rename_entry", "delete_entry", "undo")


def _in_help() -> set[str]:
    """The `/commands` /help names (in its lines or in what a line says)."""
    text = help_text(("append",), EVERY_TOOL_WAITS)
    return set(re.findall(r"(?<![\w/\[])/([a-z]+)\b", text))


def test_help_the_menu_and_the_dispatch_name_the_same_commands() -> None:
    sent = {c.name for c in COMMANDS if c.run is not None}
    in_menu = {name for name, _ in menu()}
    assert _in_help() | in_menu == sent  # nothing answered that neither help nor menu shows
    assert {"start", "help", "list", "search", "undo", "settings"} <= in_menu
    said = [c for c in COMMANDS if c.run is None]  # said in words: in /help only
    assert [c.usage for c in said] == ["fix: CATEGORY"]
    assert "fix: CATEGORY  refile the note I just saved" in help_text((), ())


def test_every_menu_line_says_what_the_command_does() -> None:
    for name, about in menu():
        assert about and len(about) <= 256  # Telegram's limit for a description
        assert re.fullmatch(r"[a-z0-9_]{1,32}", name)  # and for a command


def test_a_command_written_in_words_is_that_command() -> None:
    assert as_command("Log: bought milk") == "/log bought milk"
    assert as_command("log:bought milk") == "/log bought milk"
    assert as_command("login page is broken") == "login page is broken"
    assert as_command("fix: idea") == "fix: idea"  # a correction, read as words


async def test_every_command_help_and_the_menu_name_is_understood(
    tmp_path: Path, database_url: str
) -> None:
    names = sorted(_in_help() | {name for name, _ in menu()} | {"exit"})
    async with running_brain(tmp_path, database_url) as brain:
        for name in names:
            replies = await brain.engine.handle(message(f"/{name}"))
            assert replies, name
            assert not replies[0].text.startswith("I don't know"), (name, replies[0].text)
        (unknown,) = await brain.engine.handle(message("/fix idea"))
        assert unknown.text == "I don't know /fix. Send /help for what I can do."
        (usage,) = await brain.engine.handle(message("/untick"))
        assert usage.text == (
            'Usage: /untick NOTE ITEM[, ITEM...] (quote a name with spaces: /untick "Shopping '
            'list" milk, eggs)'
        )
