"""Albums: photos or files sent together reach the engine as one message.

Telegram delivers each part of a media group as its own update, all with the same
`media_group_id` and usually only one of them captioned; nothing marks the last.
Parts are held until no new one came for `ALBUM_QUIET` seconds (Telegram sends an
album's parts within a fraction of a second), then handed over as one `Incoming`:
every file in message order, the caption as its text.

Its event id names the group (`album:<chat_id>:<media_group_id>`), not an update,
so a part delivered again after its album was handed over (a restart, a webhook
retry) is a duplicate to the engine instead of a second note.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from adapters.telegram.translate import Incoming

log = logging.getLogger(__name__)

ALBUM_QUIET = 1.5  # seconds without a new part before an album is complete

Take = Callable[[Incoming], Awaitable[None]]  # hands a whole album on


def album_event_id(chat_id: str, media_group: str) -> str:
    """The event id of a whole album, the same for whichever of its parts it is built from."""
    return f"album:{chat_id}:{media_group}"


def merge_album(parts: Sequence[Incoming]) -> Incoming:
    """One `Incoming` from an album's parts: their files in message order, their
    captions (usually one) as the text, the first part's origin, sender and quote.
    In a group, the parts that did not name the bot come along with the one that did."""
    ordered = sorted(parts, key=lambda part: int(part.event.source["message_id"]))
    first = ordered[0]
    assert first.media_group is not None, "not a part of an album"
    event = replace(
        first.event,
        event_id=album_event_id(first.event.conversation.chat_id, first.media_group),
        text="\n\n".join(part.event.text for part in ordered if part.event.text),
        raw=tuple(part.event.raw for part in ordered),
    )
    files = tuple(ref for part in ordered for ref in part.files)
    return replace(first, event=event, files=files, addressed=True)


class Albums:
    """Parts of albums waiting for their last one; `take` gets each album once.

    What if the bot stops while parts wait? Their updates are already acknowledged
    (PTB confirms fetched updates with a last getUpdates on stop; a webhook answered
    200), so Telegram will not send them again: dropping them would lose them.
    `flush` therefore hands every waiting album over at once, and the adapter
    calls it on stop after PTB has handled its last updates and before its
    connection closes. An album cut short by a stop is filed with the parts that
    had arrived.
    """

    def __init__(self, take: Take, quiet: float = ALBUM_QUIET) -> None:
        self._take = take
        self._quiet = quiet
        self._waiting: dict[tuple[str, str], list[Incoming]] = {}
        self._timers: dict[tuple[str, str], asyncio.TimerHandle] = {}
        self._running: set[asyncio.Task[None]] = set()

    def add(self, part: Incoming) -> None:
        """Hold `part` with the rest of its album; the quiet time starts over."""
        assert part.media_group is not None, "not a part of an album"
        key = (part.event.conversation.chat_id, part.media_group)
        self._waiting.setdefault(key, []).append(part)
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        self._timers[key] = asyncio.get_running_loop().call_later(self._quiet, self._release, key)

    async def flush(self) -> None:
        """Hand every waiting album over now and wait until all handed over are done."""
        for key in list(self._waiting):
            self._release(key)
        if self._running:
            await asyncio.gather(*self._running, return_exceptions=True)

    def _release(self, key: tuple[str, str]) -> None:
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        parts = self._waiting.pop(key, None)
        if not parts:
            return
        if not any(part.addressed for part in parts):
            log.debug("ignoring album %s in %s: not addressed to the bot", key[1], key[0])
            return
        album = merge_album(parts)
        task = asyncio.create_task(self._run(album), name=album.event.event_id)
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _run(self, album: Incoming) -> None:
        try:
            await self._take(album)
        except Exception:
            log.exception("Telegram album %s failed", album.event.event_id)
