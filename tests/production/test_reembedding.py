"""Switching embeddings on for a vault indexed without them, as a user would (a
setting, a restart), with a slow embeddings service: `brainbot run` is ready at
once and embeds in the background, /readyz, the log and `brainbot doctor` say how
far it got, and a restart part-way goes on with the notes still waiting."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.production.conftest import Fakes
from tests.production.process import Brainbot
from tests.production.test_doctor import doctor

pytestmark = pytest.mark.slow  # starts brainbot processes

NOTES = 120
MODEL = "openai:nomic-embed-text"


def embedded_texts(fakes: Fakes, since: int) -> int:
    """Texts sent to the embeddings service after its `since`-th request."""
    return sum(
        len(body["input"]) for path, body in fakes.openai.requests[since:] if path == "embeddings"
    )


@pytest.mark.slow(seconds=20)
async def test_a_new_embedder_embeds_in_the_background_with_progress(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    vault = tmp_path / "vault"
    (vault / "ideas").mkdir(parents=True)
    for n in range(NOTES):
        (vault / "ideas" / f"note {n}.md").write_text(f"# Note {n}\nThe marker word{n}.\n")
    env = fakes.env(tmp_path, database_url, slack=None, BRAINBOT_VAULT_DIR=str(vault))
    bot = await Brainbot(tmp_path, env, name="keyword").start()
    await bot.wait_ready()
    assert await bot.stop() == 0, bot.log()

    embeddings = {
        **env,
        "BRAINBOT_EMBEDDINGS": "openai",
        "BRAINBOT_EMBEDDING_MODEL": "nomic-embed-text",
        "BRAINBOT_EMBEDDING_DIMENSIONS": "32",
    }
    fakes.openai.embedding_delay = 2.0  # per request: a round of 100 notes takes two
    bot = await Brainbot(tmp_path, embeddings, name="embedding").start()
    try:
        await bot.wait_ready(within=30)
        status, ready = await bot.get_json("/readyz")
        assert status == 200 and ready["ready"] is True
        # (beside "model": how chat asks the fake model, tests/production/test_model_mode)
        assert ready["notes"]["embeddings"] == f"re-embedding for {MODEL}: 0 of 120 notes"
        await bot.wait_for_log(f"re-embedding for {MODEL}: 100 of 120 notes")
        status, ready = await bot.get_json("/readyz")
        assert ready["notes"]["embeddings"] == f"re-embedding for {MODEL}: 100 of 120 notes"
    finally:
        assert await bot.stop() == 0, bot.log()
    assert "Traceback" not in bot.log()
    assert f"re-embedding for {MODEL}: 120 notes of vault 1 in the background" in bot.log()

    _, report = await doctor(embeddings, tmp_path)
    assert f"note     embeddings: re-embedding for {MODEL}: 100 of 120 notes" in report, report

    fakes.openai.embedding_delay = 0.0
    before = len(fakes.openai.requests)
    bot = await Brainbot(tmp_path, embeddings, name="resumed").start()
    try:
        await bot.wait_ready(within=30)
        status, ready = await bot.get_json("/readyz")
        assert "embeddings" not in ready.get("notes", {})  # nothing left to embed
    finally:
        assert await bot.stop() == 0, bot.log()
    assert embedded_texts(fakes, before) == NOTES - 100  # the rest, not all again
