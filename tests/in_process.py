"""A `brainbot` command run in this process, through the same entry point the installed
script calls (`app.cli.main`), as a subprocess would run it: its own environment,
working directory, standard input, output and error, and its exit code.

Starting a process costs ~1.4 CPU-s of imports; a test about what a command prints or
writes needs none of it. Tests about the process itself (signals, a kill, stdio MCP,
the installed script, what a start imports) start a real one (tests.production.process).

What a process would have reset is saved and put back: the environment, the working
directory, `sys.stdin/stdout/stderr`, the logging configuration a command installs,
and (in the main thread) the signal handlers. One command runs at a time.
"""

from __future__ import annotations

import asyncio
import functools
import io
import logging
import os
import signal
import subprocess
import sys
import threading
import traceback
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from app.cli import main

_ONE_AT_A_TIME = threading.Lock()


def brainbot(
    argv: Sequence[str],
    env: Mapping[str, str],
    cwd: Path,
    stdin: bytes = b"",
    *,
    stderr_to_stdout: bool = False,
) -> subprocess.CompletedProcess[str]:
    """`brainbot ARGV` run to its end in this thread, with exactly `env` as its
    environment, in `cwd`, reading `stdin`: its exit code, stdout and stderr as text
    (with `stderr_to_stdout`, both in stdout, as `2>&1` would).

    Call it from a test with no running event loop (a command runs its own); an async
    test awaits `brainbot_in_thread` instead."""
    if _loop_running():
        raise RuntimeError("a command runs its own event loop: await brainbot_in_thread")
    out = _stream()
    err = out if stderr_to_stdout else _stream()
    with _ONE_AT_A_TIME, _as_a_process(env, cwd, stdin, out, err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse's --help and usage errors
            code = _exit_code(exc)
        except Exception:  # what the interpreter would print before exiting with 1
            traceback.print_exc(file=sys.stderr)
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    said = _text(out), "" if stderr_to_stdout else _text(err)
    return subprocess.CompletedProcess(["brainbot", *argv], code, *said)


async def brainbot_in_thread(
    argv: Sequence[str],
    env: Mapping[str, str],
    cwd: Path,
    stdin: bytes = b"",
    *,
    stderr_to_stdout: bool = False,
) -> subprocess.CompletedProcess[str]:
    """`brainbot` from an async test: in a worker thread, so the test's loop (and the
    fake servers on it) keeps running. Not for `chat` or `run`, whose signal handlers
    only the main thread may set."""
    return await asyncio.to_thread(
        functools.partial(brainbot, stderr_to_stdout=stderr_to_stdout), argv, env, cwd, stdin
    )


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _stream() -> io.TextIOWrapper:
    # Not a terminal, as a pipe is not: a command's output is what it writes to a pipe.
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8", "replace")


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


@contextmanager
def _as_a_process(
    env: Mapping[str, str], cwd: Path, stdin: bytes, out: io.TextIOWrapper, err: io.TextIOWrapper
) -> Iterator[None]:
    environ, directory = dict(os.environ), Path.cwd()
    streams = sys.stdin, sys.stdout, sys.stderr
    root = logging.getLogger()
    handlers, levels = list(root.handlers), _logger_levels()
    main_thread = threading.current_thread() is threading.main_thread()
    handling = {s: signal.getsignal(s) for s in signal.valid_signals()} if main_thread else {}
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout, sys.stderr = out, err
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
        os.chdir(directory)
        os.environ.clear()
        os.environ.update(environ)
        for handler in list(root.handlers):
            if handler not in handlers:
                handler.close()
        root.handlers[:] = handlers
        for logger, level in _restored(levels):
            logger.setLevel(level)
        for signum, action in handling.items():
            if action is not None and signal.getsignal(signum) is not action:
                signal.signal(signum, action)


def _logger_levels() -> dict[str, int]:
    loggers = logging.root.manager.loggerDict.items()
    levels = {name: logger.level for name, logger in loggers if isinstance(logger, logging.Logger)}
    return {**levels, "": logging.root.level}


def _restored(before: Mapping[str, int]) -> Iterator[tuple[logging.Logger, int]]:
    """Each logger whose level a command changed, with the level it had (a logger the
    command made: unset)."""
    for name, level in _logger_levels().items():
        if before.get(name, logging.NOTSET) != level:
            yield logging.getLogger(name or None), before.get(name, logging.NOTSET)
