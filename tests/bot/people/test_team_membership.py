"""Team membership follows the chat: the real Slack and Telegram adapters ask the fake
platforms who is still in a team's chat when a membership is a day old (at its next
use, and in the leader's sweep); who left loses the team's notes, who stayed keeps
them, and a platform that cannot answer keeps a membership for at most a week."""

from __future__ import annotations

import itertools
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from adapters.slack.app import SlackAdapter
from adapters.telegram.app import TelegramAdapter
from app.platforms import chat_members
from app.runtime import Runtime
from app.scheduling import build_service
from bot.events import Conversation, InboundMessage, Reply, Sender
from tests.fakes.brain import Clock, running_brain
from tests.fakes.slack_api import BOT_TOKEN, FakeSlack
from tests.fakes.slack_payloads import SIGNING_SECRET
from tests.fakes.telegram_api import FakeTelegram

TEAM = Conversation("slack", "C0TEAM")
ROTA = "projects/on-call-rota.md"
LEFT = "no longer in slack:C0TEAM; membership removed"
_ids = itertools.count(1)


def said(platform: str, user: str, text: str, chat: Conversation | None = None) -> InboundMessage:
    """`user`'s message in `chat` (default: their direct chat with the bot)."""
    where = chat or Conversation(platform, f"D-{user}")
    return InboundMessage(
        f"e{next(_ids)}", where, Sender(platform, user, user), text, datetime.now(UTC)
    )


async def ask(brain: Runtime, message: InboundMessage) -> str:
    replies: list[Reply] = await brain.engine.handle(message)
    return "\n".join(r.text for r in replies)


@dataclass
class Team:
    brain: Runtime
    clock: Clock
    slack: FakeSlack

    async def search(self, user: str) -> str:
        return await ask(self.brain, said("slack", user, "/search rota"))

    def listings(self) -> int:
        return len(self.slack.calls_of("conversations.members"))


@asynccontextmanager
async def slack_team(tmp_path: Path, database_url: str) -> AsyncIterator[Team]:
    """Alice files the rota in the team channel, Bob writes there too; both are in it."""
    slack = FakeSlack()
    await slack.start()
    clock = Clock()
    adapter = SlackAdapter(BOT_TOKEN, signing_secret=SIGNING_SECRET, api_url=slack.api_url)
    try:
        async with running_brain(
            tmp_path,
            database_url,
            clock=clock,
            chats=chat_members([adapter]),
            BRAINBOT_TEAM_VAULTS="slack:C0TEAM=Team Ops",
        ) as brain:
            slack.set_members("C0TEAM", "U0ALICE", "U0BOB")
            await ask(brain, said("slack", "U0ALICE", "project: On-call rota", TEAM))
            await ask(brain, said("slack", "U0BOB", "/help", TEAM))
            yield Team(brain, clock, slack)
    finally:
        await adapter.stop()
        await slack.close()


