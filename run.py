#!/usr/bin/env python3
"""Set up and run everything with one command; needs nothing but Python.

    python3 run.py          install, migrate, create demo data, start web + worker + beat
    python3 run.py test     install, then run the whole test suite (extra args go to pytest)
    python3 run.py check    install, then lint, check the formatting and the types (what CI runs first)

It finds a Python of at least 3.12 (Django 6 needs it), makes ``.venv`` with it,
installs the locked dependencies with uv, and hands over to Django.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
VENV_PYTHON = VENV / "bin" / "python"
MIN_PYTHON = (3, 12)
UV_VERSION = "0.13.9"
TEST_DEFAULTS = {
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/boardgames",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
}


def python_version(executable: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run(
            [executable, "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        ).stdout.split()
        return int(out[0]), int(out[1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None


def find_python() -> str:
    candidates = [sys.executable, "python3.14", "python3.13", "python3.12", "python3"]
    candidates += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python3")), reverse=True)
    for candidate in candidates:
        path = candidate if os.path.isabs(candidate) else shutil.which(candidate)
        if path and (python_version(path) or (0, 0)) >= MIN_PYTHON:
            return path
    sys.exit("This site needs Python 3.12 or newer; install it (for example python3.12) and run again.")


def ensure_environment() -> None:
    if not VENV_PYTHON.exists() or (python_version(str(VENV_PYTHON)) or (0, 0)) < MIN_PYTHON:
        if VENV.exists():
            shutil.rmtree(VENV)
        print("Creating .venv ...", flush=True)
        subprocess.run([find_python(), "-m", "venv", str(VENV)], check=True)
    uv = VENV / "bin" / "uv"
    if not uv.exists():
        subprocess.run([str(VENV_PYTHON), "-m", "pip", "install", "--quiet", f"uv=={UV_VERSION}"], check=True)
    env = {**os.environ, "UV_PROJECT_ENVIRONMENT": str(VENV)}
    # --inexact keeps uv itself, which is not one of the project's locked dependencies.
    subprocess.run([str(uv), "sync", "--frozen", "--inexact", "--quiet"], cwd=ROOT, check=True, env=env)


CHECKS = (["ruff", "check", "."], ["ruff", "format", "--check", "."], ["mypy"])


def check() -> int:
    """Run every check (all of them, so that one run shows every problem); 1 if any failed."""
    failed = False
    for command in CHECKS:
        print("$", " ".join(command), flush=True)
        failed |= subprocess.run([str(VENV / "bin" / command[0]), *command[1:]], check=False).returncode != 0
    return int(failed)


def main(argv: list[str]) -> None:
    os.chdir(ROOT)
    ensure_environment()
    if argv[:1] == ["test"]:
        env = {**TEST_DEFAULTS, **os.environ}
        os.execve(str(VENV_PYTHON), [str(VENV_PYTHON), "-m", "pytest", *argv[1:]], env)
    if argv[:1] == ["check"]:
        sys.exit(check())
    os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), "manage.py", "runsite", *argv])


if __name__ == "__main__":
    main(sys.argv[1:])
