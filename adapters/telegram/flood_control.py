"""Flood control: on 429 (`RetryAfter`) wait as long as Telegram asks, then retry.

Plugged into PTB as its rate limiter, so it wraps every Bot API call except
getUpdates (whose polling loop already backs off by itself).
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import Callable, Coroutine
from datetime import timedelta
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

log = logging.getLogger(__name__)

# A "typing" indicator that arrives late is worthless; do not queue it behind a wait.
_NOT_RETRIED = frozenset({"sendChatAction"})


def retry_after_seconds(exc: RetryAfter) -> float:
    """The wait Telegram asked for, in seconds, whichever type PTB hands it out as."""
    with warnings.catch_warnings():
        # PTB 22 warns that the int form will become a timedelta; both are handled here.
        warnings.simplefilter("ignore")
        value = exc.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


class RetryAfterLimiter(BaseRateLimiter[None]):
    """Retry a throttled call up to `max_retries` times, waiting `retry_after` each time."""

    def __init__(self, max_retries: int = 3) -> None:
        self.max_retries = max_retries

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to release."""

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: None,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        """Call the Bot API; on RetryAfter sleep and call again."""
        attempt = 0
        while True:
            try:
                return await callback(*args, **kwargs)
            except RetryAfter as exc:
                attempt += 1
                if endpoint in _NOT_RETRIED or attempt > self.max_retries:
                    raise
                wait = retry_after_seconds(exc)
                log.warning("Telegram throttled %s; retrying in %.1f s", endpoint, wait)
                await asyncio.sleep(wait)
