"""The house rules of the layout (issues: rooms a newcomer can find without a guide; the
house, second and third floors): no import circles, between modules or between the
top-level packages, which depend one way (app → adapters, scheduler → bot → storage,
whose `storage.text` is the ground floor of text), no module past ~400 lines; `bot/` keeps a few
modules at its top and the rest in rooms that depend on each other one way, and a room
is entered by its door only; a module name found in two rooms means one thing in both.
Read from the source with `ast`, so a lazy import or one
only for the type checker counts as much as one at the top."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("app", "bot", "adapters", "storage", "scheduler")
MAX_LINES = 420  # "~400": a module past this is split by responsibility
# What stands at bot/'s top beside its rooms: the engine, and what every room uses.
BOT_TOP = {"__init__", "engine", "events", "llm", "logs", "metrics"}
# Composes the process: it may open any room's modules (and nobody imports it but tests).
ENTRY_POINTS = "app"
# Who may import whom, package by package: each may use those below it.
FLOORS = {"app": 3, "adapters": 2, "scheduler": 2, "bot": 1, "storage": 0}


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Our modules that `name` imports anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parents = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parents, base] if base else parents)
            # `from package import submodule` imports that module, not the package's door.
            names = [f"{base}.{alias.name}" for alias in node.names]
            modules = [name for name in names if name in MODULES]
            targets = modules if len(modules) == len(names) else [*modules, base]
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycle() -> list[str] | None:
    """One import circle, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(name: str, path: list[str]) -> list[str] | None:
        state[name] = 1
        for other in sorted(GRAPH[name]):
            if state.get(other) == 1:
                return [*path[path.index(other) :], other]
            if other not in state and (found := visit(other, [*path, other])):
                return found
        state[name] = 2
        return None

    for name in sorted(GRAPH):
        if name not in state and (found := visit(name, [name])):
            return found
    return None


def test_the_modules_are_found() -> None:
    assert {"bot.engine", "app.cli", "storage.store", "storage.vault.vault"} <= set(MODULES)
    assert "storage.vault.vault" in GRAPH["storage.store"]


def test_no_module_imports_itself_through_others() -> None:
    assert _cycle() is None


def _importing(prefix: str, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{name} -> {other}"
        for name, imported in GRAPH.items()
        if name == prefix or name.startswith(prefix + ".")
        for other in imported
        if any(other == f or other.startswith(f + ".") for f in forbidden)
    )


def test_storage_knows_nothing_of_the_bot_adapters_or_scheduler() -> None:
    assert _importing("storage", ("bot", "adapters", "scheduler")) == []


def test_the_engine_imports_no_adapter_scheduler_or_wiring() -> None:
    assert _importing("bot", ("adapters", "scheduler", "app")) == []


def test_the_packages_depend_one_way() -> None:
    """No package-level circle: a package imports only packages on lower floors."""
    upward = sorted(
        f"{name} -> {other}"
        for name, imported in GRAPH.items()
        for other in imported
        if (a := name.partition(".")[0]) != (b := other.partition(".")[0])
        and FLOORS[b] >= FLOORS[a]
    )
    assert upward == []


def test_adapters_and_scheduler_do_not_reach_into_the_wiring() -> None:
    assert _importing("adapters", ("app", "scheduler", "storage")) == []
    assert _importing("scheduler", ("app", "adapters")) == []


