"""One handler type for every button, and the one place presses are dispatched."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import ClassVar

from bot.events import Reply
from bot.tools import ToolContext
from storage.db import ButtonAction


class Refused(Exception):
    """A press that does nothing, and what to say about it."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.reply = Reply(text)


async def pressed(
    ctx: ToolContext, action_id: str, kind: str, *, members: bool, unknown: str, not_yours: str
) -> tuple[ButtonAction, ToolContext]:
    """The stored action behind a button of `kind`, and `ctx` on the vault it is for;
    Refused when there is no such action or the person may not press it: only whom it
    was made for, or with `members` any member of the team vault it is in."""
    stored = await ctx.records.buttons.get(action_id)
    if stored is None or stored.kind != kind:
        raise Refused(unknown)
    scoped = await ctx.in_vault(stored.vault_id)
    if scoped is None or (stored.user_id != ctx.person.id and not (members and scoped.is_team)):
        raise Refused(not_yours)
    return stored, scoped


class ButtonHandler(ABC):
    """One kind of button: the `Button.action`s it answers, and what a press does."""

    actions: ClassVar[tuple[str, ...]]

    @abstractmethod
    async def press(self, ctx: ToolContext, action: str, value: str) -> list[Reply]:
        """Act on a press of `action` carrying `value`; what to say (nothing for a
        second press of a button that worked)."""


class Buttons:
    """Every button handler, by action; composed once by the engine."""

    def __init__(self, handlers: Iterable[ButtonHandler]) -> None:
        self._by_action: dict[str, ButtonHandler] = {}
        for handler in handlers:
            for action in handler.actions:
                if action in self._by_action:
                    raise ValueError(f"two handlers for the button action {action!r}")
                self._by_action[action] = handler

    async def press(self, ctx: ToolContext, action: str, value: str) -> list[Reply]:
        handler = self._by_action.get(action)
        if handler is None:
            return [Reply("That button is not one of mine.")]
        try:
            return await handler.press(ctx, action, value)
        except Refused as refused:
            return [refused.reply]
