"""A fresh install served on Telegram with no allow-list: strangers are refused, the
log names the one-time claim code, and whoever sends it becomes the owner."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.helpers import notes
from tests.fakes.telegram_updates import Updates
from tests.production.conftest import Fakes
from tests.production.process import Brainbot

pytestmark = pytest.mark.slow  # starts brainbot processes


async def test_the_owner_claims_a_fresh_install_with_the_logged_code(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    env = fakes.env(tmp_path, database_url, slack=None, BRAINBOT_ALLOWED_USERS="")
    bot = await Brainbot(tmp_path, env).start()
    try:
        await bot.wait_ready()
        await bot.wait_for_log("nobody may use this brainbot yet")
        code = bot.log().split("send `/start ", 1)[1].split("`", 1)[0]
        ada = Updates()

        fakes.telegram.queue_update(ada.message("Plant tomatoes in May"))
        (refused,) = await fakes.telegram.wait_for("sendMessage", within=20)
        assert refused["text"].startswith("Sorry")

        fakes.telegram.queue_update(ada.message(f"/start {code}"))
        welcome = (await fakes.telegram.wait_for("sendMessage", 2, within=20))[-1]
        assert "you are its owner" in welcome["text"]

        fakes.telegram.queue_update(ada.message("Plant tomatoes in May"))
        saved = (await fakes.telegram.wait_for("sendMessage", 3, within=20))[-1]
        assert "ideas/plant-tomatoes-in-may.md" in saved["text"]
    finally:
        assert await bot.stop() == 0, bot.log()
    assert notes(tmp_path / "data" / "vault") == ["ideas/plant-tomatoes-in-may.md"]
