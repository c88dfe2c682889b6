"""One handler type for every button, and the one place presses are dispatched."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import ClassVar

from bot.events import Reply
from bot.tools import ToolContext


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
        return await handler.press(ctx, action, value)
