"""One record per command, as python-telegram-bot's `CommandHandler("start", callback)`:
its name, how it is called, what /help and a platform's menu say of it, and what runs
it. /help, the menus and the router's dispatch are all made from the records
(`bot.commands.router.COMMANDS`), so a command is added in one place."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from bot.events import Reply, Sender
from bot.tools import ToolContext

HELP_HEAD = """I'm brainbot, your second brain. Tell me anything and I'll file it as a note;
ask a question (ending in "?", or starting with what/where/who/how...) and I'll search."""
# How the kinds of BRAINBOT_DIRECT_CHANGES read in /help.
KIND_WORDS = {
    "append": "adding a line",
    "tag": "adding tags",
    "tick": "ticking tasks",
    "fill": "filling an empty field",
}

R = TypeVar("R")  # what runs the commands (the router), handed to each handler


@dataclass(frozen=True, slots=True)
class Call:
    """One command as sent: where and by whom, the command's name, the words after it,
    and how it is used (its record's `usage`)."""

    ctx: ToolContext
    sender: Sender
    name: str  # the command's own name, "untick" (an alias sent is resolved)
    rest: str  # the words after it, stripped
    usage: str

    def usage_reply(self, hint: str = "") -> list[Reply]:
        """What to say when the words do not fit the command: how to use it."""
        return [Reply(f"Usage: {self.usage}{hint}")]


@dataclass(frozen=True, slots=True)
class Command(Generic[R]):
    """A command. `run` is None for one said in words rather than sent as `/name`
    (`fix: CATEGORY`, read by the router's correction); it is then in /help only."""

    name: str  # sent as `/name`
    run: Callable[[R, Call], Awaitable[list[Reply]]] | None
    usage: str = ""  # "/capture TEXT": /help's left column and the Usage: reply
    about: str = ""  # what /help says it does ("" : not in /help); `{waits}` see below
    more: tuple[str, ...] = ()  # further /help lines: another way to call it
    aliases: tuple[str, ...] = ()  # other names it answers to: /exit for /quit
    menu: str = ""  # its line in a platform's command menu ("": not in the menu)
    written: str = ""  # words that mean it at the start of a message: "log:" for /log
    tool: str = ""  # the tool it runs, when /help says whether that waits for Approve
    waits: str = ""  # what /help puts for `{waits}` when BRAINBOT_APPROVAL_TOOLS has `tool`

    def help_lines(self, approval_tools: Collection[str]) -> list[str]:
        """Its lines in /help: none when it has nothing to say there."""
        if not self.about:
            return []
        waits = self.waits if self.tool and self.tool in approval_tools else ""
        return [f"{self.usage}  {self.about.replace('{waits}', waits)}", *self.more]


def help_text(
    commands: Sequence[Command[R]], direct_changes: Sequence[str], approval_tools: Collection[str]
) -> str:
    """/help: every command's lines, then which changes run at once
    (BRAINBOT_DIRECT_CHANGES); each command says whether it waits for Approve
    (BRAINBOT_APPROVAL_TOOLS)."""
    lines = [line for command in commands for line in command.help_lines(approval_tools)]
    kinds = [KIND_WORDS[k] for k in direct_changes if k in KIND_WORDS]
    if not kinds:
        changes = "Every change to a note asks for your approval first."
    else:
        listed = ", ".join(kinds[:-1]) + (" and " if len(kinds) > 1 else "") + kinds[-1]
        changes = (
            f"Small changes ({listed}) happen at once with an Undo button; "
            "others ask for your approval."
        )
    return "\n".join([HELP_HEAD, *lines, changes])


def menu_of(commands: Sequence[Command[R]]) -> tuple[tuple[str, str], ...]:
    """The commands a platform's menu offers, as (name, what it does), in order."""
    return tuple((command.name, command.menu) for command in commands if command.menu)


def dispatch_of(commands: Sequence[Command[R]]) -> dict[str, Command[R]]:
    """The commands sent as `/name`, by each name they answer to."""
    found: dict[str, Command[R]] = {}
    for command in commands:
        if command.run is None:
            continue
        for name in (command.name, *command.aliases):
            if name in found:
                raise ValueError(f"two commands answer to /{name}")
            found[name] = command
    return found


def written_of(commands: Sequence[Command[R]]) -> tuple[tuple[re.Pattern[str], str], ...]:
    """What a message's first words write out ("log: …"), and the command it means."""
    return tuple(
        (re.compile(rf"^{re.escape(command.written)}\s*", re.IGNORECASE), f"/{command.name} ")
        for command in commands
        if command.written
    )
