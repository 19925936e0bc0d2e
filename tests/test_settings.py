"""Settings chosen by environment variables, as a deployment sets them (each run in a fresh
process: settings are read once)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCTION = {"DJANGO_DEBUG": "0", "DJANGO_ALLOWED_HOSTS": "games.example.org",
              "DJANGO_SECRET_KEY": "a-long-random-enough-secret-key-for-the-checks-0123456789-xyz"}
HTTPS = ("SECURE_PROXY_SSL_HEADER", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS")


def run(code: list[str], tmp_path: Path, **extra: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if not key.startswith("DJANGO_")}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", VAR_DIR=str(tmp_path), **extra)
    return subprocess.run([sys.executable, *code], cwd=ROOT, env=env, capture_output=True, text=True)


def https_settings(tmp_path: Path, **extra: str) -> list[str]:
    code = "import django; django.setup(); from django.conf import settings as s; " + \
        "".join(f"print(s.{name}); " for name in HTTPS)
    return run(["-c", code], tmp_path, **extra).stdout.split("\n")[:3]


def test_https_hardening_is_off_unless_the_deployment_asks_for_it(tmp_path):
    """Each is wrong somewhere (a trusted X-Forwarded-Proto without a proxy, a redirect with
    no HTTPS, an HSTS promise), so none is on by default."""
    assert https_settings(tmp_path, **PRODUCTION) == ["None", "False", "0"]
    asked = {"DJANGO_BEHIND_TLS_PROXY": "1", "DJANGO_SSL_REDIRECT": "1", "DJANGO_HSTS_SECONDS": "3600"}
    assert https_settings(tmp_path, **PRODUCTION, **asked) == ["('HTTP_X_FORWARDED_PROTO', 'https')", "True", "3600"]


def test_a_deployment_over_https_settles_djangos_https_warnings(tmp_path):
    """``check --deploy`` warned of no HSTS (W004) and no redirect to HTTPS (W008), with
    nothing a deployment could set to answer it. (Subdomains and the preload list, W005 and
    W021, are the domain owner's choice, not the site's.)"""
    before = run(["manage.py", "check", "--deploy"], tmp_path, **PRODUCTION)
    assert "security.W004" in before.stderr and "security.W008" in before.stderr
    asked = {"DJANGO_BEHIND_TLS_PROXY": "1", "DJANGO_SSL_REDIRECT": "1", "DJANGO_HSTS_SECONDS": "3600"}
    after = run(["manage.py", "check", "--deploy"], tmp_path, **PRODUCTION, **asked)
    assert "security.W004" not in after.stderr and "security.W008" not in after.stderr
    assert after.returncode == 0, after.stderr


def test_the_default_broker_starts_without_a_warning(tmp_path):
    """kombu said "No hostname was supplied. Reverting to default 'localhost'" three times at
    every start of the site (web, worker, beat), which reads like a problem to a newcomer."""
    env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    code = ("import django; django.setup(); from config.celery import app; "
            "connection = app.connection_for_write(); connection._info(); print(connection.transport_cls)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env={**env, "DJANGO_SETTINGS_MODULE": "config.settings", "VAR_DIR": str(tmp_path)})
    assert done.stdout.strip() == "config.broker:Transport", done.stderr
    assert "No hostname was supplied" not in done.stderr
