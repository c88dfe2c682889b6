"""The digest: what matters today (or this week), composed from the index, with a
model's short opening when there is a model, and shown in chat with buttons."""
