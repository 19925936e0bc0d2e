"""Many players at once, against the site run as the README's "Running on several machines" runs it.

    DATABASE_URL=postgres://… REDIS_URL=redis://…/N python bench/load.py [--players K] [--matches M] [--seconds S]
        [--old PATH] [--json FILE]

It makes a throwaway PostgreSQL database (as bench/site.py does), starts gunicorn (sync
workers), a Celery worker and beat on it, with DEBUG off, makes K players and M matches (a
mix of the four games, some with an AI seat) and lets the players play over HTTP for S
seconds, each from threads of this process, as browsers would: a real sign-in (the form, its
CSRF token), the match pages, the HTMX move posts and every open page's poll every 3 s. Some
moves go out as a burst, released together: the same move twice (a double click), another
move against the same version (a second tab) and, from every other player of the match, a
move against the version their page last showed (stale, or not their turn).

It prints numbers only and asserts nothing: moves a second, latency of move posts and polls,
answers by status code, deadlocks (pg_stat_database), lock and statement timeouts (in the
processes' logs; with ``--pg-log FILE`` also the server's lines of this run's connections),
the connections used against max_connections, the Celery queue and the AI's answer time
through the worker. Then it checks every match: its stored state equals the replay of its
move records, its plies are 0 .. version-1, and every move a player was answered 200 for
is the record at that ply. Everything started is stopped and the database dropped.

With ``--old PATH`` (a checkout of an older commit) the same run is made twice, as
bench/site.py --old does: on the site at PATH (its processes started there), then on this
checkout; then the key figures of both side by side. ``--json FILE`` writes those figures.

REDIS_URL must name a Redis database no other worker reads: the tasks go to the default queue.
Players send their own X-Forwarded-For (one proxy trusted), as behind a proxy, so that
allauth's 30 sign-ins a minute per address are counted per player.
"""

# Django must be set up before the project's modules can be imported.
# ruff: noqa: E402

from __future__ import annotations

import argparse
import gzip
import html
import os
import random
import re
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import types
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from http.client import HTTPConnection
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import quote, urlencode

BENCHES = Path(__file__).resolve().parent
if "bench" not in sys.modules:  # run as a script: the measuring code stays this checkout's, whichever site
    sys.modules["bench"] = types.ModuleType("bench")
    sys.modules["bench"].__path__ = [str(BENCHES)]

# Puts the site measured (this checkout's, or --old's) first on the path and sets Django up.
from bench.site import ROOT, Figures, old_and_new, table, throwaway_database, write_figures

# isort: split
import redis
from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.db import connection, connections
from django.test.utils import override_settings
from django.utils import timezone

from accounts.models import User
from games import services
from games.models import Match, MoveRecord, Seat, Status
from games.replay import replay_state
from games.services import SeatSpec

PASSWORD = "load-bench-password-1"
# (game, options, human seats, AI levels): the matches cycle through these.
MIX = [
    ("mancala", {"variant": "egyptian"}, 2, []),
    ("mancala", {"variant": "kalah"}, 1, [2]),
    ("mecca", {}, 3, []),
    ("jeexa", {}, 2, [2]),
    ("mesopotamia", {}, 2, [1]),
    ("mancala", {"variant": "ethiopian"}, 2, []),
]
TOKEN = re.compile(r"/poll/\?token=([^\"&]+)\"")
MOVE_BUTTON = re.compile(r"<button[^>]*name=\"move\" value=\"([^\"]+)\"[^>]*>")
UNMARKED = 'tabindex="-1"'  # a Mecca square that only answers why not: players click the marked ones
MOVE_VALS = re.compile(r"hx-vals='\{&quot;move&quot;: &quot;(.*?)&quot;|hx-vals='\{\"move\": \"([^\"]+)\"")
VERSION = re.compile(r"name=\"version\" value=\"(\d+)\"|\"version\": \"(\d+)\"")
REFUSAL = re.compile(r"<p class=\"error\" role=\"alert\">(.*?)</p>", re.DOTALL)
CSRF_HEADER = re.compile(r"\"x-csrftoken\": \"([^\"]+)\"")
CSRF_FIELD = re.compile(r"name=\"csrfmiddlewaretoken\" value=\"([^\"]+)\"")
LOG_PROBLEMS = ("Traceback", "deadlock detected", "lock timeout", "statement timeout", "ERROR")


