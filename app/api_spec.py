"""The OpenAPI description of the capture API (app.api), served at
`/api/v1/openapi.json` for clients and tools that read one."""

from __future__ import annotations

from typing import Any

from bot.events import MAX_FILES

_ERROR = {
    "description": "refused; `error` says why in words a person can read",
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "properties": {"error": {"type": "string"}},
                "required": ["error"],
            }
        }
    },
}
_ERRORS = ("400", "401", "403", "409", "413", "415", "422", "429", "500")
_CAPTURE_FIELDS: dict[str, Any] = {
    "text": {"type": "string", "description": "the thought, or what a shared page is about"},
    "url": {"type": "string", "description": "a link to keep; its page is read into the note"},
    "category": {
        "type": "string",
        "description": "people, projects, ideas, admin or inbox (an inbox note); left out, "
        "the words decide; a name that is no category is refused (422) with the list",
    },
    "tags": {"type": "array", "items": {"type": "string"}, "description": "tags, without #"},
}

OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {
        "title": "brainbot capture API",
        "version": "1",
        "description": "Keep a thought, a link or a file in your brainbot, and search it.",
    },
    "components": {
        "securitySchemes": {
            "token": {
                "type": "http",
                "scheme": "bearer",
                "description": "a token from `brainbot token PERSON`",
            }
        }
    },
    "security": [{"token": []}],
    "paths": {
        "/api/v1/capture": {
            "post": {
                "summary": "Keep a note: words, a link, files, or a file alone (the note is "
                "titled after it and holds its text once read)",
                "parameters": [
                    {
                        "name": "Idempotency-Key",
                        "in": "header",
                        "required": False,
                        "schema": {"type": "string", "maxLength": 120},
                        "description": "the same key again files nothing new and answers "
                        "with the note the first request filed",
                    }
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {"type": "object", "properties": _CAPTURE_FIELDS}
                        },
                        "text/plain": {"schema": {"type": "string"}},
                        "multipart/form-data": {
                            "schema": {
                                "type": "object",
                                "properties": {
                                    **_CAPTURE_FIELDS,
                                    "tags": {"type": "string"},
                                    "file": {
                                        "type": "array",
                                        "items": {"type": "string", "format": "binary"},
                                        "maxItems": MAX_FILES,
                                        "description": f"at most {MAX_FILES} files, the field "
                                        "repeated; kept with the note in one commit",
                                    },
                                },
                            }
                        },
                    },
                },
                "responses": {
                    "201": {
                        "description": "kept (also for a repeated Idempotency-Key, with the "
                        "header Idempotent-Replayed: true)",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "path": {"type": "string"},
                                        "title": {"type": "string"},
                                        "reply": {"type": "string"},
                                    },
                                    "required": ["path", "title"],
                                }
                            }
                        },
                    },
                    **dict.fromkeys(_ERRORS, _ERROR),
                },
            },
            "get": {
                "summary": "A kept note, and how reading what it shares went",
                "parameters": [
                    {"name": "path", "in": "query", "schema": {"type": "string"}},
                    {
                        "name": "key",
                        "in": "query",
                        "schema": {"type": "string"},
                        "description": "the Idempotency-Key it was sent with, instead of path",
                    },
                ],
                "responses": {
                    "200": {
                        "description": "the note; `reading` is null until a job was kept, "
                        "then its status (waiting, done, failed, skipped) and what it said",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "path": {"type": "string"},
                                        "title": {"type": "string"},
                                        "reading": {
                                            "type": ["object", "null"],
                                            "properties": {
                                                "status": {"type": "string"},
                                                "detail": {"type": "string"},
                                            },
                                        },
                                    },
                                }
                            }
                        },
                    },
                    **dict.fromkeys(("400", "401", "403", "404"), _ERROR),
                },
            },
        },
        "/api/v1/search": {
            "get": {
                "summary": "Search your notes",
                "parameters": [
                    {"name": "q", "in": "query", "required": True, "schema": {"type": "string"}},
                    {
                        "name": "limit",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 1, "maximum": 50},
                    },
                ],
                "responses": {
                    "200": {
                        "description": "the best notes first",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "query": {"type": "string"},
                                        "hits": {
                                            "type": "array",
                                            "items": {
                                                "type": "object",
                                                "properties": {
                                                    "path": {"type": "string"},
                                                    "title": {"type": "string"},
                                                    "category": {"type": "string"},
                                                    "snippet": {"type": "string"},
                                                },
                                            },
                                        },
                                    },
                                }
                            }
                        },
                    },
                    **dict.fromkeys(("400", "401", "403"), _ERROR),
                },
            }
        },
        "/api/v1/sync": {
            "post": {
                "summary": "Sync your vault with its git remote now (a push webhook's target)",
                "description": (
                    "Fetches what devices pushed, merges it (both versions of a note changed "
                    "on the same lines are kept, the remote's as a conflict copy), indexes "
                    "it and pushes the bot's changes. The body is not read."
                ),
                "responses": {
                    "200": {
                        "description": "what the round did",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "outcome": {"type": "string"},
                                        "head": {"type": "string"},
                                        "problem": {"type": "string", "nullable": True},
                                        "conflicts": {
                                            "type": "array",
                                            "items": {
                                                "type": "object",
                                                "properties": {
                                                    "path": {"type": "string"},
                                                    "copy": {"type": "string"},
                                                },
                                            },
                                        },
                                    },
                                }
                            }
                        },
                    },
                    **dict.fromkeys(("401", "403", "409", "502"), _ERROR),
                },
            }
        },
    },
}
