"""Prometheus metrics on brainbot's own registry (served at /metrics).

A registry of our own, not the library's global one, so tests and several runtimes
in one process never see each other's numbers twice, and nothing an imported
library registers leaks into our page. The instrumented modules call the small
functions below (one line each at the place where the thing happens).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from functools import wraps
from typing import ParamSpec, TypeVar

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)

REGISTRY = CollectorRegistry(auto_describe=True)
ProcessCollector(registry=REGISTRY)  # resident memory, CPU seconds, open files

MESSAGES = Counter(
    "brainbot_messages_received",
    "Events received from people (first delivery only), by platform and kind.",
    ["platform", "kind"],
    registry=REGISTRY,
)
CAPTURES = Counter(
    "brainbot_captures", "Thoughts filed into the vault.", ["category"], registry=REGISTRY
)
TOOL_CALLS = Counter(
    "brainbot_tool_calls",
    "Tool calls by tool and outcome (ok, error, approval).",
    ["tool", "outcome"],
    registry=REGISTRY,
)
LLM_LATENCY = Histogram(
    "brainbot_llm_call_seconds",
    "Latency of chat-model calls, failed ones included.",
    buckets=(0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120, 240),
    registry=REGISTRY,
)
LLM_FAILURES = Counter(
    "brainbot_llm_call_failures", "Chat-model calls that failed after retries.", registry=REGISTRY
)
MODEL_REPAIRS = Counter(
    "brainbot_model_repairs",
    "What was mended in the model's answers (see bot.turn.mending), and thoughts the engine "
    "kept in the inbox because the model filed nothing (kind=kept_thought).",
    ["kind"],
    registry=REGISTRY,
)
APPROVALS = Counter(
    "brainbot_approvals",
    "Decided approvals by outcome (approved, rejected, expired, failed).",
    ["outcome"],
    registry=REGISTRY,
)
DIGESTS = Counter(
    "brainbot_digests",
    "Digest deliveries by status (sent, retrying, failed).",
    ["status"],
    registry=REGISTRY,
)
REMINDERS = Counter(
    "brainbot_reminders",
    "Reminder sends by status (sent, retrying, failed).",
    ["status"],
    registry=REGISTRY,
)
BACKUP_PUSHES = Counter(
    "brainbot_backup_pushes",
    "Pushes of the vault to BRAINBOT_GIT_REMOTE by outcome (ok, failed).",
    ["outcome"],
    registry=REGISTRY,
)
ERRORS = Counter(
    "brainbot_errors",
    "Bad notes, files, dates or jobs skipped so that everything else goes on, by where "
    "they were met (reminders, sync, watch, ...); `brainbot doctor` lists them.",
    ["where"],
    registry=REGISTRY,
)
IN_FLIGHT = Gauge("brainbot_events_in_flight", "Events being handled right now.", registry=REGISTRY)
READY = Gauge("brainbot_ready", "1 when /readyz answers 200.", registry=REGISTRY)

_P = ParamSpec("_P")
_T = TypeVar("_T")


def message_received(platform: str, kind: str) -> None:
    MESSAGES.labels(platform, kind).inc()


def tool_called(
    tool: str, outcome: str, *, captures: bool = False, entry_path: str | None = None
) -> None:
    """Count a tool's call by its outcome; one of a tool that `captures` that succeeded
    is also a thought filed, counted by the category folder of its `entry_path`."""
    TOOL_CALLS.labels(tool, outcome).inc()
    if captures and outcome == "ok":
        CAPTURES.labels(entry_path.split("/", 1)[0] if entry_path else "unknown").inc()


def model_repair(kind: str) -> None:
    MODEL_REPAIRS.labels(kind).inc()


def approval_decided(outcome: str) -> None:
    APPROVALS.labels(outcome).inc()


def digest_delivered(status: str) -> None:
    DIGESTS.labels(status).inc()


def reminder_sent(status: str) -> None:
    REMINDERS.labels(status).inc()


def error(where: str) -> None:
    ERRORS.labels(where).inc()


def backup_pushed(ok: bool) -> None:
    BACKUP_PUSHES.labels("ok" if ok else "failed").inc()


def timed_llm_call(call: Callable[_P, Awaitable[_T]]) -> Callable[_P, Awaitable[_T]]:
    """Decorate a model call: its latency goes to the histogram, a raise to the failures."""

    @wraps(call)
    async def timed(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        started = time.perf_counter()
        try:
            return await call(*args, **kwargs)
        except Exception:
            LLM_FAILURES.inc()
            raise
        finally:
            LLM_LATENCY.observe(time.perf_counter() - started)

    return timed


def exposition() -> tuple[bytes, str]:
    """The metrics page and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