# --- the site's processes -------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def database_url() -> str:
    db = connection.settings_dict
    password = f":{quote(db['PASSWORD'], safe='')}" if db["PASSWORD"] else ""
    host = f"{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
    return f"postgres://{quote(db['USER'], safe='')}{password}@{host}/{db['NAME']}"


class Site:
    """gunicorn, a Celery worker and beat on the throwaway database, each logging to a file."""

    def __init__(self, var: Path, port: int, web_workers: int, threads: int, concurrency: int):
        self.var, self.port = var, port
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
            "DJANGO_SECURE_COOKIES": "0",
            "DJANGO_TRUSTED_PROXY_COUNT": "1",
            "VAR_DIR": str(var),
            "SITE_URL": f"http://127.0.0.1:{port}",
            "LOG_LEVEL": "WARNING",
        }
        python = sys.executable
        self.commands = {
            "web": [
                python,
                "-m",
                "gunicorn",
                "config.wsgi",
                "-b",
                f"127.0.0.1:{port}",
                "-w",
                str(web_workers),
                "--threads",
                str(threads),
            ],
            "worker": [
                python,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--concurrency",
                str(concurrency),
                "--loglevel",
                "WARNING",
                "--without-gossip",
                "--without-mingle",
            ],
            "beat": [
                python,
                "-m",
                "celery",
                "-A",
                "config",
                "beat",
                "--loglevel",
                "WARNING",
                "-s",
                str(var / "celerybeat-schedule"),
            ],
        }
        self.processes: dict[str, subprocess.Popen] = {}

    def log(self, name: str) -> Path:
        return self.var / f"{name}.log"

    def start(self) -> None:
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=ROOT, env=self.env, check=True
        )
        for name, command in self.commands.items():
            with self.log(name).open("w") as out:
                self.processes[name] = subprocess.Popen(
                    command, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT
                )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if Browser(self.port, "127.0.0.1").get("/accounts/login/")[0] == 200:
                    return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"gunicorn did not answer within 60 s; see {self.log('web')}")

    def stop(self, name: str) -> None:
        process = self.processes.pop(name, None)
        if process is None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def stop_all(self) -> None:
        for name in list(self.processes):
            self.stop(name)

    def memory_mb(self) -> dict[str, float]:
        """Resident memory of each process with its children (gunicorn's and Celery's workers)."""
        sizes = {}
        for name, process in self.processes.items():
            listed = subprocess.run(
                ["ps", "-o", "rss=", "-p", str(process.pid), "--ppid", str(process.pid)], capture_output=True, text=True
            ).stdout.split()
            sizes[name] = sum(map(int, listed)) / 1024
        return sizes

    def pids(self) -> dict[str, set[int]]:
        """Each process's id with its children's (gunicorn's and Celery's workers)."""
        found = {}
        for name, process in self.processes.items():
            children = subprocess.run(["ps", "-o", "pid=", "--ppid", str(process.pid)], capture_output=True, text=True)
            found[name] = {process.pid, *map(int, children.stdout.split())}
        return found

    def problems(self) -> dict[str, list[str]]:
        """The lines of each log that speak of an error."""
        return {
            name: [
                line.rstrip()
                for line in self.log(name).read_text(errors="replace").splitlines()
                if any(word in line for word in LOG_PROBLEMS)
            ]
            for name in self.commands
        }


# --- a browser ------------------------------------------------------------------------------


