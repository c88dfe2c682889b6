"""When a failed scheduled send is tried again: sooner at first, then less often,
and never after its grace period, when it is reported as failed instead.

A platform that is down for a minute (a Slack 5xx, a Telegram flood wait, a
restarting network) should not cost a person their digest or reminder; one that
stays down should not be hammered. Attempts are 30 s, 1, 2, 4, 8 ... minutes
apart, at most 15 minutes apart, while the send is still within its grace period.
"""

from __future__ import annotations

from datetime import datetime, timedelta

FIRST_DELAY = timedelta(seconds=30)
LONGEST_DELAY = timedelta(minutes=15)


def delay_after(attempts: int) -> timedelta:
    """How long to wait after `attempts` failed attempts (1, 2, ...)."""
    delay: timedelta = FIRST_DELAY * 2 ** max(0, attempts - 1)
    return min(delay, LONGEST_DELAY)


def next_attempt(
    attempts: int, *, due_at: datetime, grace: timedelta, now: datetime
) -> datetime | None:
    """The instant of the next attempt, or None when it would fall after the grace
    period (the send has then failed for good)."""
    at = now + delay_after(attempts)
    return at if at <= due_at + grace else None
