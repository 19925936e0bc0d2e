"""The README's first command, as a process: ``manage.py runsite`` on the default setup
(SQLite, filesystem broker, nothing outside) serves the site, with debug on or off (then
with its hashed static files), and a plain ``kill`` stops the web server, the worker and
beat with it."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from games.management.commands.runsite import site_url_for

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 90
STOP_SECONDS = 20


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def children_of(pid: int) -> set[int]:
    """Every process started by ``pid``, and theirs (read from /proc)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:  # gone meanwhile
        return b""


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc").exists(), reason="reads the process tree from /proc")
@pytest.mark.parametrize("debug", ["1", "0"])
def test_the_site_command_serves_and_a_kill_stops_web_worker_and_beat(tmp_path, debug):
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        VAR_DIR=str(tmp_path),
        DJANGO_SETTINGS_MODULE="config.settings",
        DJANGO_DEBUG=debug,
        DJANGO_SECRET_KEY="runsite-test-key-long-enough-for-debug-off-0123456789",
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
    )
    site = subprocess.Popen(
        [sys.executable, "manage.py", "runsite", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    started: set[int] = set()
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
                    assert response.status == 200
                    home = response.read().decode()
                    break
            except OSError:
                assert site.poll() is None, "the site command stopped on its own"
                assert time.monotonic() < deadline, "the site never answered"
                time.sleep(0.5)
        stylesheet = re.search(r'href="(/static/css/site[^"]*\.css)"', home)[1]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{stylesheet}", timeout=5) as response:
            assert response.status == 200 and b".meso" in response.read()
        started = children_of(site.pid)
        assert len(started) >= 3, "web, worker and beat"
        # The demo's first emails (sent by the worker) link to the site where it runs, not to :8000.
        deadline = time.monotonic() + START_SECONDS
        while not (mails := [path.read_text() for path in (tmp_path / "mail").glob("*")]):
            assert time.monotonic() < deadline, "the worker sent no email"
            time.sleep(0.5)
        assert f"http://127.0.0.1:{port}/" in mails[0] and ":8000/" not in mails[0]
        if debug == "1":  # once is enough: a process that stops is started again, the site stays up
            beat = next(pid for pid in started if b"beat" in cmdline(pid))
            os.kill(beat, signal.SIGKILL)
            deadline = time.monotonic() + START_SECONDS
            while not [pid for pid in children_of(site.pid) if pid != beat and alive(pid) and b"beat" in cmdline(pid)]:
                assert site.poll() is None, "the site command gave up when beat stopped"
                assert time.monotonic() < deadline, "beat was not started again"
                time.sleep(0.5)
            started = children_of(site.pid)

        site.send_signal(signal.SIGTERM)
        site.wait(timeout=STOP_SECONDS)
        deadline = time.monotonic() + STOP_SECONDS
        while any(alive(pid) for pid in started) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [pid for pid in started if alive(pid)], "a process outlived the site command"
    finally:
        for pid in started | children_of(site.pid) | {site.pid}:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize(
    ("addrport", "url"),
    [
        ("8071", "http://127.0.0.1:8071"),
        ("127.0.0.1:8071", "http://127.0.0.1:8071"),
        ("0.0.0.0:9000", "http://127.0.0.1:9000"),
        ("[::]:8000", "http://127.0.0.1:8000"),
        ("games.local:8080", "http://games.local:8080"),
    ],
)
def test_email_links_follow_the_address_the_site_runs_on(addrport, url):
    assert site_url_for(addrport) == url
