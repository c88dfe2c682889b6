"""The command menu Telegram shows when someone types `/` (setMyCommands)."""

from __future__ import annotations

from adapters.platform import MenuCommand
from bot.commands import menu as commands_menu


def menu() -> tuple[MenuCommand, ...]:
    """The commands Telegram lists, each with its line: brainbot's commands (their
    records in bot.commands), then Telegram's own /save; the one place the menu is read
    from (the Telegram platform's `menu`, which its adapter registers at start)."""
    return (
        *(MenuCommand(name, about) for name, about in commands_menu()),
        MenuCommand("save", "Reply /save to a message to keep it in your notes"),
    )
