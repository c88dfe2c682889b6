"""The platforms this brainbot serves, registered here one line each, and what the
process does with them: read their settings with its own (one Settings, checked once),
build the adapters of the configured ones (the console when none is), send through the
one that serves a conversation, and ask the ones that can who is in a chat.

A new platform is its folder under adapters/, exporting its contract
(adapters.platform), and a line in PLATFORMS.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from functools import cache
from typing import Any, TypeVar, cast

from pydantic import BaseModel

from adapters.base import Adapter
from adapters.console import CONSOLE
from adapters.platform import Host, Platform, PlatformSettings
from adapters.slack import SLACK
from adapters.telegram import TELEGRAM
from bot.config import Settings
from bot.events import Conversation, Deliver, NoRoute, Reply
from bot.people import ChatMembers

log = logging.getLogger(__name__)

Platforms = tuple[Platform[Any], ...]
S = TypeVar("S", bound=PlatformSettings)

# Every chat platform brainbot can serve, one line each.
PLATFORMS: Platforms = (
    SLACK,
    TELEGRAM,
)
# What `brainbot run` chats on when none of the platforms is configured.
FALLBACK: Platform[Any] = CONSOLE
# How long a stop waits for the work in progress (the service's and each adapter's);
# here, beside the adapters it is lent to, so that the commands that only send (digest,
# approvals) need not import the server.
GRACE_SECONDS = 20.0


@cache
def settings_class(platforms: Platforms = PLATFORMS) -> type[Settings]:
    """The process's Settings: brainbot's own and each platform's, one model read and
    checked at once (bot.config.Settings first: its sources and checks hold for all)."""
    # One class holds them all: a name used twice (a field, its variable, or a validator,
    # which would replace the other silently) is refused here.
    taken = {key for name, field in Settings.model_fields.items() for key in (name, field.alias)}
    taken |= _validators(Settings)
    for platform in platforms:
        model = platform.settings
        for name, field in model.model_fields.items():
            if {name, field.alias or name} & taken:
                raise ValueError(f"{platform.title}'s setting {field.alias or name} is taken")
            taken |= {name, field.alias or name}
        if twice := _validators(model) & taken:
            raise ValueError(f"{platform.title}'s settings validator {min(twice)} is taken")
        taken |= _validators(model)
    bases = tuple(dict.fromkeys(p.settings for p in platforms))
    return cast(type[Settings], type("Settings", (Settings, *bases), {}))


def _validators(model: type[BaseModel]) -> set[str]:
    decorators = model.__pydantic_decorators__
    return {*decorators.field_validators, *decorators.model_validators}


def own(platform: Platform[S], settings: Settings) -> S:
    """`platform`'s part of `settings`: the same object, composed by `settings_class`;
    its defaults (so not configured) when `settings` carries no part of it."""
    if isinstance(settings, platform.settings):
        return settings
    return cast(S, platform.settings.model_construct())


def configured(settings: Settings, platforms: Platforms = PLATFORMS) -> list[Platform[Any]]:
    """The platforms `settings` turn on, in the order they are registered."""
    return [p for p in platforms if p.configured(own(p, settings))]


def host(settings: Settings, grace: float) -> Host:
    """What the process lends each adapter (`grace`: how long stopping may wait)."""
    return Host(settings.data_dir, settings.max_attachment_bytes, grace)


def build_adapters(
    settings: Settings, grace: float, platforms: Platforms = PLATFORMS, *, fallback: bool = True
) -> list[Adapter]:
    """An adapter per configured platform; the console when none is (and `fallback`).
    ConfigurationError when the settings name a platform but cannot start it."""
    lent = host(settings, grace)
    adapters = [p.build(own(p, settings), lent) for p in configured(settings, platforms)]
    if not adapters and fallback:
        log.info("no %s settings: chatting in this terminal", titles(platforms))
        adapters.append(FALLBACK.build(own(FALLBACK, settings), lent))
    return adapters


def door_title(name: str, platforms: Platforms = PLATFORMS) -> str:
    """How the ready line names a platform's door: "Slack", "console"."""
    titles = {p.name: p.title for p in platforms}
    return titles.get(name, name)


def titles(platforms: Platforms = PLATFORMS) -> str:
    """ "Slack or Telegram": the platforms, as a person reads them."""
    names = [p.title for p in platforms]
    return " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def how_to_claim(code: str, platforms: Platforms = PLATFORMS) -> str:
    """How a person sends the claim code that makes them the owner: `/start CODE`,
    and the platforms that take it another way."""
    ways = [f"in {p.title}: {p.claim.format(code=code)}" for p in platforms if p.claim]
    return f"send `/start {code}` to the bot" + (f" ({'; '.join(ways)})" if ways else "")


def deliver_via(adapters: Iterable[Adapter]) -> Deliver:
    """A `deliver` callable that sends through the adapter of the conversation's
    platform (NoRoute when there is none)."""
    by_platform = {adapter.platform: adapter for adapter in adapters}

    async def deliver(conversation: Conversation, reply: Reply) -> object:
        adapter = by_platform.get(conversation.platform)
        if adapter is None:
            raise NoRoute(conversation.platform)
        return await adapter.send(conversation, reply)

    return deliver


def chat_members(adapters: Iterable[Adapter]) -> dict[str, ChatMembers]:
    """The adapters that can say who is in a chat (for team vaults), by platform."""
    return {a.platform: a for a in adapters if isinstance(a, ChatMembers)}
