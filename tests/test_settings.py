"""Settings chosen by environment variables, as a deployment sets them (each run in a fresh
process: settings are read once)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "DJANGO_ALLOWED_HOSTS": "games.example.org",
    "DJANGO_SECRET_KEY": "a-long-random-enough-secret-key-for-the-checks-0123456789-xyz",
}
# What the settings read besides DJANGO_*: a test sees none of this machine's.
READ = {
    "DATABASE_URL",
    "REDIS_URL",
    "SITE_URL",
    "LOG_LEVEL",
    "DEFAULT_FROM_EMAIL",
    "WEBHOOK_ALLOW_PRIVATE_ADDRESSES",
    "EMAIL_HOST",
    "EMAIL_PORT",
    "EMAIL_HOST_USER",
    "EMAIL_HOST_PASSWORD",
    "EMAIL_USE_TLS",
    "NOTIFICATIONS_KEEP_DAYS",
    "MAIL_FILES_KEEP_DAYS",
    "MESSAGE_NOTICE_DELAY_SECONDS",
    "MANAGERS",
}
HTTPS = ("SECURE_PROXY_SSL_HEADER", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS")


def run(code: list[str], tmp_path: Path, **extra: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if not key.startswith("DJANGO_") and key not in READ}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", VAR_DIR=str(tmp_path), **extra)
    return subprocess.run([sys.executable, *code], cwd=ROOT, env=env, capture_output=True, text=True)


def https_settings(tmp_path: Path, **extra: str) -> list[str]:
    code = "import django; django.setup(); from django.conf import settings as s; " + "".join(
        f"print(s.{name}); " for name in HTTPS
    )
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
    code = (
        "import django; django.setup(); from config.celery import app; "
        "connection = app.connection_for_write(); connection._info(); print(connection.transport_cls)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings", "VAR_DIR": str(tmp_path)},
    )
    assert done.stdout.strip() == "config.broker:Transport", done.stderr
    assert "No hostname was supplied" not in done.stderr


@pytest.mark.parametrize(
    "unset", [["DJANGO_SECRET_KEY"], ["DJANGO_ALLOWED_HOSTS"], ["DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS"]]
)
@pytest.mark.parametrize("how", ["missing", "empty"])
def test_with_debug_off_a_missing_secret_key_or_host_list_stops_the_site_in_one_line(tmp_path, unset, how):
    """A missing key stopped it with a 30-line traceback; a missing host list did not stop it
    at all (the development hosts were used: every request to the real name got "Bad Request")."""
    environment = {name: value for name, value in PRODUCTION.items() if name not in unset}
    if how == "empty":
        environment.update({name: " " for name in unset})
    done = run(["manage.py", "check"], tmp_path, **environment)
    assert done.returncode != 0
    assert done.stderr.strip() == (
        f"The site cannot start: set {' and '.join(unset)} when DJANGO_DEBUG is off (see the README, Configuration)."
    )


MAKE_A_KEY = "python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"


@pytest.mark.parametrize("key", ["changeme", "a-short-key-0123456789-abcdefghijklmnopqrstuvwxyz", "x" * 64])
def test_with_debug_off_a_secret_key_anyone_could_guess_stops_the_site_in_one_line(tmp_path, key):
    """``check --deploy`` warned (security.W009) and the site ran, signing sessions, password-reset
    links and unsubscribe links with a key that could be found by trying."""
    done = run(["manage.py", "check"], tmp_path, **{**PRODUCTION, "DJANGO_SECRET_KEY": key})
    assert done.returncode == 3
    assert done.stderr.strip() == (
        "The site cannot start: DJANGO_SECRET_KEY must be at least 50 characters, at least 5 of them different, "
        f"when DJANGO_DEBUG is off (it has {len(key)}, {len(set(key))} different). Make one with {MAKE_A_KEY}"
    )


def test_with_debug_off_a_long_random_secret_key_starts_the_site(tmp_path):
    done = run(["manage.py", "check"], tmp_path, **{**PRODUCTION, "DJANGO_SECRET_KEY": secrets.token_urlsafe(38)})
    assert done.returncode == 0, done.stderr


def test_with_debug_on_the_secret_key_is_not_checked(tmp_path):
    assert run(["manage.py", "check"], tmp_path, DJANGO_SECRET_KEY="changeme").returncode == 0


def test_an_optional_variable_set_to_nothing_counts_as_not_set(tmp_path):
    """ "NAME=" in an env file stopped the site with a traceback (int('') for DJANGO_HSTS_SECONDS
    and EMAIL_PORT, an unknown scheme for DATABASE_URL, an unknown level for LOG_LEVEL)."""
    empty = {
        name: ""
        for name in (
            "DJANGO_HSTS_SECONDS",
            "EMAIL_PORT",
            "LOG_LEVEL",
            "DATABASE_URL",
            "SITE_URL",
            "REDIS_URL",
            "DJANGO_CSRF_TRUSTED_ORIGINS",
            "DJANGO_TRUSTED_PROXY_COUNT",
        )
    }
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.SECURE_HSTS_SECONDS, s.MAILERS['default']['OPTIONS']['port'], s.LOG_LEVEL, "
        "s.DATABASES['default']['ENGINE'], s.SITE_URL, s.CSRF_TRUSTED_ORIGINS, s.ALLAUTH_TRUSTED_PROXY_COUNT)"
    )
    done = run(["-c", code], tmp_path, **PRODUCTION, **empty, EMAIL_HOST="smtp.example.org")
    expected = ["0", "25", "INFO", "django.db.backends.sqlite3", "http://127.0.0.1:8000", "[]", "0"]
    assert done.stdout.split() == expected, done.stderr


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("DJANGO_HSTS_SECONDS", "a year", "DJANGO_HSTS_SECONDS must be a whole number, not 'a year'."),
        ("EMAIL_PORT", "587/tls", "EMAIL_PORT must be a whole number, not '587/tls'."),
        ("LOG_LEVEL", "verbose", "LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR or CRITICAL, not 'VERBOSE'."),
    ],
)
def test_a_value_that_is_no_number_or_level_stops_the_site_in_one_line(tmp_path, name, value, said):
    done = run(["manage.py", "check"], tmp_path, **PRODUCTION, EMAIL_HOST="smtp.example.org", **{name: value})
    assert done.returncode != 0 and done.stderr.strip() == f"The site cannot start: {said}"


def test_how_long_old_notifications_and_mail_files_are_kept_is_the_deployments_choice(tmp_path):
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.NOTIFICATIONS_KEEP_DAYS, s.MAIL_FILES_KEEP_DAYS)"
    )
    assert run(["-c", code], tmp_path).stdout.split() == ["90", "14"]
    chosen = run(["-c", code], tmp_path, NOTIFICATIONS_KEEP_DAYS="365", MAIL_FILES_KEEP_DAYS="3")
    assert chosen.stdout.split() == ["365", "3"], chosen.stderr


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        (
            "NOTIFICATIONS_KEEP_DAYS",
            "7",
            "NOTIFICATIONS_KEEP_DAYS must be at least 30 (the profile shows the failed "
            "deliveries of the last 30 days), not 7.",
        ),
        ("MAIL_FILES_KEEP_DAYS", "0", "MAIL_FILES_KEEP_DAYS must be at least 1, not 0."),
    ],
)
def test_a_time_to_keep_too_short_for_what_the_site_shows_stops_the_site_in_one_line(tmp_path, name, value, said):
    done = run(["manage.py", "check"], tmp_path, **{name: value})
    assert done.returncode != 0 and done.stderr.strip() == f"The site cannot start: {said}"


def test_a_log_level_is_read_in_any_case(tmp_path):
    """LOG_LEVEL=info stopped the site ("Unable to configure root logger")."""
    code = "import django, logging; django.setup(); print(logging.getLevelName(logging.getLogger().level))"
    assert run(["-c", code], tmp_path, **PRODUCTION, LOG_LEVEL="warning").stdout.strip() == "WARNING"


def test_debug_set_to_nothing_is_off(tmp_path):
    """Where "NAME=" counts as not set, an empty DJANGO_DEBUG must not turn debug on."""
    code = "import django; django.setup(); from django.conf import settings; print(settings.DEBUG)"
    assert run(["-c", code], tmp_path, **{**PRODUCTION, "DJANGO_DEBUG": ""}).stdout.strip() == "False"


def client_address(tmp_path: Path, **extra: str) -> str:
    """The address allauth's sign-in limits count a request from, as a proxy in front sends it."""
    code = (
        "import django; django.setup(); from django.test import RequestFactory; "
        "from allauth.core.internal.httpkit import get_client_ip; "
        "print(get_client_ip(RequestFactory().post('/accounts/login/', REMOTE_ADDR='10.0.0.2', "
        "HTTP_X_FORWARDED_FOR='198.51.100.9, 203.0.113.7')))"
    )
    done = run(["-c", code], tmp_path, **PRODUCTION, **extra)
    return done.stdout.strip() or done.stderr


