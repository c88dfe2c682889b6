"""The command menu Telegram shows when someone types `/` (setMyCommands)."""

from __future__ import annotations

from adapters.platform import MenuCommand


def menu() -> tuple[MenuCommand, ...]:
    """The commands Telegram lists, each with its line: the one place the menu is read
    from (the Telegram platform's `menu`, which its adapter registers at start)."""
    return (
        MenuCommand("start", "What this bot does"),
        MenuCommand("help", "How to capture, find and change notes"),
        MenuCommand("list", "Recent entries, e.g. /list projects"),
        MenuCommand("search", "Search your notes, e.g. /search budget"),
        MenuCommand("digest", "Today's digest, now"),
        MenuCommand("reminders", "What I will remind you of"),
        MenuCommand("save", "Reply /save to a message to keep it in your notes"),
        MenuCommand("undo", "Undo a recent change"),
        MenuCommand("link", "Link this chat to your other accounts"),
        MenuCommand("settings", "Your timezone and digest time"),
    )
