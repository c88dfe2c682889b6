"""`make e2e-model`: a scripted conversation with a real small model.

Starts llama-server with Gemma 3 270M (see e2e.llama), a brainbot runtime on an
embedded Postgres and a temporary vault, and sends the messages below through the
engine as a person would: thoughts, questions, small talk, a correction, a move and a
delete (each card's Approve is pressed), undo, a digest, German and Korean. For each
message it prints the tools that ran, what was written, and the time; then the
totals: the mode brainbot chose (or was told) and why, thoughts kept / thoughts sent,
thoughts in a right folder at the end, doubles, raw errors shown (slips: lost,
doubled, raw errors), and which repairs of the model's answers fired.

    python -m e2e.model_check [--mode auto|tools|routed|none] [--no-tool-template]
                              [--threads N] [--limit N]

`--no-tool-template` starts llama-server without the tool-capable chat template, as
it is often first run: it then drops `tools` without a word.

Exit code 1 when a thought was lost or filed twice, or a raw error reached the person.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bot.events import ButtonPress, Conversation, InboundMessage, Reply, Sender
from e2e.llama import llama_server
from tests.fakes.brain import running_brain

# A platform name is letters only (BRAINBOT_ALLOWED_USERS refused "e2e:*").
CHAT = Conversation("check", "chat-1")
PERSON = Sender("check", "U1", "Ada")

# (kind, text): a "thought" must end up in the vault, once.
SCRIPT: tuple[tuple[str, str], ...] = (
    ("small_talk", "hello"),
    ("thought", "Had a call with Sarah about the Q3 budget, she wants the draft by Friday"),
    ("thought", "idea: a bot that waters plants"),
    ("thought", "Renew my passport before March"),
    ("question", "What did Sarah want?"),
    ("correction", "actually that's a project"),
    ("thought", "Project: launch the new website, next step is writing the copy"),
    ("thought", "Book recommendation from Tom: The Pragmatic Programmer"),
    ("change", "move the plant bot note to projects"),
    ("thought", "Pay the electricity bill by the 30th"),
    ("small_talk", "thanks!"),
    ("thought", "Maybe we could host the team offsite in Lisbon"),
    ("question", "Which notes mention the budget?"),
    ("change", "delete the passport note"),
    ("change", "undo"),
    ("thought", "Sarah's birthday is on June 3"),
    ("question", "what's my digest for today?"),
    ("thought", "Morgen um 10 Uhr Zahnarzttermin, vorher Unterlagen ausdrucken"),
    ("question", "Was habe ich über Sarah notiert?"),
    ("thought", "내일 엄마한테 전화하기"),
    ("question", "사라에 대해 뭐 적었지?"),
    ("thought", "The router at home needs a firmware update"),
    ("small_talk", "ok cool"),
    ("thought", "Tom suggested we try pair programming on Fridays"),
)
# Where each thought belongs at the end of the script (after the correction, the move,
# and the delete undone); a thought may fit more than one.
FOLDERS: dict[str, tuple[str, ...]] = {
    SCRIPT[1][1]: ("projects",),  # "actually that's a project"
    SCRIPT[2][1]: ("projects",),  # "move the plant bot note to projects"
    SCRIPT[3][1]: ("admin",),  # deleted, then undone
    SCRIPT[6][1]: ("projects",),
    SCRIPT[7][1]: ("ideas", "people"),
    SCRIPT[9][1]: ("admin",),
    SCRIPT[11][1]: ("ideas", "projects"),
    SCRIPT[15][1]: ("people",),
    SCRIPT[17][1]: ("admin",),
    SCRIPT[19][1]: ("admin", "people"),
    SCRIPT[21][1]: ("admin",),
    SCRIPT[23][1]: ("ideas", "people", "projects"),
}
RAW_ERROR = re.compile(
    r"Traceback|Exception|\{\s*\"error|LLMUnavailable|status code|Internal Server Error|"
    r"something went wrong",
    re.IGNORECASE,
)


@dataclass
class Row:
    kind: str
    text: str
    seconds: float
    tools: str
    written: str
    reply: str
    kept: bool | None  # for thoughts: a note holds the person's words
    raw_error: bool


def _git(vault: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(vault), *args], capture_output=True, text=True, check=True
    ).stdout


def _written(vault: Path, before: str) -> str:
    out = _git(vault, "diff", "--name-status", before, "HEAD") if before else ""
    return ", ".join(" ".join(line.split("\t")) for line in out.splitlines()) or "-"


def _notes_holding(vault: Path, text: str) -> list[str]:
    wanted = " ".join(text.split()).lower()
    found = []
    for path in vault.rglob("*.md"):
        if ".git" in path.parts:
            continue
        if wanted in " ".join(path.read_text(encoding="utf-8").split()).lower():
            found.append(path.relative_to(vault).as_posix())
    return found


async def _send(brain: object, event: InboundMessage | ButtonPress) -> list[Reply]:
    return list(await brain.engine.handle(event))  # type: ignore[attr-defined]


async def converse(base_url: str, mode: str, limit: int | None) -> int:
    rows: list[Row] = []
    repairs: Counter[str] = Counter()
    routes: Counter[str] = Counter()
    prompt_tokens: list[int] = []
    with tempfile.TemporaryDirectory(prefix="brainbot-e2e-") as tmp:
        async with running_brain(
            Path(tmp),
            None,  # type: ignore[arg-type]  # no URL: the embedded Postgres
            OPENAI_BASE_URL=base_url,
            OPENAI_API_KEY="local",
            BRAINBOT_LLM_MODEL="gemma-3-270m",
            BRAINBOT_LLM_TIMEOUT=300,
            BRAINBOT_LLM_FIRST_TOKEN_TIMEOUT=150,
            BRAINBOT_LLM_RETRIES=1,
            BRAINBOT_LLM_MAX_TOKENS=256,
            BRAINBOT_LLM_MODE=mode,
            BRAINBOT_ALLOWED_USERS="check:*",
        ) as brain:
            await brain.probe_model()
            chosen = brain.model_mode()
            print(f"model mode {chosen}", flush=True)
            vault = brain.settings.vault_dir
            for n, (kind, text) in enumerate(SCRIPT[:limit]):
                head = _git(vault, "rev-parse", "HEAD").strip() if (vault / ".git").exists() else ""
                started = time.perf_counter()
                event = InboundMessage(f"m{n}", CHAT, PERSON, text, datetime.now(UTC))
                replies = await _send(brain, event)
                for reply in list(replies):
                    if any(b.label == "Approve" for b in reply.buttons):
                        button = next(b for b in reply.buttons if b.label == "Approve")
                        press = ButtonPress(
                            f"p{n}", CHAT, PERSON, button.action, button.value, datetime.now(UTC)
                        )
                        replies += await _send(brain, press)
                seconds = time.perf_counter() - started
                turn = brain.engine.last_turn if kind != "correction" else None
                brain.engine.last_turn = None
                if turn is not None:
                    repairs.update(turn.repairs)
                    routes[turn.route or "-"] += 1
                    prompt_tokens.append(turn.prompt_tokens)
                said = " | ".join(" ".join(r.text.split()) for r in replies)
                shown = " ".join(f"{r.text} {r.notice or ''}" for r in replies)
                rows.append(
                    Row(
                        kind,
                        text,
                        seconds,
                        ",".join(turn.tools) if turn else "(router)",
                        _written(vault, head),
                        said[:70],
                        bool(_notes_holding(vault, text)) if kind == "thought" else None,
                        bool(RAW_ERROR.search(shown)),
                    )
                )
                _print_row(n + 1, rows[-1])
            print("\nthe vault at the end:")
            for path in sorted(vault.rglob("*.md")):
                if ".git" not in path.parts:
                    body = " ".join(path.read_text(encoding="utf-8").split("---", 2)[-1].split())
                    print(f"  {path.relative_to(vault).as_posix()}: {body[:60]}")
            thoughts = [r for r in rows if r.kind == "thought"]
            doubles = sum(1 for r in thoughts if len(_notes_holding(vault, r.text)) > 1)
            right = sum(1 for r in thoughts if _in_right_folder(vault, r.text))
            counters = _counters()
    kept = sum(1 for r in thoughts if r.kept)
    raw = sum(1 for r in rows if r.raw_error)
    times = sorted(r.seconds for r in rows)
    print()
    print(f"model mode: {chosen}")
    print(f"messages: {len(rows)}; median {times[len(times) // 2]:.1f} s, max {times[-1]:.1f} s")
    if prompt_tokens:
        ordered = sorted(prompt_tokens)
        print(f"prompt tokens per message (model turns): median {ordered[len(ordered) // 2]}")
    print(f"thoughts kept / thoughts sent: {kept} / {len(thoughts)}")
    print(f"folder right: {right} / {len(thoughts)}")
    print(f"doubles: {doubles}")
    print(f"raw errors shown: {raw}")
    print(f"slips (lost + doubles + raw errors): {len(thoughts) - kept + doubles + raw}")
    print(f"routes: {dict(routes)}")
    print(f"repairs: {dict(repairs.most_common())}")
    print(f"engine: {counters}")
    lost = [r.text for r in thoughts if not r.kept]
    for text in lost:
        print(f"LOST: {text}")
    return 0 if kept == len(thoughts) and not doubles and not raw else 1


def _in_right_folder(vault: Path, text: str) -> bool:
    """Whether a note holding the thought lies in a folder it belongs in."""
    wanted = FOLDERS.get(text, ())
    return any(path.split("/", 1)[0] in wanted for path in _notes_holding(vault, text))


def _counters() -> dict[str, float]:
    from bot.metrics import MODEL_REPAIRS

    return {
        sample.labels["kind"]: sample.value
        for metric in MODEL_REPAIRS.collect()
        for sample in metric.samples
        if sample.name.endswith("_total")
        and sample.labels["kind"] in ("kept_thought", "offered_save")
    }


def _print_row(n: int, row: Row) -> None:
    kept = "" if row.kept is None else ("kept" if row.kept else "LOST")
    print(
        f"{n:>2} {row.kind:<10} {row.seconds:6.1f}s {kept:<4} {'ERR' if row.raw_error else '':<3} "
        f"{row.text[:48]!r}\n     tools: {row.tools or '-'}\n     wrote: {row.written}\n"
        f"     said: {row.reply}",
        flush=True,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m e2e.model_check")
    parser.add_argument("--mode", choices=("auto", "tools", "routed", "none"), default="auto")
    parser.add_argument("--no-tool-template", action="store_true")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args(argv)
    with llama_server(threads=args.threads, tool_template=not args.no_tool_template) as url:
        return asyncio.run(converse(url, args.mode, args.limit))


if __name__ == "__main__":
    sys.exit(main())