def test_no_module_is_past_about_400_lines() -> None:
    long = {
        name: lines
        for name, path in MODULES.items()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


ROOMS = sorted(
    f"bot.{path.name}" for path in (ROOT / "bot").iterdir() if (path / "__init__.py").is_file()
)


def _room_of(name: str) -> str | None:
    return next((r for r in [*ROOMS, ENTRY_POINTS] if name == r or name.startswith(r + ".")), None)


def test_bot_keeps_a_few_modules_at_its_top_and_the_rest_in_rooms() -> None:
    top = {path.stem for path in (ROOT / "bot").glob("*.py")}
    assert top <= BOT_TOP, f"give {sorted(top - BOT_TOP)} a room"
    rooms = {"bot.buttons", "bot.commands", "bot.config", "bot.people", "bot.turn"}
    assert set(ROOMS) >= rooms


def test_a_room_is_entered_by_its_door_and_the_door_names_what_it_lets_out() -> None:
    """A module that another room (or the scheduler, an adapter) uses is on its room's
    `__all__`: a helper that several rooms share lives in the room it belongs to."""
    through_a_window = sorted(
        f"{name} -> {other}"
        for name, imported in GRAPH.items()
        if not name.startswith(ENTRY_POINTS)
        for other in imported
        if (room := _room_of(other)) in ROOMS and other != room and _room_of(name) != room
    )
    assert through_a_window == []
    for room in ROOMS:
        door = MODULES[room].read_text(encoding="utf-8")
        assert "__all__" in door, f"{room}'s __init__.py names nothing it lets out"


def test_the_rooms_depend_on_each_other_one_way() -> None:
    uses: dict[str, set[str]] = {room: set() for room in ROOMS}
    for name, imported in GRAPH.items():
        room = _room_of(name)
        if room in ROOMS:
            uses[room] |= {r for other in imported if (r := _room_of(other)) in ROOMS}
    circles = [(a, b) for a in ROOMS for b in uses[a] if a != b and a in _reach(uses, b)]
    assert circles == []


def _reach(uses: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for other in uses[todo.pop()] - seen:
            seen.add(other)
            todo.append(other)
    return seen


def test_the_scheduler_imports_the_messages_it_sends_not_button_handlers() -> None:
    assert _importing("scheduler", ("bot.buttons", "bot.commands", "bot.turn")) == []


def test_the_ground_floor_of_text_stands_on_nothing_of_ours() -> None:
    """`storage.text` (wikilinks, URLs, code, names, dates) is below the rest of
    storage: storage and the bot read text through it, and it imports nothing of
    brainbot's but itself."""
    outside = sorted(
        f"{name} -> {other}"
        for name, imported in GRAPH.items()
        if _in(name, "storage.text")
        for other in imported
        if not _in(other, "storage.text")
    )
    assert outside == []
    users = {
        name.partition(".")[0]
        for name, imported in GRAPH.items()
        for other in imported
        if other.startswith("storage.text")
    }
    assert {"storage", "bot"} <= users


def _literals(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module that are not docstrings, with their lines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if id(node) not in docstrings
    ]


def test_the_categories_are_named_by_the_vault_schema_only() -> None:
    """The categories are configurable: code that means the people or the inbox folder
    says so with the vault schema's names (storage.vault.schema), never by spelling it."""
    from storage.vault.schema import DEFAULT_CATEGORIES

    spelled = sorted(
        f"{name}:{line} {value!r}"
        for name, path in MODULES.items()
        if name != "storage.vault.schema" and not name.startswith("storage.text")
        for line, value in _literals(path)
        if value in DEFAULT_CATEGORIES
    )
    assert spelled == []


# Adapter folders that are doors rather than chat platforms: email in (adapters.imap) is
# a transport app.mail drives; nobody chats there, so it has no platform contract.
NOT_PLATFORMS = {"imap"}
CONTRACT = ("name", "title", "settings", "claim", "configured", "describe", "problems")
CONTRACT += ("build", "probe", "menu")


def _platform_folders() -> list[Path]:
    return sorted(
        path.parent
        for path in (ROOT / "adapters").glob("*/__init__.py")
        if path.parent.name not in NOT_PLATFORMS
    )


def test_each_platform_folder_exports_its_contract_and_nothing_else() -> None:
    """A platform is one folder: its door lets out one object, the contract that app
    registers (adapters.platform), and everything else is reached through it."""
    from app.platforms import FALLBACK, PLATFORMS

    registered = {id(p) for p in (*PLATFORMS, FALLBACK)}
    folders = _platform_folders()
    assert {f.name for f in folders} >= {"console", "slack", "telegram"}
    for folder in folders:
        door = ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))
        exported = [
            ast.literal_eval(node.value)
            for node in door.body
            if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
        ]
        assert len(exported) == 1 and len(exported[0]) == 1, f"{folder.name}: one export"
        (name,) = exported[0]
        module = __import__(f"adapters.{folder.name}", fromlist=[name])
        contract = getattr(module, name)
        assert [m for m in CONTRACT if not hasattr(contract, m)] == [], folder.name
        assert contract.name == folder.name
        assert id(contract) in registered, f"{folder.name} is not registered in app.platforms"


def test_app_enters_a_platform_folder_by_its_door() -> None:
    """app knows a platform by its contract, never by the modules behind it."""
    folders = {f"adapters.{f.name}" for f in _platform_folders()}
    behind = sorted(
        f"{name} -> {other}"
        for name, imported in GRAPH.items()
        if name == ENTRY_POINTS or name.startswith(ENTRY_POINTS + ".")
        for other in imported
        if other.rpartition(".")[0] in folders
    )
    assert behind == []


def test_the_database_knows_nothing_of_the_index() -> None:
    """The index is built on the database (its tables, its connection), never the other
    way: what needs both, the schema's migrations, lives above them (storage.migrations)."""
    assert _importing("storage.db", ("storage.index",)) == []


STORAGE_DOORS = ("storage", "storage.db", "storage.index", "storage.vault")
# The ground floor of text is open to the whole house: its rooms are its doors.
TEXT = "storage.text"


