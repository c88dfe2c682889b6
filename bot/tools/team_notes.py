"""A person's search in their own conversation also reads the team vaults they
belong to; a hit from a team vault shows its source and is named `team:path`, so
`get_entry` can open it. Changes to team notes are made in the team's channel."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from bot.tools.context import ToolError
from bot.tools.registry import ToolContext
from storage import SearchHit, SearchResults

_QUALIFIED = re.compile(r"^(?P<vault>[a-z0-9][a-z0-9-]*):(?P<path>[^:/\\].*)$")


def qualified(vault: str, path: str) -> str:
    return f"{vault}:{path}"


async def search_with_teams(ctx: ToolContext, query: str, **filters: Any) -> SearchResults:
    """The conversation's vault, and, in a person's own vault, their teams' vaults too;
    hits merged by score, each team hit's path naming its vault."""
    limit = int(filters.get("limit", 10))
    own = await ctx.store.search(query, **filters)
    if ctx.vaults is None or ctx.vault is None or ctx.vault.is_team:
        return own
    teams = await ctx.vaults.teams_of(ctx.person.id)
    if not teams:
        return own
    hits: list[SearchHit] = list(own.hits)
    notes = list(own.notes)
    for team in teams:
        found = await (await ctx.vaults.store(team)).search(query, **filters)
        hits += [replace(h, path=qualified(team.name, h.path)) for h in found.hits]
        notes += [n for n in found.notes if n not in notes]
    hits.sort(key=lambda h: -h.score)
    return SearchResults(tuple(hits[:limit]), own.mode, tuple(notes), None if hits else own.empty)


async def in_team(ctx: ToolContext, reference: str) -> tuple[ToolContext, str] | None:
    """(`ctx` on the team's vault, the path) for a `team:path` reference to a team vault
    the person belongs to; None for any other reference. ToolError for a team vault
    they do not belong to (any more: membership follows the team's chat)."""
    match = _QUALIFIED.match(reference.strip())
    if match is None or ctx.vaults is None:
        return None
    team = await ctx.vaults.named(match["vault"])
    if team is None or not team.is_team or team.id == ctx.store.vault_id:
        return None
    if not await ctx.vaults.may_use(team.id, ctx.person.id):
        raise ToolError(
            f"{reference.strip()} is in the team vault {team.name!r}, and you are not a "
            "member of that team: its notes are for the people in its chat. Writing "
            "there makes you a member again."
        )
    store = await ctx.vaults.store(team)
    return replace(ctx, store=store, vault=team), match["path"]


def source_of(hit: SearchHit) -> str | None:
    """The team vault a merged hit came from (None: the conversation's own vault)."""
    match = _QUALIFIED.match(hit.path)
    return match["vault"] if match else None
