"""One turn with a model: the tool loop, the LLM client, small-model mode, mending
what weak models send, and the one place that decides what the turn did and what
the reply says."""
