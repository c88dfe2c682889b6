"""Resume what a crash cut short: events recorded but never finished.

A message whose tools already ran (the tool log names its event, or a commit in
the vault does: a crash can fall between the commit and the log) is marked done
and not redone, so nothing is captured twice; one that never reached a tool is
processed now and its reply delivered. An approval whose run was cut short goes
back to pending, and its owner is asked to press again.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import UTC
from typing import cast

from bot.engine import CAPTURE_KIND, Engine
from bot.events import (
    Attachment,
    AttachmentKind,
    CaptureRequest,
    Conversation,
    Deliver,
    InboundMessage,
    Reply,
    Sender,
)
from storage.db import InboundEvent, ProcessLiveness, StoredFile

log = logging.getLogger(__name__)


async def resume_unfinished(engine: Engine, liveness: ProcessLiveness, deliver: Deliver) -> int:
    """Finish every unfinished event of a dead process exactly once (an event a live
    process is handling is left to it); returns how many were re-processed."""
    resumed = 0
    for row in await engine.records.events.unfinished():
        if await liveness.is_alive(row.owner):
            continue
        if not await engine.records.events.claim(
            row.platform, row.event_id, old=row.owner, new=liveness.token
        ):
            continue  # another process took it over first
        conversation = Conversation(row.platform, row.chat_id, row.thread_id)
        key = f"{row.platform}:{row.event_id}"
        store = await engine.store_for(_message(row, ()))
        if await engine.records.tool_log.has_event(key) or await store.has_event_commit(
            key, since=row.received_at
        ):
            log.info("event %s finished its work before the restart; marking it done", key)
            await engine.records.events.finish(row.platform, row.event_id, "done", engine.clock())
            continue
        if row.kind == "button":
            await _reopen(engine, row, conversation, deliver)
            continue
        log.info("re-processing event %s after a restart", key)
        files = await engine.records.events.files(row.platform, row.event_id)
        for reply in await engine.process(_message(row, files)):
            await deliver(conversation, reply)
        resumed += 1
    return resumed


async def resume_cut_short(engine: Engine, liveness: ProcessLiveness, deliver: Deliver) -> bool:
    """`resume_unfinished` at a start, said in the log: a reply that cannot be delivered
    is logged and never stops the rest (the note is what matters). False when resuming
    itself failed (logged)."""

    async def deliver_one(conversation: Conversation, reply: Reply) -> object:
        try:
            return await deliver(conversation, reply)
        except Exception as exc:
            log.warning("reply to a resumed %s event not sent: %s", conversation.platform, exc)
            return None

    try:
        resumed = await resume_unfinished(engine, liveness, deliver_one)
    except Exception:
        log.exception("re-processing the events a restart cut short failed")
        return False
    if resumed:
        log.info("re-processed %d event(s) a restart had cut short", resumed)
    return True


def _message(row: InboundEvent, files: Sequence[StoredFile]) -> InboundMessage:
    platform, _, user_id = row.user_key.partition(":")
    received = row.received_at if row.received_at.tzinfo else row.received_at.replace(tzinfo=UTC)
    capture = _capture_of(row)
    return InboundMessage(
        row.event_id,
        Conversation(row.platform, row.chat_id, row.thread_id),
        Sender(platform, user_id),
        capture.words if capture is not None else row.text,
        received,
        attachments=tuple(
            Attachment(cast(AttachmentKind, f.kind), f.data, f.file_name, f.mime_type)
            for f in files
        ),
        source={"platform": row.platform, "resumed": "after a restart"},
        capture=capture,
    )


def _capture_of(row: InboundEvent) -> CaptureRequest | None:
    """A door's typed capture, as recorded (bot.engine: the request as JSON)."""
    if row.kind != CAPTURE_KIND:
        return None
    values = json.loads(row.text)
    return CaptureRequest(
        str(values.get("words", "")),
        tuple(values.get("links", ())),
        str(values.get("category", "")),
        str(values.get("title", "")),
        tuple(values.get("tags", ())),
        values.get("confidence"),
        tuple((str(name), value) for name, value in values.get("fields", ())),
    )


async def _reopen(
    engine: Engine, row: InboundEvent, conversation: Conversation, deliver: Deliver
) -> None:
    action, _, value = row.text.partition(":")
    await engine.records.events.finish(row.platform, row.event_id, "failed", engine.clock())
    if action == "approve" and await engine.records.approvals.reopen(value):
        approval = await engine.records.approvals.get(value)
        summary = approval.summary if approval else "the change"
        await deliver(
            conversation,
            Reply(f"I restarted before I could apply: {summary}. Press Approve again to apply it."),
        )
