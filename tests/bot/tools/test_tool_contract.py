"""Pins every tool's name and JSON schema: a rename or a schema change shows here first.
After an intended change, regenerate with `python -m tests.bot.test_tool_contract`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.tools import REGISTRY
from storage.vault.schema import DEFAULT_CATEGORIES

PINNED = Path(__file__).with_name("tool_schemas.json")


def current() -> dict[str, Any]:
    return {
        name: {"needs_approval": spec.needs_approval, "schema": spec.schema(DEFAULT_CATEGORIES)}
        for name, spec in sorted(REGISTRY.items())
    }


def test_tool_names_and_schemas_are_pinned() -> None:
    assert current() == json.loads(PINNED.read_text())


def test_every_schema_is_strict() -> None:
    def check(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object":
                assert node["additionalProperties"] is False
                assert sorted(node["required"]) == sorted(node["properties"])
            for value in node.values():
                check(value)
        elif isinstance(node, list):
            for value in node:
                check(value)

    for spec in REGISTRY.values():
        schema = spec.schema(DEFAULT_CATEGORIES)
        assert schema["function"]["strict"] is True
        assert schema["function"]["description"]
        check(schema["function"]["parameters"])


if __name__ == "__main__":
    PINNED.write_text(json.dumps(current(), indent=2) + "\n")
