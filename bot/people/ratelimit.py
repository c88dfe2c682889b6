"""Messages per minute per person: a flood (a script, a stuck client) cannot make the
bot write hundreds of notes. Counted in this process; 0 turns it off."""

from __future__ import annotations

from collections import deque
from datetime import datetime, timedelta

WINDOW = timedelta(minutes=1)
SENDERS_REMEMBERED = 10_000


class RateLimit:
    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._times: dict[str, deque[datetime]] = {}

    def admit(self, sender: str, now: datetime) -> bool:
        """Count a message of `sender`; False when it is one too many this minute."""
        if self.per_minute <= 0:
            return True
        times = self._times.setdefault(sender, deque())
        while times and now - times[0] >= WINDOW:
            times.popleft()
        if len(times) >= self.per_minute:
            return False
        times.append(now)
        if len(self._times) > SENDERS_REMEMBERED:
            self._times = {key: t for key, t in self._times.items() if t and now - t[-1] < WINDOW}
        return True
