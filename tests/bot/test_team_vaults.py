"""Team vaults by choice: a chat named in BRAINBOT_TEAM_VAULTS files into a shared
vault; its members search it (from their own chat too, with the source shown) and
any of them may approve a change to it. Nobody else reads it."""

from __future__ import annotations

from pathlib import Path

from bot.events import Conversation
from tests.bot.helpers import message, notes, press, vault_of
from tests.fakes.brain import running_brain

TEAM_CHAT = Conversation("test", "team-chat")
TEAMS = {"BRAINBOT_TEAM_VAULTS": "test:team-chat=Team Ops"}
ALICE, BOB, CAROL = "U1", "U2", "U3"
ROTA = "projects/on-call-rota.md"


async def test_a_team_chat_files_into_the_shared_vault(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url, **TEAMS) as brain:
        (saved,) = await brain.engine.handle(
            message("project: On-call rota", user=ALICE, chat=TEAM_CHAT)
        )
        assert ROTA in saved.text
        team = brain.settings.data_dir / "vaults" / "team-ops"
        assert notes(team) == [ROTA]
        await brain.engine.handle(message("idea: my own thought", user=ALICE))
        assert ROTA not in notes(await vault_of(brain, "test", ALICE))
        # Another member finds it in the team chat.
        await brain.engine.handle(message("idea: pager budget", user=BOB, chat=TEAM_CHAT))
        (found,) = await brain.engine.handle(message("/search rota", user=BOB, chat=TEAM_CHAT))
        assert ROTA in found.text


async def test_members_search_their_notes_and_their_teams_with_the_source_shown(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url, **TEAMS) as brain:
        await brain.engine.handle(message("project: On-call rota", user=ALICE, chat=TEAM_CHAT))
        await brain.engine.handle(message("idea: rota swap rules", user=BOB))
        await brain.engine.handle(message("/help", user=BOB, chat=TEAM_CHAT))
        (mine_and_team,) = await brain.engine.handle(message("/search rota", user=BOB))
        assert "ideas/rota-swap-rules.md" in mine_and_team.text
        assert f"[team-ops] On-call rota (team-ops:{ROTA})" in mine_and_team.text
        # Opened by the name the search gave.
        (opened,) = await brain.engine.handle(message(f"/get team-ops:{ROTA}", user=BOB))
        assert "On-call rota" in opened.text
        # Carol never wrote in the team chat: not a member, nothing of the team's.
        await brain.engine.handle(message("idea: carol's rota idea", user=CAROL))
        (hers,) = await brain.engine.handle(message("/search rota", user=CAROL))
        assert "team-ops" not in hers.text and "On-call" not in hers.text
        (refused,) = await brain.engine.handle(message(f"/get team-ops:{ROTA}", user=CAROL))
        assert "On-call rota" not in refused.text
        # Bob's own notes stay his: Alice's search in her own chat does not show them.
        (alice,) = await brain.engine.handle(message("/search swap rules", user=ALICE))
        assert "rota-swap-rules" not in alice.text


async def test_any_member_may_approve_a_change_to_a_team_note(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url, **TEAMS) as brain:
        await brain.engine.handle(message("project: On-call rota", user=ALICE, chat=TEAM_CHAT))
        await brain.engine.handle(message("/help", user=BOB, chat=TEAM_CHAT))
        team = brain.settings.data_dir / "vaults" / "team-ops"
        replies = await brain.engine.handle(message(f"/delete {ROTA}", user=ALICE, chat=TEAM_CHAT))
        (card,) = [r for r in replies if r.buttons]
        pressed = press(card, "Approve", user=BOB, chat=TEAM_CHAT)
        (done,) = await brain.engine.handle(pressed)
        assert done.text.startswith("Approved")
        assert notes(team) == []
