"""One turn with a model: the tool loop, small-model mode, mending what weak models
send, and the one place that decides what the turn did and what the reply says
(the model client itself is bot.llm)."""

from bot.turn.arguments import MISSING, coerce, empty_value
from bot.turn.loop import Agent, tool_schemas
from bot.turn.mode import ModeChoice, ModelMode, probe
from bot.turn.older_turns import Summaries, estimate_tokens
from bot.turn.verdict import Turn, Verdict

__all__ = [
    "MISSING",
    "Agent",
    "ModeChoice",
    "ModelMode",
    "Summaries",
    "Turn",
    "Verdict",
    "coerce",
    "empty_value",
    "estimate_tokens",
    "probe",
    "tool_schemas",
]
