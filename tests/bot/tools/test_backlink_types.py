"""`list_backlinks` says how each note links (the model reads `relations`, a person
reads `works_at ← [[Sarah Kim]]`), and `/backlinks` shows the same."""

from __future__ import annotations

import json
from pathlib import Path

from tests.bot.helpers import message
from tests.fakes.brain import running_brain


async def test_backlinks_carry_their_types_for_the_model_and_the_person(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        acme = await brain.store.create("projects", "Acme", "A client.")
        sarah = await brain.store.create("people", "Sarah Kim", "- works_at [[Acme]]\n")
        tom = await brain.store.create(
            "people", "Tom Lee", "employer:: [[Acme]]\n- works_at [[Acme]] (2020)\n"
        )
        lunch = await brain.store.create("ideas", "Lunch", "At [[Acme]].")

        ctx = await brain.engine.context(message("(context)"), brain.engine.clock())
        args = {"path": acme.path}
        outcome = await brain.engine.runner.call(ctx, "list_backlinks", args)
        data = json.loads(outcome.content)
        relations = {b["path"]: b["relations"] for b in data["backlinks"]}
        assert relations == {
            sarah.path: ["works_at"],
            tom.path: ["employer", "works_at"],
            lunch.path: [],
        }

        (reply,) = await brain.engine.handle(message("/backlinks Acme"))
        lines = reply.text.splitlines()
        assert lines[0] == f"- employer ← [[Tom Lee]] ({tom.path})"
        assert set(lines[1:3]) == {
            f"- works_at ← [[Sarah Kim]] ({sarah.path})",
            f"- works_at ← [[Tom Lee]] ({tom.path})",
        }
        assert lines[3:] == [f"- Lunch ({lunch.path})"]
