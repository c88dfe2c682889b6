"""Child processes for the crash tests, forked by one server that imported the house
once: a child started anew imports it again (a second of CPU), and these tests start
dozens. Each forked child is a process of its own, as one started anew would be: its
own audit hook, its vault opened anew, really killed (kill -9).

The server (`serve`, the `serve` mode of crash_child and sync_crash_child) reads
requests from stdin, one a line: a JSON list of a child's arguments, then the files its
output and its errors go to. It answers each with the child's exit status on a line (a
negative signal number if killed)."""

from __future__ import annotations

import itertools
import json
import os
import select
import subprocess
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def serve(run: Callable[[list[str]], None]) -> None:
    """Fork a child for each request on stdin that calls `run` with its arguments."""
    for line in sys.stdin:
        *argv, out, err = json.loads(line)
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            for name, fd in ((out, 1), (err, 2)):
                os.dup2(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
            code = 0
            try:
                run(argv)
            except BaseException:
                traceback.print_exc()
                code = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        print(-os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))
        sys.stdout.flush()


class Children:
    """Runs children of `module` (its `serve` mode) from one server; `prefix` starts the
    server (in a namespace of its own, say); their output passes through `folder`."""

    def __init__(self, module: str, folder: Path, prefix: Sequence[str] = ()) -> None:
        self.folder = folder
        self.numbers = itertools.count()
        self.server = subprocess.Popen(
            [*prefix, sys.executable, "-m", module, "serve"],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        """One child's exit code (-9: killed), its output and its errors."""
        number = next(self.numbers)
        out, err = self.folder / f"child-{number}.out", self.folder / f"child-{number}.err"
        assert self.server.stdin is not None and self.server.stdout is not None
        self.server.stdin.write(json.dumps([*args, str(out), str(err)]) + "\n")
        self.server.stdin.flush()
        ready, _, _ = select.select([self.server.stdout], [], [], 300)
        assert ready, f"no answer in 5 minutes to {args}"
        answer = self.server.stdout.readline()
        assert answer, f"the server died: {self.server.wait()}"
        done = subprocess.CompletedProcess(args, int(answer), out.read_text(), err.read_text())
        out.unlink()
        err.unlink()
        return done

    def close(self) -> None:
        """Stop the server (after its last child)."""
        assert self.server.stdin is not None
        self.server.stdin.close()
        assert self.server.wait(timeout=60) == 0