class Browser:
    """Cookies and one address per player; each request on a connection of its own."""

    def __init__(self, port: int, address: str):
        self.port, self.address = port, address
        self.cookies: dict[str, str] = {}
        self.csrf = ""

    def request(
        self, method: str, path: str, data: dict | None = None, htmx: bool = False, extra: dict | None = None
    ) -> tuple[int, str, float]:
        headers = {
            **(extra or {}),
            "X-Forwarded-For": self.address,
            "Accept-Encoding": "gzip",
            "Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items()),
        }
        body = None
        if data is not None:
            body = urlencode(data)
            headers |= {
                "Content-Type": "application/x-www-form-urlencoded",
                "Origin": f"http://127.0.0.1:{self.port}",
                "Referer": f"http://127.0.0.1:{self.port}{path}",
            }
        if htmx:
            headers |= {"HX-Request": "true", "X-CSRFToken": self.csrf}
        started = time.perf_counter()
        connection_ = HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            connection_.request(method, path, body=body, headers=headers)
            response = connection_.getresponse()
            raw = response.read()
        finally:
            connection_.close()
        elapsed = time.perf_counter() - started
        for header in response.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                self.cookies[name] = morsel.value
        if response.headers.get("Content-Encoding") == "gzip":
            raw = gzip.decompress(raw)
        return response.status, raw.decode(errors="replace"), elapsed

    def get(self, path: str, htmx: bool = False) -> tuple[int, str, float]:
        return self.request("GET", path, htmx=htmx)

    def sign_in(self, username: str) -> tuple[int, float]:
        _, page, _ = self.get("/accounts/login/")
        token = CSRF_FIELD.search(page).group(1)
        status, _, elapsed = self.request(
            "POST", "/accounts/login/", {"login": username, "password": PASSWORD, "csrfmiddlewaretoken": token}
        )
        return status, elapsed


# --- what the players measure -------------------------------------------------------------


@dataclass
class Stats:
    times: dict[str, list[float]] = field(default_factory=dict)
    statuses: Counter = field(default_factory=Counter)
    accepted: list[tuple[int, int, str, int]] = field(default_factory=list)  # match, version, move, user id
    refusals: Counter = field(default_factory=Counter)  # (status, the message the player reads) -> count
    turns_without_moves: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, status: int, elapsed: float) -> None:
        with self.lock:
            self.times.setdefault(kind, []).append(elapsed)
            self.statuses[kind, status] += 1


@dataclass
class Page:
    """What one open match page of a player shows: its poll token, the version its form carries, its moves."""

    match_id: int
    token: str = ""
    version: int = 0
    moves: list[str] = field(default_factory=list)
    live: bool = True
    next_poll: float = 0.0
    move_at: float | None = None

    def read(self, text: str, stats: Stats) -> None:
        found = TOKEN.search(text)
        self.live = found is not None  # a finished match's page stops polling
        if found:
            self.token = html.unescape(found.group(1))
            self.version = int(self.token.split("-")[0])
        self.moves = sorted(
            {html.unescape(a or b) for a, b in MOVE_VALS.findall(text)}
            | {html.unescape(m[1]) for m in MOVE_BUTTON.finditer(text) if UNMARKED not in m[0]}
        )
        versions = {int(a or b) for a, b in VERSION.findall(text)}
        if versions and versions != {self.version}:
            self.moves = []  # a form older than the token: never seen, but then no move from it
        if not self.moves and "<strong>Your turn.</strong>" in text:
            with stats.lock:
                stats.turns_without_moves += 1


