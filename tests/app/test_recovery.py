"""After a crash: recorded-but-unfinished events are finished exactly once."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

import frontmatter
from sqlalchemy import update

from app.recovery import resume_unfinished
from bot.engine import CAPTURE_KIND
from bot.events import CaptureRequest, Conversation, Reply
from storage.db.chat_tables import APPROVALS, EVENTS
from storage.db.events import NewEvent, StoredFile
from storage.db.liveness import ProcessLiveness
from storage.db.records import Records
from tests.bot.helpers import CHAT, message, notes, press
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, call


async def record_only(
    records: Records,
    event_id: str,
    text: str,
    *,
    kind: str = "message",
    owner: int = 0,
    files: Sequence[StoredFile] = (),
) -> None:
    """Record an event of the test chat the way `Engine.handle` does, and go no further:
    what a process that died right after recording leaves behind."""
    new = NewEvent(
        "test", event_id, kind, "test:U1", CHAT.chat_id, None, text, datetime.now(UTC), owner
    )
    arrival = await records.events.arrive(new, by_setting=True, files=files)
    assert arrival.admitted and arrival.first


async def test_an_event_recorded_but_never_processed_is_processed_once(
    tmp_path: Path, database_url: str
) -> None:
    event = message("idea: solar kettle", event_id="crashed-1")
    delivered: list[tuple[Conversation, Reply]] = []

    async def deliver(conversation: Conversation, reply: Reply) -> None:
        delivered.append((conversation, reply))

    async with running_brain(tmp_path, database_url) as brain:
        await record_only(brain.records, "crashed-1", event.text)
        assert await resume_unfinished(brain.engine, brain.liveness, deliver) == 1
        assert await resume_unfinished(brain.engine, brain.liveness, deliver) == 0
        assert await brain.engine.handle(event) == []  # the platform's retry, later
        assert notes(brain.settings.vault_dir) == ["ideas/solar-kettle.md"]
    assert [(c, r.text) for c, r in delivered] == [
        (CHAT, "Saved to ideas/solar-kettle.md (ideas).")
    ]


async def test_an_event_whose_tools_ran_before_the_crash_is_not_redone(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        await brain.engine.handle(message("idea: wind chimes", event_id="crashed-2"))
        async with brain.database.engine.begin() as conn:  # the crash came before "done"
            await conn.execute(
                update(EVENTS)
                .where(EVENTS.c.event_id == "crashed-2")
                .values(status="received", owner=0)  # owned by a process now gone
            )
        delivered: list[Reply] = []

        async def deliver(conversation: Conversation, reply: Reply) -> None:
            delivered.append(reply)

        assert await resume_unfinished(brain.engine, brain.liveness, deliver) == 0
        assert await brain.records.events.unfinished() == []
        assert notes(brain.settings.vault_dir) == ["ideas/wind-chimes.md"]
    assert delivered == []


async def test_an_approval_cut_short_by_a_crash_can_be_pressed_again(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        await brain.engine.handle(message("idea: kites"))
        (card,) = await brain.engine.handle(message("/delete ideas/kites.md"))
        pressed = press(card, "Approve", event_id="crashed-3")
        await record_only(brain.records, "crashed-3", f"approve:{pressed.value}", kind="button")
        async with brain.database.engine.begin() as conn:  # claimed, then the process died
            await conn.execute(
                update(APPROVALS).where(APPROVALS.c.id == pressed.value).values(status="running")
            )
        delivered: list[Reply] = []

        async def deliver(conversation: Conversation, reply: Reply) -> None:
            delivered.append(reply)

        await resume_unfinished(brain.engine, brain.liveness, deliver)
        assert "Press Approve again" in delivered[0].text
        (done,) = await brain.engine.handle(press(card, "Approve"))
        assert done.text.startswith("Approved") and notes(brain.settings.vault_dir) == []


async def test_an_event_a_live_process_is_handling_is_left_to_it(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        other = await ProcessLiveness.acquire(brain.database.engine)  # another brainbot
        await record_only(brain.records, "theirs", "idea: sails", owner=other.token)
        delivered: list[Reply] = []

        async def deliver(conversation: Conversation, reply: Reply) -> None:
            delivered.append(reply)

        assert await resume_unfinished(brain.engine, brain.liveness, deliver) == 0
        assert notes(brain.settings.vault_dir) == []
        await other.release()  # that process died
        assert await resume_unfinished(brain.engine, brain.liveness, deliver) == 1
        assert notes(brain.settings.vault_dir) == ["ideas/sails.md"]


async def test_a_voice_note_cut_short_keeps_its_audio_through_the_restart(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.transcript = "buy seeds for the balcony"
    openai_fake.script = [
        call(
            "capture",
            category="admin",
            title="Seeds",
            body="buy seeds for the balcony",
            confidence=0.9,
            tags=[],
            fields=[],
        ),
    ]
    audio = b"OggS" + bytes(range(256)) * 40
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        files = [StoredFile("voice", "voice-1.ogg", "audio/ogg", audio)]
        await record_only(brain.records, "voice-1", "", files=files)

        async def deliver(conversation: Conversation, reply: Reply) -> None:
            return None

        assert await resume_unfinished(brain.engine, brain.liveness, deliver) == 1
        vault = brain.settings.vault_dir
        (kept,) = [p for p in vault.glob("attachments/*") if p.suffix == ".ogg"]
        assert kept.read_bytes() == audio
        post = frontmatter.load(vault / "admin/seeds.md")
        assert f"![[attachments/{kept.name}]]" in post.content
        assert await brain.records.events.files("test", "voice-1") == []
    assert openai_fake.requests[0] == ("transcribe", {"model": "whisper-1", "bytes": len(audio)})


async def test_a_doors_typed_capture_cut_short_is_filed_as_it_was_asked(
    tmp_path: Path, database_url: str
) -> None:
    # A door's capture is recorded whole (its category and tags too), so a restart
    # files it as asked: honoured, never sent to the inbox nor read as a command.
    asked = CaptureRequest("/delete everything, said in a note", category="ideas", tags=("x",))

    async def deliver(conversation: Conversation, reply: Reply) -> None:
        return None

    async with running_brain(tmp_path, database_url) as brain:
        await record_only(
            brain.records, "crashed-api", json.dumps(asdict(asked)), kind=CAPTURE_KIND
        )
        assert await resume_unfinished(brain.engine, brain.liveness, deliver) == 1
        (path,) = notes(brain.settings.vault_dir)
        note = frontmatter.load(brain.settings.vault_dir / path)
    assert path.startswith("ideas/") and note["tags"] == ["x"]
    assert "/delete everything" in note.content
