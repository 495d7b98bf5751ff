"""A real GuardAgent deployment for the tests: a private redis-server and `guardagent up` (every
stage and the HTTP gateway in one process, the built JavaScript of this checkout) on free ports."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any, Union

from paths import REPO_ROOT

CLI = REPO_ROOT / "packages" / "cli" / "bin" / "guardagent.mjs"
START_TIMEOUT = 120.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def redis_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def redis_command(port: int, *args: str) -> bytes:
    """One command over RESP; the raw reply (enough for the counts the tests read)."""
    payload = f"*{len(args)}\r\n".encode() + b"".join(f"${len(a.encode())}\r\n{a}\r\n".encode() for a in args)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(payload)
        chunks = []
        conn.settimeout(5)
        while True:
            chunk = conn.recv(65536)
            chunks.append(chunk)
            data = b"".join(chunks)
            if _complete(data):
                return data


def _complete(data: bytes) -> bool:
    try:
        _parse(data, 0)
        return True
    except IndexError:
        return False


def _parse(data: bytes, at: int) -> int:
    end = data.index(b"\r\n", at)
    kind, head = data[at : at + 1], data[at + 1 : end]
    if kind in (b"+", b"-", b":"):
        return end + 2
    if kind == b"$":
        size = int(head)
        if size < 0:
            return end + 2
        if len(data) < end + 2 + size + 2:
            raise IndexError
        return end + 2 + size + 2
    if kind == b"*":
        at = end + 2
        for _ in range(max(0, int(head))):
            at = _parse(data, at)
        return at
    raise IndexError


def count_keys(port: int, pattern: str) -> int:
    """How many keys match (SCAN through the whole key space)."""
    cursor = "0"
    total = 0
    while True:
        reply = redis_command(port, "SCAN", cursor, "MATCH", pattern, "COUNT", "1000")
        lines = reply.split(b"\r\n")
        cursor = lines[2].decode()
        total += int(lines[3][1:])
        if cursor == "0":
            return total


def policy_from_yaml(path: Path) -> dict[str, Any]:
    """A policy file as the JSON the gateway takes (read with the repository's own yaml package)."""
    script = "import {parse} from 'yaml'; import {readFileSync} from 'node:fs'; process.stdout.write(JSON.stringify(parse(readFileSync(process.argv[1], 'utf8'))))"
    out = subprocess.run(["node", "--input-type=module", "-e", script, str(path)], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    policy: dict[str, Any] = json.loads(out.stdout)
    return policy


class Stack:
    def __init__(self) -> None:
        self.admin_key = "python-sdk-admin-key-0123456789"
        self.prefix = f"pysdk{os.getpid()}"
        self.workdir = Path(tempfile.mkdtemp(prefix="guardagent-pytest-"))
        self.redis: Union[subprocess.Popen[bytes], None] = None
        self.gateway: Union[subprocess.Popen[bytes], None] = None
        self.url = ""
        self.redis_port = 0

    def start(self) -> None:
        if shutil.which("redis-server") is None:
            raise RuntimeError("redis-server is not on PATH: run scripts/ensure-redis.sh")
        if not (REPO_ROOT / "packages" / "cli" / "dist" / "main.js").exists():
            raise RuntimeError("the CLI is not built: run `npm ci` (or `npm run build`) in the repository first")
        self._start_redis()
        self._start_gateway()

    def _start_redis(self) -> None:
        for _ in range(5):
            port = free_port()
            self.redis = subprocess.Popen(
                ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=self.workdir,
            )
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and self.redis.poll() is None:
                if redis_ping(port):
                    self.redis_port = port
                    return
                time.sleep(0.05)
            self._stop(self.redis, 5)
        raise RuntimeError("redis-server did not start on a free port")

    def _start_gateway(self) -> None:
        env = {
            **os.environ,
            "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}",
            "GUARDAGENT_ADMIN_KEY": self.admin_key,
            "GUARDAGENT_PREFIX": self.prefix,
            "GUARDAGENT_SANDBOX_POOL_SIZE": "1",
        }
        for name in ("GUARDAGENT_LLM_BASE_URL", "GUARDAGENT_URL", "GUARDAGENT_API_KEY"):
            env.pop(name, None)
        self.stderr_path = self.workdir / "gateway.stderr"
        with open(self.stderr_path, "wb") as stderr:
            self.gateway = subprocess.Popen(
                ["node", str(CLI), "up", "--gateway-port", "0"],
                cwd=REPO_ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                start_new_session=True,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.gateway.poll() is not None:
                raise RuntimeError(f"guardagent up exited with {self.gateway.returncode}:\n{self.log()}")
            found = re.search(r"gateway on (http://127\.0\.0\.1:\d+)", self.log())
            if found and self._ready(found.group(1)):
                self.url = found.group(1)
                return
            time.sleep(0.1)
        raise RuntimeError(f"the gateway was not ready within {START_TIMEOUT} s:\n{self.log()}")

    def _ready(self, url: str) -> bool:
        try:
            with urllib.request.urlopen(f"{url}/readyz", timeout=2) as answer:
                return bool(answer.status == 200)
        except OSError:
            return False

    def log(self) -> str:
        try:
            return self.stderr_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def count_decisions(self, tenant: str) -> int:
        """Decisions stored for the tenant (each decided check stores one)."""
        return count_keys(self.redis_port, f"{self.prefix}*:{tenant}:decision:*")

    @staticmethod
    def _stop(process: Union[subprocess.Popen[bytes], None], grace: float, group: bool = False) -> None:
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGTERM) if group else process.terminate()
            process.wait(grace)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL) if group else process.kill()
            process.wait(10)

    def stop(self) -> None:
        # The gateway first: it finishes in-flight jobs on SIGTERM, which needs Redis.
        self._stop(self.gateway, 30, group=True)
        self._stop(self.redis, 10)
        shutil.rmtree(self.workdir, ignore_errors=True)
