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
    "category": {"type": "string", "description": "people, projects, ideas, admin or inbox"},
    "tags": {"type": "array", "items": {"type": "string"}},
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
                "summary": "Keep a note",
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
            }
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
    },
}