class Player(threading.Thread):
    def __init__(self, user: User, browser: Browser, stats: Stats, args: argparse.Namespace):
        super().__init__(daemon=True)
        self.user, self.browser, self.stats, self.args = user, browser, stats, args
        self.until = 0.0  # set when play starts
        self.pages: dict[int, Page] = {}
        self.others: dict[int, list[Player]] = {}  # match id -> the other human players of that match
        self.rng = random.Random(user.pk)

    def open(self, match_id: int) -> None:
        status, text, elapsed = self.browser.get(f"/matches/{match_id}/")
        self.stats.add("page", status, elapsed)
        self.browser.csrf = CSRF_HEADER.search(text).group(1)
        page = self.pages[match_id] = Page(match_id, next_poll=time.monotonic() + self.rng.uniform(0, 3))
        page.read(text, self.stats)

    def run(self) -> None:
        while (now := time.monotonic()) < self.until:
            for page in self.pages.values():
                if page.live and page.moves and page.move_at is None:
                    page.move_at = now + self.rng.uniform(0, 2 * self.args.think)
                if page.move_at is not None and page.move_at <= now:
                    self.move(page)
                elif page.live and page.next_poll <= now:
                    self.poll(page)
            waits = [p.move_at for p in self.pages.values() if p.move_at is not None]
            waits += [p.next_poll for p in self.pages.values() if p.live]
            if not waits:
                return
            time.sleep(max(0.0, min(min(waits), self.until) - time.monotonic()))

    def poll(self, page: Page) -> None:
        page.next_poll = time.monotonic() + self.args.poll
        status, text, elapsed = self.browser.get(f"/matches/{page.match_id}/poll/?token={quote(page.token)}", htmx=True)
        self.stats.add("poll", status, elapsed)
        if status == 200:
            page.read(text, self.stats)

    def post(self, browser: Browser, page: Page, move: str, version: int, user_id: int) -> tuple[int, str]:
        # As site.js: the match's revision the page shows (its token's last part), so the answer keeps its messages.
        shows = {"X-Live-Revision": page.token.rsplit("-", 1)[-1]} if page.token else {}
        status, text, elapsed = browser.request(
            "POST", f"/matches/{page.match_id}/move/", {"move": move, "version": version}, htmx=True, extra=shows
        )
        self.stats.add("move", status, elapsed)
        with self.stats.lock:
            if status == 200:
                self.stats.accepted.append((page.match_id, version, move, user_id))
            elif refusal := REFUSAL.search(text):
                self.stats.refusals[status, html.unescape(refusal.group(1).strip())] += 1
        return status, text

    def move(self, page: Page) -> None:
        page.move_at = None
        move = self.rng.choice(page.moves)
        if self.rng.random() >= self.args.burst:
            status, text = self.post(self.browser, page, move, page.version, self.user.pk)
        else:
            status, text = self.burst(page, move)
        if TOKEN.search(text) or status == 200:
            page.read(text, self.stats)
        else:
            page.moves, page.next_poll = [], time.monotonic()

    def burst(self, page: Page, move: str) -> tuple[int, str]:
        """The move, released together with a double click, a second tab's other move and
        every other player's move from the version their own page shows."""
        posts = [(self.browser, page.version, move, self.user.pk), (self.browser, page.version, move, self.user.pk)]
        if others := [m for m in page.moves if m != move]:
            posts.append((self.browser, page.version, self.rng.choice(others), self.user.pk))
        for other in self.others.get(page.match_id, []):
            posts.append(
                (other.browser, other.pages[page.match_id].version, self.rng.choice(page.moves), other.user.pk)
            )
        answers: list[tuple[int, str]] = [(0, "")] * len(posts)
        barrier = threading.Barrier(len(posts))

        def send(index: int) -> None:
            browser, version, notation, user_id = posts[index]
            barrier.wait()
            answers[index] = self.post(browser, page, notation, version, user_id)

        threads = [threading.Thread(target=send, args=(index,)) for index in range(len(posts))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        with self.stats.lock:
            self.stats.statuses["burst", len(posts)] += 1
        return answers[0]


# --- what the database and Redis show while they play ---------------------------------------


class Sampler(threading.Thread):
    """Twice a second: this database's connections (and how many wait on a lock), their
    server process ids, and the length of the Celery queue; every 10 s the processes' memory."""

    def __init__(self, queue: redis.Redis, own_pids: set[int], site: Site):
        super().__init__(daemon=True)
        self.queue, self.own_pids, self.site = queue, own_pids, site
        self.stop = threading.Event()
        self.memory: list[dict[str, float]] = [site.memory_mb()]
        self.connections: list[int] = []
        self.waiting: list[int] = []
        self.queued: list[int] = []
        self.pids: set[int] = set()

    def run(self) -> None:
        db = connections["default"]
        with db.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            self.own_pids.add(cursor.fetchone()[0])
        while not self.stop.wait(0.5):
            with db.cursor() as cursor:
                cursor.execute("SELECT pid, wait_event_type FROM pg_stat_activity WHERE datname = current_database()")
                rows = [row for row in cursor.fetchall() if row[0] not in self.own_pids]
            self.connections.append(len(rows))
            self.waiting.append(sum(1 for _, wait in rows if wait == "Lock"))
            self.pids |= {pid for pid, _ in rows}
            self.queued.append(self.queue.llen("celery"))
            if len(self.queued) % 20 == 0:
                self.memory.append(self.site.memory_mb())
        db.close()


def cpu_seconds(pids: set[int]) -> dict[int, float]:
    """Each live process's CPU time so far, user and system (/proc/<pid>/stat)."""
    ticks = os.sysconf("SC_CLK_TCK")
    times = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone
            continue
        times[pid] = (int(fields[11]) + int(fields[12])) / ticks  # utime and stime, the 14th and 15th fields
    return times


class CpuClock:
    """The CPU time the site's processes, PostgreSQL's and the players' (this process) spend during play.
    A process that ends during play loses its share (the processes here live through it)."""

    def __init__(self, site: Site):
        self.site = site
        self.started = self._now()

    def _now(self) -> dict[str, dict[int, float]]:
        groups = dict(self.site.pids())
        servers = subprocess.run(["ps", "-C", "postgres", "-o", "pid="], capture_output=True, text=True)
        groups["PostgreSQL"] = set(map(int, servers.stdout.split()))
        times = {name: cpu_seconds(pids) for name, pids in groups.items()}
        mine = os.times()
        times["players (this process)"] = {os.getpid(): mine.user + mine.system}
        return times

    def spent(self) -> dict[str, float]:
        ended = self._now()
        return {
            name: sum(seconds - self.started.get(name, {}).get(pid, 0.0) for pid, seconds in times.items())
            for name, times in ended.items()
        }


def deadlocks() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")
        return cursor.fetchone()[0]


def server_log_lines(path: Path, start: int, pids: set[int]) -> list[str]:
    """The server log's lines written since ``start`` by this run's connections."""
    with path.open("rb") as log:
        log.seek(start)
        text = log.read().decode(errors="replace")
    return [line for line in text.splitlines() if any(f"[{pid}]" in line for pid in pids)]


# --- set-up: players and matches ------------------------------------------------------------


def make_players(count: int) -> list[User]:
    password = make_password(PASSWORD)  # hashed once: every player has the same password
    users = []
    for number in range(count):
        user = User.objects.create(
            username=f"player{number}",
            email=f"player{number}@example.com",
            password=password,
            display_name=f"Player {number}",
        )
        EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
        users.append(user)
    return users


@override_settings(INVITATIONS_PER_DAY=sys.maxsize, AI_ONLY_MATCHES_PER_PLAYER=sys.maxsize)  # many matches, few players
def make_matches(count: int, users: list[User]) -> list[tuple[Match, list[User]]]:
    """Matches of the mix, their human seats given to the players in turn, never one player twice."""
    matches, turn = [], 0
    for number in range(count):
        slug, options, humans, ai_levels = MIX[number % len(MIX)]
        players = [users[(turn + offset) % len(users)] for offset in range(humans)]
        turn += humans
        seats = [
            SeatSpec("creator"),
            *[SeatSpec("user", username=u.username) for u in players[1:]],
            *[SeatSpec("ai", ai_level=level) for level in ai_levels],
        ]
        match = services.match_create(creator=players[0], game_slug=slug, options=options, seats=seats)
        for user in players[1:]:
            services.match_accept(match_id=match.pk, user=user)
        matches.append((match, players))
    return matches


# --- the report -----------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def latency_row(kind: str, times: list[float]) -> list[str]:
    if not times:
        return [kind, "0", "-", "-", "-", "-"]
    ms = [1000 * t for t in times]
    return [
        kind,
        str(len(ms)),
        f"{statistics.median(ms):.0f}",
        f"{percentile(ms, 0.95):.0f}",
        f"{max(ms):.0f}",
        f"{statistics.mean(ms):.0f}",
    ]


def ai_answer_times() -> list[float]:
    """Seconds from each move to the AI move that followed it (through the queue and the worker)."""
    seconds, previous = [], {}
    for record in MoveRecord.objects.order_by("match_id", "ply"):
        before = previous.get(record.match_id)
        if record.by_ai and before is not None:
            seconds.append((record.created_at - before.created_at).total_seconds())
        previous[record.match_id] = record
    return seconds


def check_matches(stats: Stats) -> list[str]:
    """Every match's state is the replay of its records, its plies are 0 .. version-1, and
    each move answered 200 is the record at its ply. Returns what is wrong."""
    wrong = []
    for match in Match.objects.prefetch_related("seats"):
        records = list(match.moves.order_by("ply"))
        plies = [record.ply for record in records]
        if plies != list(range(match.version)):
            wrong.append(f"match {match.pk}: version {match.version}, plies {plies[:5]}…{plies[-5:]}")
        if match.game_obj.dump(replay_state(match, records)) != match.state:
            wrong.append(f"match {match.pk}: the stored state is not the replay of its {len(records)} moves")
    seats = {(seat.match_id, seat.user_id): seat.number for seat in Seat.objects.filter(user__isnull=False)}
    records = {(r.match_id, r.ply): r for r in MoveRecord.objects.select_related("match")}
    for match_id, version, move, user_id in stats.accepted:
        record = records.get((match_id, version))
        if (
            record is None
            or record.seat != seats[match_id, user_id]
            or record.notation != record.match.game_obj.normalize(move)
        ):
            wrong.append(f"match {match_id}: {move!r} at version {version} was answered 200 but is not its record")
    return wrong


@dataclass
class AfterPlay:
    """What is read once the players stopped."""

    window: tuple[datetime, datetime]  # when play started and ended
    deadlocks: int  # pg_stat_database's count, during the run
    problems: dict[str, list[str]]  # process -> its log's error lines
    server_lines: list[str] | None  # the PostgreSQL log's lines of this run's connections (with --pg-log)
    leftover: int  # tasks still queued when the worker stopped
    cpu: dict[str, float]  # CPU seconds spent during play, by process (CpuClock)


def latency_figures(kind: str, times: list[float]) -> Figures:
    ms = [1000 * t for t in times]
    return {
        f"{kind} p50 ms": statistics.median(ms) if ms else None,
        f"{kind} p95 ms": percentile(ms, 0.95) if ms else None,
        f"{kind} max ms": max(ms, default=None),
    }


def report(stats: Stats, sampler: Sampler, after: AfterPlay) -> Figures:
    """Prints what the run measured; returns its key figures."""
    window = after.window
    played = (window[1] - window[0]).total_seconds()
    print(
        table(
            ["request", "n", "p50 ms", "p95 ms", "max ms", "mean ms"],
            [latency_row(kind, stats.times.get(kind, [])) for kind in ("sign-in", "page", "move", "poll")],
        )
    )
    print()
    by_status = Counter()
    for (kind, status), count in stats.statuses.items():
        if kind != "burst":
            by_status[kind, status] += count
    print(
        "Answers by status: "
        + ", ".join(f"{kind} {status}: {count}" for (kind, status), count in sorted(by_status.items()))
    )
    print(
        f"  bursts: {sum(c for (k, _), c in stats.statuses.items() if k == 'burst')}; moves refused: "
        + "; ".join(f"{status} {message!r} {count}" for (status, message), count in stats.refusals.most_common())
    )
    server_errors = sum(count for (_, status), count in by_status.items() if status >= 500)
    during = MoveRecord.objects.filter(created_at__range=window)
    human, ai = during.filter(by_ai=False).count(), during.filter(by_ai=True).count()
    print(
        f"Moves stored: {human} by players, {ai} by the AI, in {played:.0f} s: {(human + ai) / played:.1f} moves/s "
        f"({human / played:.1f} posted by players); 5xx answers: {server_errors}; "
        f"turns shown without a move to click: {stats.turns_without_moves}"
    )
    figures: Figures = {
        "moves stored a second": (human + ai) / played,
        "  of them posted by players": human / played,
        "moves answered 200": len(stats.accepted),
        "moves refused": sum(stats.refusals.values()),
        "5xx answers": server_errors,
        **latency_figures("move post", stats.times.get("move", [])),
        **latency_figures("poll", stats.times.get("poll", [])),
        **latency_figures("page", stats.times.get("page", [])),
    }
    server_cpu = sum(seconds for name, seconds in after.cpu.items() if name != "players (this process)")
    moves = human + ai
    print(
        f"CPU during the {played:.0f} s of play: "
        + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in after.cpu.items())
        + (f"; the server's (all but the players') per move stored {1000 * server_cpu / moves:.0f} ms" if moves else "")
    )
    figures |= {
        "server CPU ms per move stored": 1000 * server_cpu / moves if moves else None,
        **{f"CPU s, {name}": seconds for name, seconds in after.cpu.items()},
    }
    ai_times = ai_answer_times()
    figures |= latency_figures("AI answer", ai_times)
    if ai_times:
        ms = [1000 * t for t in ai_times]
        print(
            f"AI answer (the move before it -> the AI's move stored, through Redis and the worker): "
            f"n {len(ms)}, p50 {statistics.median(ms):.0f} ms, p95 {percentile(ms, 0.95):.0f} ms, "
            f"max {max(ms):.0f} ms"
        )
    with connection.cursor() as cursor:
        cursor.execute("SHOW max_connections")
        max_connections = int(cursor.fetchone()[0])
    print(
        f"PostgreSQL: connections of this database at most {max(sampler.connections, default=0)} "
        f"(at the end {sampler.connections[-1] if sampler.connections else 0}; {len(sampler.pids)} server "
        f"processes in all) of max_connections {max_connections}; waiting on a lock at once at most "
        f"{max(sampler.waiting, default=0)}; deadlocks {after.deadlocks}"
    )
    print(
        "Memory (with its children), every 10 s of play: "
        + "; ".join(
            # A process stopped before the last sample (beat, once play ends) has no size there.
            f"{name} " + " ".join(f"{sizes[name]:.0f}" if name in sizes else "-" for sizes in sampler.memory) + " MB"
            for name in sampler.memory[0]
        )
    )
    print(f"Celery queue: at most {max(sampler.queued, default=0)} tasks waiting; {after.leftover} left when stopped")
    figures |= {
        "connections at most": max(sampler.connections, default=0),
        "waiting on a lock at most": max(sampler.waiting, default=0),
        "deadlocks": after.deadlocks,
        "error lines in the logs": sum(len(lines) for lines in after.problems.values()),
        "Celery queue at most": max(sampler.queued, default=0),
    }
    for name, lines in after.problems.items():
        timeouts = sum(1 for line in lines if "timeout" in line)
        print(
            f"{name} log: {len(lines)} error lines ({timeouts} of lock or statement timeouts)"
            + "".join(f"\n    {line[:200]}" for line in lines[:5])
        )
    if after.server_lines is not None:
        print(
            f"Server log, this run's connections: {len(after.server_lines)} lines"
            + "".join(f"\n    {line[:200]}" for line in after.server_lines[:10])
        )
    wrong = check_matches(stats)
    finished = Match.objects.filter(status=Status.FINISHED).count()
    print(
        f"Check: {Match.objects.count()} matches ({finished} finished), {len(stats.accepted)} moves answered 200: "
        + (
            "every state is the replay of its moves, no ply missing or twice, every accepted move stored"
            if not wrong
            else f"{len(wrong)} PROBLEMS" + "".join(f"\n    {line}" for line in wrong[:20])
        )
    )
    return figures | {"matches finished": finished, "check: problems": len(wrong)}


