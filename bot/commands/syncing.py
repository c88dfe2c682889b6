"""`/sync`: one round of two-way sync of the person's vault with its git remote, now.

The round is the one the interval and the push webhook run (storage.vault.
remote_sync); the reply says what came in and went out, and each conflict kept as
a copy comes with its buttons (bot.buttons.sync_conflicts)."""

from __future__ import annotations

from bot.buttons import conflict_message
from bot.events import Reply
from bot.tools import ToolContext
from storage import OWNER_VAULT, OWNER_VAULT_NAME
from storage.vault import SyncRound, remote_of

NO_REMOTE = (
    "Your notes have no git remote to sync with: the bot's admin sets BRAINBOT_GIT_REMOTE "
    "(see the docs' page on syncing with your devices)."
)
SAID = {
    "nothing-new": "Nothing new on either side.",
    "pushed": "Nothing came in; my changes are pushed.",
    "fast-forward": "Brought in what your devices pushed.",
    "adopted": "Started from the notes on your remote.",
    "merged": "Merged what your devices pushed with my changes, and pushed the result.",
    "empty-remote": "The remote was empty; it now has your notes.",
}


async def sync_now(ctx: ToolContext) -> list[Reply]:
    """Sync the vault of `ctx` with its remote and say how it went."""
    owner = ctx.store.vault_id == OWNER_VAULT
    name = ctx.vault.name if ctx.vault is not None else OWNER_VAULT_NAME
    remote = remote_of(ctx.settings.git_remote, name, owner=owner)
    if remote is None:
        return [Reply(NO_REMOTE)]
    done = await ctx.store.sync_remote(remote)
    replies = [Reply(said(done))]
    for conflict in done.conflicts:
        replies.append(
            await conflict_message(
                ctx.records,
                ctx.person.id,
                ctx.store.vault_id,
                conflict.path,
                conflict.copy,
                conflict.device,
                ctx.now,
            )
        )
    return replies


def said(done: SyncRound) -> str:
    """What a round did, in a sentence or two."""
    if done.outcome == "failed":
        return f"The sync did not work: {done.problem}. Your notes are as they were."
    text = SAID.get(done.outcome, done.outcome)
    if done.problem:
        text += f" Note: {done.problem}."
    return text
