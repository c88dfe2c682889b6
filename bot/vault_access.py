"""Acting on a vault other than the conversation's: a pressed button carries the
vault its change is for, and runs there only if the person may use that vault."""

from __future__ import annotations

from dataclasses import replace

from bot.tools.registry import ToolContext


async def in_vault(ctx: ToolContext, vault_id: int) -> ToolContext | None:
    """`ctx` acting on vault `vault_id`, or None when the person may not use it (it is
    neither theirs nor a team's they belong to)."""
    if ctx.store.vault_id == vault_id:
        return ctx
    if ctx.vaults is None or not await ctx.vaults.may_use(vault_id, ctx.person.id):
        return None
    vault = await ctx.vaults.get(vault_id)
    if vault is None:
        return None
    return replace(ctx, store=await ctx.vaults.store(vault), vault=vault)


def is_team(ctx: ToolContext) -> bool:
    """Whether `ctx` acts on a team vault (any member may approve changes there)."""
    return ctx.vault is not None and ctx.vault.is_team