def test_behind_a_proxy_the_sign_in_limits_count_each_client_not_the_proxy(tmp_path):
    """Every request came from the proxy's address, so ten wrong passwords a minute from anyone
    (allauth's limit per address) kept everyone from signing in. The entry the proxy added is
    the client's; the one before it is whatever the client wrote."""
    assert client_address(tmp_path) == "10.0.0.2", "no proxy: X-Forwarded-For is anyone's to write"
    assert client_address(tmp_path, DJANGO_BEHIND_TLS_PROXY="1") == "203.0.113.7"
    assert client_address(tmp_path, DJANGO_BEHIND_TLS_PROXY="1", DJANGO_TRUSTED_PROXY_COUNT="2") == "198.51.100.9"


def test_the_staff_addresses_for_reported_messages_are_a_comma_separated_list(tmp_path):
    code = "import django; django.setup(); from django.conf import settings as s; print(s.MANAGERS)"
    assert run(["-c", code], tmp_path).stdout.strip() == "[]"
    given = run(["-c", code], tmp_path, MANAGERS=" mods@example.org, owner@example.org ,")
    assert given.stdout.strip() == "['mods@example.org', 'owner@example.org']", given.stderr


def test_the_addresses_told_of_a_server_error_are_a_comma_separated_list(tmp_path):
    code = "import django; django.setup(); from django.conf import settings as s; print(s.ADMINS)"
    assert run(["-c", code], tmp_path).stdout.strip() == "[]"
    given = run(["-c", code], tmp_path, DJANGO_ADMINS=" Ops <ops@example.org>, dev@example.org ,")
    assert given.stdout.strip() == "['Ops <ops@example.org>', 'dev@example.org']", given.stderr
