"""One turn with a model: the tool loop, small-model mode, mending what weak models
send, and the one place that decides what the turn did and what the reply says
(the model client itself is bot.llm)."""

from bot.turn.arguments import MISSING, coerce, empty_value
from bot.turn.loop import Agent
from bot.turn.verdict import Turn, Verdict

__all__ = ["MISSING", "Agent", "Turn", "Verdict", "coerce", "empty_value"]