# --- the run ---------------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--players", type=int, default=12, help="players (default 12; at least 3)")
    parser.add_argument("--matches", type=int, default=8, help="matches (default 8), cycling through the mix")
    parser.add_argument("--seconds", type=float, default=60, help="time the players play (default 60)")
    parser.add_argument("--web-workers", type=int, default=3, help="gunicorn workers (default 3)")
    parser.add_argument("--threads", type=int, default=1, help="threads per gunicorn worker (default 1: sync)")
    parser.add_argument("--concurrency", type=int, default=2, help="Celery worker processes (default 2)")
    parser.add_argument("--think", type=float, default=0.5, help="mean seconds a player waits before a move (0.5)")
    parser.add_argument("--poll", type=float, default=3.0, help="seconds between an open page's polls (3)")
    parser.add_argument("--burst", type=float, default=0.2, help="share of moves sent as a burst (0.2)")
    parser.add_argument("--pg-log", type=Path, help="PostgreSQL's log file, to read this run's lines from it")
    parser.add_argument("--old", type=Path, help="an older checkout, run first, then side by side with this")
    parser.add_argument("--json", type=Path, help="write the key figures to this file")
    args = parser.parse_args()
    if args.players < 3:
        parser.error("at least 3 players: a Mecca match seats three")
    return args


