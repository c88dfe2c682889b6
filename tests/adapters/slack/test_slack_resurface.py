"""End to end on Slack: a digest with an older note brought back, sent through the
real adapter, its Less like this, Done and Undo pressed in the fake Slack."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import frontmatter

from app.scheduling import build_service
from tests.adapters.slack.test_slack_engine import serving, slack_adapter
from tests.bot.digest.test_resurface import MORNING, VECTORS, _vault
from tests.fakes.brain import Clock, running_brain
from tests.fakes.openai_server import FakeOpenAI, say
from tests.fakes.slack_api import FakeSlack
from tests.fakes.slack_payloads import DM_CHANNEL
from tests.scheduler.notes import add_notes
from tests.scheduler.outbox import add_ada


def _buttons(blocks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {e["text"]["text"]: e for b in blocks if b["type"] == "actions" for e in b["elements"]}


def _text(blocks: list[dict[str, Any]]) -> str:
    return "\n".join(b["text"]["text"] for b in blocks if b["type"] == "section")


async def test_less_like_this_done_and_undo_work_from_slack(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, fake_slack: FakeSlack
) -> None:
    openai_fake.responder = lambda body: say("A quiet day.")
    clock = Clock(MORNING)
    adapter = slack_adapter(fake_slack)
    async with (
        running_brain(
            tmp_path, database_url, openai_fake, clock=clock, deliver=adapter.send, **VECTORS
        ) as brain,
        serving(brain, fake_slack, adapter) as slack,
    ):
        await add_notes(brain.store, tmp_path / "import", _vault())
        ada = await add_ada(brain, platform="slack", user_id="U0ALICE", chat_id=DM_CHANNEL)
        # The digest is told through the adapter, as what was read after a reply is.
        service = build_service(brain, adapter.send)
        digest = await service.delivery.compose(ada, MORNING.date(), "daily")
        sent, _ = await service.delivery.send_now(ada, digest)
        assert sent.status == "sent"
        [card] = await fake_slack.wait_for("chat.postMessage", within=15)
        ts = str(card.response["ts"])
        buttons = _buttons(card.args["blocks"])
        assert list(buttons)[:3] == ["Open 1", "Done 1", "Less like this 1"]

        await slack.press(buttons["Less like this 1"], ts)
        [lowered] = await fake_slack.wait_for("chat.update", within=15)
        assert "less like this: shown less often" in _text(lowered.args["blocks"])
        assert list(_buttons(lowered.args["blocks"])) == ["Open 2", "Done 2", "Less like this 2"]

        await slack.press(buttons["Done 2"], ts)
        await fake_slack.wait_for("chat.update", 2, within=15)
        [_, told] = await fake_slack.wait_for("chat.postMessage", 2, within=15)
        assert _text(told.args["blocks"]).startswith("Marked “Greenhouse ")
        done = [
            p
            for p in ("ideas/greenhouse.md", "ideas/heater.md")
            if frontmatter.load(slack.vault / p).get("status") == "done"
        ]
        assert len(done) == 1

        await slack.press(_buttons(told.args["blocks"])["Undo"], str(told.response["ts"]))
        [*_, undone] = await fake_slack.wait_for("chat.update", 3, within=15)
        assert _text(undone.args["blocks"]).startswith("Undone: Marked")
        assert "status" not in frontmatter.load(slack.vault / done[0]).metadata