async def test_who_left_the_channel_loses_the_team_a_day_later_who_stayed_keeps_it(
    tmp_path: Path, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with slack_team(tmp_path, database_url) as team:
        assert f"team-ops:{ROTA}" in await team.search("U0BOB")
        assert team.listings() == 0  # a membership confirmed today is not asked about
        team.slack.set_members("C0TEAM", "U0ALICE")  # Bob leaves the channel
        team.clock.advance(hours=25)
        with caplog.at_level(logging.INFO, logger="bot.people.teams"):
            found = await team.search("U0BOB")
        assert "team-ops" not in found and "On-call" not in found
        assert any(LEFT in r.getMessage() for r in caplog.records)
        refused = await ask(team.brain, said("slack", "U0BOB", f"/get team-ops:{ROTA}"))
        assert "not a member" in refused and "team-ops" in refused
        # Alice is still in it: one listing confirms her, and for a day nothing is asked.
        assert f"team-ops:{ROTA}" in await team.search("U0ALICE")
        assert f"team-ops:{ROTA}" in await team.search("U0ALICE")
        assert team.listings() == 1


async def test_writing_in_the_channel_again_makes_a_member_again(
    tmp_path: Path, database_url: str
) -> None:
    async with slack_team(tmp_path, database_url) as team:
        team.slack.set_members("C0TEAM", "U0ALICE")
        team.clock.advance(hours=25)
        assert "team-ops" not in await team.search("U0BOB")
        team.slack.set_members("C0TEAM", "U0ALICE", "U0BOB")
        await ask(team.brain, said("slack", "U0BOB", "back from leave", TEAM))
        assert f"team-ops:{ROTA}" in await team.search("U0BOB")


async def test_the_leaders_sweep_checks_every_stale_membership_in_one_listing(
    tmp_path: Path, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with slack_team(tmp_path, database_url) as team:
        team.slack.members_page = 1  # the bot and Alice: two pages
        team.slack.set_members("C0TEAM", "U0ALICE")
        service = build_service(team.brain, deliver=_nowhere)
        await service.tick()  # everyone was confirmed today: nothing to ask
        assert team.listings() == 0
        team.clock.advance(hours=25)
        with caplog.at_level(logging.INFO):
            await service.tick()
        assert len(team.slack.ok_calls("conversations.members")) == 2  # one listing, 2 pages
        assert any(LEFT in r.getMessage() for r in caplog.records)
        assert any("1 confirmed, 1 removed" in r.getMessage() for r in caplog.records)
        # Bob's row is gone; Alice's is fresh: neither search needs Slack now.
        team.slack.fail("conversations.members", "fatal_error", times=10)
        assert "team-ops" not in await team.search("U0BOB")
        assert f"team-ops:{ROTA}" in await team.search("U0ALICE")
        assert team.listings() == 2


async def test_slack_not_answering_keeps_a_membership_for_at_most_a_week(
    tmp_path: Path, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with slack_team(tmp_path, database_url) as team:
        team.slack.fail("conversations.members", "missing_scope", times=100)
        team.clock.advance(hours=25)
        with caplog.at_level(logging.WARNING, logger="bot.people.teams"):
            assert f"team-ops:{ROTA}" in await team.search("U0BOB")
        assert any("missing_scope" in r.getMessage() for r in caplog.records)
        team.clock.advance(days=7)
        assert "team-ops" not in await team.search("U0BOB")
        # Slack answers again: Bob is still in the channel, and reads the team's notes.
        team.slack.heal("conversations.members")
        team.clock.advance(hours=1)
        assert f"team-ops:{ROTA}" in await team.search("U0BOB")


async def test_telegram_members_are_asked_one_by_one_and_their_status_decides(
    tmp_path: Path, database_url: str
) -> None:
    group = -100123
    chat = Conversation("telegram", str(group))
    statuses = {
        1001: "creator",
        1002: "administrator",
        1003: "member",
        1004: "restricted",  # restricted, still a member
        1005: "restricted-left",
        1006: "left",
        1007: "kicked",
    }
    clock = Clock()
    async with FakeTelegram() as telegram:
        adapter = TelegramAdapter(telegram.token, api_url=telegram.root)
        try:
            async with running_brain(
                tmp_path,
                database_url,
                clock=clock,
                chats=chat_members([adapter]),
                BRAINBOT_TEAM_VAULTS=f"telegram:{group}=family",
            ) as brain:
                await ask(brain, said("telegram", "1001", "project: Holiday rota", chat))
                for user, status in statuses.items():
                    telegram.set_member(group, user, status)
                    await ask(brain, said("telegram", str(user), "/help", chat))
                clock.advance(hours=25)
                swept = await brain.teams.sweep()
                assert (swept.confirmed, swept.removed, swept.unknown) == (4, 3, 0)
                asked = {int(p["user_id"]) for p in telegram.calls("getChatMember")}
                assert asked == set(statuses)
                for user, status in statuses.items():
                    found = await ask(brain, said("telegram", str(user), "/search holiday"))
                    stayed = status in {"creator", "administrator", "member", "restricted"}
                    assert ("family:projects/holiday-rota.md" in found) is stayed, status
        finally:
            await adapter.stop()


async def _nowhere(conversation: Conversation, reply: Reply) -> None:
    raise AssertionError(f"nothing is sent in these tests: {reply.text}")
