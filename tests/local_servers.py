"""Real servers on 127.0.0.1 for delivery tests: an SMTP server (aiosmtpd) that can refuse
for a while, an HTTP server that answers webhooks with chosen statuses, and a private
redis-server that a test may stop and start (never the shared one)."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from aiosmtpd.controller import Controller


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class MailServer:
    """Accepts mail into ``messages``; refuses the next ``refuse_next`` messages with a 451;
    refuses recipients starting with "bounce" with a 550."""

    def __init__(self):
        self.messages: list = []
        self.refuse_next = 0
        self.refused = 0
        self.controller = Controller(self, hostname="127.0.0.1", port=free_port())

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith("bounce"):
            return "550 5.1.1 No such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.refuse_next > 0:
            self.refuse_next -= 1
            self.refused += 1
            return "451 4.3.0 Mail server busy, try again later"
        self.messages.append(envelope)
        return "250 Message accepted"

    @property
    def mailer(self) -> dict:
        return {
            "default": {
                "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
                "OPTIONS": {"host": "127.0.0.1", "port": self.controller.port, "timeout": 5},
            }
        }

    def __enter__(self):
        self.controller.start()
        return self

    def __exit__(self, *exc):
        self.controller.stop()


class WebhookServer:
    """Records each POSTed JSON body and Host header; answers with the next queued status
    (then 204)."""

    def __init__(self):
        self.bodies: list[dict] = []
        self.hosts: list[str] = []
        self.requests = 0
        self.statuses: deque[int] = deque()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                server.requests += 1
                server.hosts.append(self.headers.get("Host"))
                length = int(self.headers.get("Content-Length", 0))
                status = server.statuses.popleft() if server.statuses else 204
                if status < 300:
                    server.bodies.append(json.loads(self.rfile.read(length)))
                else:
                    self.rfile.read(length)
                self.send_response(status)
                if 300 <= status < 400:
                    self.send_header("Location", server.url + "/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hook"

    def __enter__(self):
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


class SpareRedis:
    """A redis-server of this test's own, on a free port, without persistence."""

    def __init__(self):
        assert shutil.which("redis-server"), "redis-server is needed for this test"
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the spare redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


class StallingMailServer(MailServer):
    """Like MailServer, but the first message's DATA never gets an answer: the sender hangs
    mid-send (``stalled`` is set once it does) and the message is never accepted."""

    def __init__(self):
        super().__init__()
        self.stalled = threading.Event()
        self._stalls_left = 1

    async def handle_DATA(self, server, session, envelope):
        if self._stalls_left:
            self._stalls_left -= 1
            self.stalled.set()
            import asyncio

            await asyncio.Event().wait()  # until the connection (or the server) goes away
        return await super().handle_DATA(server, session, envelope)
