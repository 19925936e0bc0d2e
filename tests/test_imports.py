"""Every module of every app imports on its own: each one first, in a fresh interpreter, once the
models are loaded (as Django loads them before anything else), then the apps get ready as at start.
An import cycle that works only because another module happened to be imported first (the admin's
autodiscovery, a test's own imports) fails here."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("accounts", "chat", "config", "games", "housekeeping", "notifications", "ratings")
# They set Django up themselves (or are the settings): imported in a bare interpreter.
SETS_DJANGO_UP = {"config.settings", "config.celery", "config.wsgi", "config.asgi", "config"}

IMPORT_FIRST = """
import importlib, sys
import django
from django.apps import AppConfig, apps
from django.conf import settings

module = sys.argv[1]
for entry in settings.INSTALLED_APPS:  # apps.populate(), up to the models, without any ready()
    config = AppConfig.create(entry)
    apps.app_configs[config.label] = config
    config.apps = apps
apps.apps_ready = True
for config in apps.app_configs.values():
    config.import_models()
apps.clear_cache()
apps.models_ready = True
importlib.import_module(module)
for config in apps.get_app_configs():
    config.ready()
apps.ready = True
"""


def modules() -> list[str]:
    found = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" in parts:
                continue
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def import_first(module: str) -> tuple[str, str]:
    if module in SETS_DJANGO_UP:
        command = [sys.executable, "-c", f"import {module}"]
    else:
        command = [sys.executable, "-c", IMPORT_FIRST, module]
    env = {"DJANGO_SETTINGS_MODULE": "config.settings", "PATH": "/usr/bin:/bin", "DATABASE_URL": "sqlite://"}
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    return module, "" if result.returncode == 0 else result.stderr.strip().splitlines()[-1]


def test_the_apps_have_modules_to_import():
    found = modules()
    assert {"games.services.turns", "chat.services", "notifications.tasks", "games.tasks"} <= set(found)


@pytest.mark.parametrize("app", APPS)
def test_every_module_imports_first_in_a_fresh_interpreter(app):
    with ThreadPoolExecutor(max_workers=4) as pool:
        failures = [
            (module, error)
            for module, error in pool.map(import_first, [m for m in modules() if m.split(".")[0] == app])
            if error
        ]
    assert not failures, "\n".join(f"{module}: {error}" for module, error in failures)
