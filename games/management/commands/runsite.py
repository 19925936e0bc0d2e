"""Run the whole site on one machine: web server, Celery worker and Celery beat.

Collects the static files when debug is off, migrates, creates the demo accounts and
matches, then starts the three processes, starts again one that stops (up to three times
a minute), and stops them all on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

MAX_RESTARTS = 3  # of one process within RESTART_WINDOW seconds, before the site gives up
RESTART_WINDOW = 60
ANY_ADDRESS = {"0.0.0.0", "::", "[::]", ""}  # listening everywhere: links name this machine itself


def site_url_for(addrport: str) -> str:
    """The address email links use when the site runs on ``addrport`` ("8071",
    "127.0.0.1:8071", "0.0.0.0:8000"); unless SITE_URL is set, links follow the site."""
    host, _, port = addrport.rpartition(":")
    return f"http://{'127.0.0.1' if host in ANY_ADDRESS else host}:{port}"


class Command(BaseCommand):
    help = "Migrate, seed demo data and run web, worker and beat together (Ctrl-C stops them all)."

    def add_arguments(self, parser):
        parser.add_argument("addrport", nargs="?", default=os.environ.get("ADDRPORT", "127.0.0.1:8000"))

    def handle(self, *args, addrport: str, **options):
        settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
        for key in ("data_folder_in", "data_folder_out", "processed_folder", "control_folder"):
            folder = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get(key)
            if folder:
                os.makedirs(folder, exist_ok=True)
        if not settings.DEBUG:
            # With debug off the pages name hashed static files (the manifest storage): without
            # them every page, the 404 page too, fails. Cheap when nothing changed.
            call_command("collectstatic", interactive=False, verbosity=0)
        call_command("migrate", interactive=False, verbosity=0)
        call_command("createcachetable", verbosity=0)
        if "SITE_URL" not in os.environ:
            # Links in emails lead to the site where it runs (the worker reads this at start);
            # on another port they led to :8000, where nothing answered.
            os.environ["SITE_URL"] = settings.SITE_URL = site_url_for(addrport)
        call_command("seed_demo")

        python = sys.executable
        commands = {
            "web": [python, "manage.py", "runserver", addrport, "--noreload"],
            "worker": [python, "-m", "celery", "-A", "config", "worker", "--loglevel=INFO", "--concurrency=2"],
            "beat": [
                python,
                "-m",
                "celery",
                "-A",
                "config",
                "beat",
                "--loglevel=INFO",
                "--schedule",
                settings.CELERY_BEAT_SCHEDULE_FILENAME,
            ],
        }
        processes = {name: subprocess.Popen(command) for name, command in commands.items()}
        restarts: dict[str, list[float]] = {name: [] for name in commands}
        # A plain `kill` (SIGTERM) stops all three too, as Ctrl-C does: exiting runs the `finally` below.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        self.stdout.write(self.style.SUCCESS(f"Site running at http://{addrport}/  (Ctrl-C stops everything)"))
        try:
            while True:
                for name, process in processes.items():
                    if process.poll() is None:
                        continue
                    # One crash (a worker's bad message, say) must not take the site down;
                    # a process that keeps crashing does.
                    now = time.monotonic()
                    recent = restarts[name] = [at for at in restarts[name] if now - at < RESTART_WINDOW] + [now]
                    if len(recent) > MAX_RESTARTS:
                        self.stderr.write(f"The {name} process keeps stopping (exit code {process.returncode}).")
                        return
                    self.stderr.write(f"The {name} process stopped (exit code {process.returncode}); starting again.")
                    processes[name] = subprocess.Popen(commands[name])
                time.sleep(1)
        except KeyboardInterrupt:
            pass
        finally:
            self._stop(processes)

    def _stop(self, processes: dict[str, subprocess.Popen]) -> None:
        for process in processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 10
        for process in processes.values():
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
        self.stdout.write("Stopped web, worker and beat.")