def _in(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_each_storage_door_names_what_it_lets_out() -> None:
    for door in STORAGE_DOORS:
        assert "__all__" in MODULES[door].read_text(encoding="utf-8"), f"{door} names nothing"


def test_inside_storage_modules_import_each_other_not_the_doors() -> None:
    """A door imports the modules behind it, so a module behind a door that imported a
    door could run that door before what it lets out: inside storage, modules import
    each other directly."""
    through_a_door = sorted(
        f"{name} -> {other}"
        for name, imported in GRAPH.items()
        if _in(name, "storage") and name not in STORAGE_DOORS
        for other in imported
        if other in STORAGE_DOORS
    )
    assert through_a_door == []


# The packages that use storage from outside: each enters it by a door only.
STORAGE_USERS = ("app", "bot", "scheduler", "adapters")


def test_the_rest_of_the_house_enters_storage_by_its_doors() -> None:
    """Outside storage a module imports `storage`, `storage.db`, `storage.index` or
    `storage.vault` (or the text rules of `storage.text`), never a module behind them:
    what a door does not let out is storage's own business."""
    past_a_door = sorted(
        f"{name} -> {other}"
        for name, imported in GRAPH.items()
        if any(_in(name, package) for package in STORAGE_USERS)
        for other in imported
        if _in(other, "storage") and other not in STORAGE_DOORS and not _in(other, TEXT)
    )
    assert past_a_door == []


# A module name that stands in several rooms, and why the rooms make its meaning clear:
# the same thing seen from each room (stored by storage, sent by the scheduler, pressed
# in bot.buttons, asked for in bot.tools, run from app.commands), or each platform's own.
SAME_NAME_SAME_MEANING = {
    "app": "each platform's adapter, built on its SDK's app (adapters.<platform>)",
    "approvals": "held changes: kept (storage.db), pressed (bot.buttons), decided in a "
    "terminal (app.commands)",
    "compose": "putting the room's product together: the digest (bot.digest), a note with "
    "what was read added under it (bot.enrich)",
    "daily": "the daily note: kept as Obsidian keeps it (storage.vault), the line a capture "
    "adds to it (bot.tools)",
    "digest": "the digest: its buttons (bot.buttons), as a tool (bot.tools), `brainbot "
    "digest` (app.commands)",
    "events": "inbound events: what they are (bot) and the record of each arrival (storage.db)",
    "filing": "a note filed in its category: an inbox note by a press (bot.buttons), a mail "
    "as its sender's note (bot.mail)",
    "message": "the room's thing as a chat message with its buttons: a digest, a reminder",
    "notes": "what a person does to notes: as commands (bot.commands), as tools (bot.tools)",
    "platform": "a platform's contract (adapters) and each platform's object that keeps it",
    "related": "related notes: scored (storage.index), judged and offered at capture (bot.connect)",
    "reminders": "reminders: their buttons (bot.buttons), as a tool (bot.tools), sent (scheduler)",
    "render": "each platform's own replies, rendered (adapters.<platform>)",
    "resurface": "older notes brought back: chosen for the digest (bot.digest), their buttons "
    "(bot.buttons)",
    "save": "each platform's own 'save this message' (adapters.<platform>)",
    "sections": "a note's sections: read (storage.vault), changed by the tools (bot.tools)",
    "settings": "the room says whose: the deployment's (bot.config), a platform's "
    "(adapters.<platform>), a person's (bot.people) and the tool that changes them (bot.tools)",
    "skips": "the ledger of skipped things (storage.db): what storage skipped (app), what a "
    "scheduler poll skipped (scheduler)",
    "sources": "the notes an answer stands on (bot.tools) and their Open buttons (bot.buttons)",
    "translate": "each platform's own payloads, translated into events (adapters.<platform>)",
    "undo": "undoing one change: planned as a revert (storage.vault), the button that runs it "
    "(bot.buttons)",
    "unlinked_mentions": "the weekly review's unlinked mentions: written in the review "
    "(bot.digest), linked by a press (bot.buttons)",
}


def test_a_module_name_in_two_rooms_means_one_thing() -> None:
    """A module's name says what it does: one that repeats across rooms (`mentions` meant
    five different things) is listed in SAME_NAME_SAME_MEANING with why the rooms make it
    clear, or renamed; an entry whose name no longer repeats is taken out."""
    rooms: dict[str, list[str]] = {}
    for name, path in MODULES.items():
        if path.name != "__init__.py":
            rooms.setdefault(path.stem, []).append(name)
    repeated = {stem: sorted(names) for stem, names in rooms.items() if len(names) > 1}
    unexplained = [
        f"{stem}: {', '.join(names)}"
        for stem, names in sorted(repeated.items())
        if stem not in SAME_NAME_SAME_MEANING
    ]
    assert not unexplained, "rename, or say why in SAME_NAME_SAME_MEANING:\n" + "\n".join(
        unexplained
    )
    assert sorted(set(SAME_NAME_SAME_MEANING) - set(repeated)) == []