def main() -> None:
    args = parse_args()
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        sys.exit("Set DATABASE_URL to a PostgreSQL server and REDIS_URL to a Redis database of its own.")
    queue = redis.Redis.from_url(settings.REDIS_URL)
    if args.old:
        # Tasks the old run left queued name its dropped database's rows: the new run's worker must not take them.
        old_and_new(Path(__file__), args.old, sys.argv[1:], args.json, between=lambda: queue.delete("celery"))
        return
    with throwaway_database() as database, tempfile.TemporaryDirectory() as var:
        started = time.perf_counter()
        users = make_players(args.players)
        matches = make_matches(args.matches, users)
        site = Site(Path(var), free_port(), args.web_workers, args.threads, args.concurrency)
        about = (
            f"Database {database}; gunicorn {args.web_workers} workers × {args.threads} threads, Celery worker "
            f"concurrency {args.concurrency}, beat; {args.players} players, {args.matches} matches, "
            f"{args.seconds:.0f} s of play, think {args.think} s, poll {args.poll} s, bursts {args.burst:.0%}"
        )
        print(about)
        try:
            site.start()
            print(
                f"Set-up (database, players, matches, collectstatic, processes up): "
                f"{time.perf_counter() - started:.1f} s\n"
            )
            figures = run(site, users, matches, queue, args)
        finally:
            site.stop_all()
            connection.close()
    if args.json:
        write_figures(args.json, about, figures)


