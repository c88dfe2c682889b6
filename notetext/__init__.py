"""The ground floor: facts of text that both `storage` and `bot` need, each in one home,
importing nothing of brainbot's.

- `notetext.dates`: dates in people's words and the dates brainbot keeps
"""

__all__ = ["dates"]
