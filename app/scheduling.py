"""The scheduler wired into a running brainbot (digests and reminders): its parts built
from the runtime's vaults, records, settings and model."""

from __future__ import annotations

from app.runtime import Runtime
from bot.events import Deliver
from scheduler.delivery import DigestDelivery
from scheduler.reminders import Reminders
from scheduler.service import DigestService


def build_service(
    runtime: Runtime, deliver: Deliver, *, poll_seconds: float = 10.0
) -> DigestService:
    """The digest service of a runtime, not started: the settings listener is
    registered; `start_scheduler` also starts it."""
    ledger = runtime.records.send_ledger
    # A bad note or a person's failing digest is skipped, counted and shown by doctor.
    skipped = runtime.records.skipped
    reminders = Reminders(
        vaults=runtime.vaults,
        records=runtime.records,
        ledger=ledger,
        settings=runtime.settings,
        deliver=deliver,
        clock=runtime.engine.clock,
        skipped=skipped,
    )
    delivery = DigestDelivery(
        vaults=runtime.vaults,
        records=runtime.records,
        ledger=ledger,
        messages=runtime.records.digest_messages,
        settings=runtime.settings,
        llm=runtime.llm,
        deliver=deliver,
        clock=runtime.engine.clock,
    )
    service = DigestService(
        delivery=delivery,
        records=runtime.records,
        ledger=ledger,
        settings=runtime.settings,
        engine=runtime.database.engine,
        clock=runtime.engine.clock,
        skipped=skipped,
        poll_seconds=poll_seconds,
        reminders=reminders,
        teams=runtime.teams,
    )
    runtime.engine.people.listeners.append(service.on_settings_changed)
    return service


async def start_scheduler(
    runtime: Runtime, deliver: Deliver, *, poll_seconds: float = 10.0
) -> DigestService:
    """Wire the digests into a running brainbot: the digest tables, the Done / Snooze
    / Open buttons, settings changes, and the scheduler competing for leadership.
    Call it in every process (buttons work everywhere; one process sends) once the
    adapters are started; stop with `await service.stop()` before `runtime.close()`."""
    await runtime.database.create_schema()  # the digest tables, on first start
    service = build_service(runtime, deliver, poll_seconds=poll_seconds)
    await service.start()
    return service