def run(
    site: Site, users: list[User], matches: list[tuple[Match, list[User]]], queue: redis.Redis, args: argparse.Namespace
) -> Figures:
    stats = Stats()
    log_start = args.pg_log.stat().st_size if args.pg_log else 0
    deadlocks_before = deadlocks()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        own_pids = {cursor.fetchone()[0]}
    sampler = Sampler(queue, own_pids, site)
    sampler.start()
    players = {
        user.pk: Player(user, Browser(site.port, f"10.9.{n // 250}.{n % 250 + 1}"), stats, args)
        for n, user in enumerate(users)
    }
    for player in players.values():
        status, elapsed = player.browser.sign_in(player.user.username)
        stats.add("sign-in", status, elapsed)
    for match, seated in matches:
        for user in seated:
            players[user.pk].open(match.pk)
            players[user.pk].others[match.pk] = [players[u.pk] for u in seated if u != user]
    play_started = timezone.now()
    cpu = CpuClock(site)
    until = time.monotonic() + args.seconds
    for player in players.values():
        player.until = until
        player.start()
    for player in players.values():
        player.join(args.seconds + 120)
    window = (play_started, timezone.now())
    cpu_spent = cpu.spent()
    site.stop("beat")
    settle = time.monotonic() + 30  # the AI moves and emails already asked for
    while time.monotonic() < settle and (
        queue.llen("celery")
        or Seat.objects.filter(match__status=Status.ACTIVE, ai_level__isnull=False, to_act=True).exists()
    ):
        time.sleep(0.5)
    sampler.stop.set()
    sampler.join()
    leftover = queue.llen("celery")
    site.stop_all()
    server_lines = server_log_lines(args.pg_log, log_start, sampler.pids) if args.pg_log else None
    return report(
        stats,
        sampler,
        AfterPlay(window, deadlocks() - deadlocks_before, site.problems(), server_lines, leftover, cpu_spent),
    )


if __name__ == "__main__":
    main()
