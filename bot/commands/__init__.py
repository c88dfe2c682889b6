"""Answering without a model: the command router, commands on one note, plain text
filed by keywords, and telling a question or a request from a thought."""
