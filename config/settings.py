"""Settings, read from the environment so that no deployment needs a code change.

Defaults run the whole site on one machine with no outside servers: SQLite, a
filesystem Celery broker and email printed to the console and written to ``var/mail``.
``DATABASE_URL`` selects PostgreSQL, ``REDIS_URL`` makes Redis the Celery broker, and
``EMAIL_HOST`` (with ``EMAIL_PORT``, ``EMAIL_HOST_USER``, ``EMAIL_HOST_PASSWORD``,
``EMAIL_USE_TLS``) sends real email over SMTP.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import NoReturn

import dj_database_url
from celery.schedules import crontab
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("VAR_DIR", "").strip() or BASE_DIR / "var")


def refuse_to_start(problem: str) -> NoReturn:
    """Stop with one line that says what to set: a traceback through the settings hid it. Exit
    code 3 is also what gunicorn reads as "worker failed to boot", so it stops instead of
    starting workers that fail again, in a loop."""
    print(f"The site cannot start: {problem}", file=sys.stderr)
    raise SystemExit(3)


def env(name: str, default: str = "") -> str:
    """A variable set to nothing ("NAME=" in an env file) counts as not set."""
    return os.environ.get(name, "").strip() or default


def env_flag(name: str, default: bool) -> bool:
    return env(name, "1" if default else "0").lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = env(name, str(default))
    try:
        return int(value)
    except ValueError:
        refuse_to_start(f"{name} must be a whole number, not {value!r}.")


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in env(name, default).split(",") if item.strip()]


# Unlike other variables, one set to nothing turns debug off: only where it is not set at all is it on.
DEBUG = os.environ.get("DJANGO_DEBUG", "1").strip().lower() in {"1", "true", "yes", "on"}
SECRET_KEY = env("DJANGO_SECRET_KEY")
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver" if DEBUG else "")
if not DEBUG:
    # Without these the site would sign every form with a key anyone can read, or answer every
    # request with "Bad Request" (a host it was not told about).
    missing = [
        name
        for name, value in (("DJANGO_SECRET_KEY", SECRET_KEY), ("DJANGO_ALLOWED_HOSTS", ALLOWED_HOSTS))
        if not value
    ]
    if missing:
        refuse_to_start(f"set {' and '.join(missing)} when DJANGO_DEBUG is off (see the README, Configuration).")
    # What check --deploy asks of a key (security.W009): a shorter one could be found by trying, and
    # with it anyone signs sessions, password-reset and unsubscribe links.
    if len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5:
        refuse_to_start(
            "DJANGO_SECRET_KEY must be at least 50 characters, at least 5 of them different, when DJANGO_DEBUG "
            f"is off (it has {len(SECRET_KEY)}, {len(set(SECRET_KEY))} different). "
            "Make one with python3 -c 'import secrets; print(secrets.token_urlsafe(50))'"
        )
SECRET_KEY = SECRET_KEY or "dev-only-not-secret-" + "x" * 40

CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")
# Absolute address of the site, for links in emails.
SITE_URL = env("SITE_URL", "http://127.0.0.1:8000").rstrip("/")

INSTALLED_APPS = [
    "config.admin.BoardgamesAdminConfig",  # django.contrib.admin with our site (config/admin.py)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "allauth",
    "allauth.account",
    "django_htmx",
    # Each app knows only those above it: ratings, chat and notifications hear games through its signals.
    "accounts",
    "games",
    "ratings",
    "chat",
    "notifications",
    "housekeeping",
]

MIDDLEWARE = [
    # First: every answer, a refusal by the middleware below too, carries the request's id (config/middleware.py).
    "config.middleware.RequestId",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages and htmx fragments are compressed for browsers that ask (the move log grows with the
    # game: 86 KB of HTML at 290 moves). After WhiteNoise, which serves its own compressed files.
    "django.middleware.gzip.GZipMiddleware",
    "config.middleware.ExplainRefusedMethod",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    # After the user, the messages and the page's headers: its refusal is a page of the site. It is the
    # first to read the form, so Django's refusal of one (too large, too many fields) knows the user too.
    "config.middleware.RefuseNulCharacters",
    "allauth.account.middleware.AccountMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "accounts.middleware.HtmxSignInMiddleware",
    "accounts.middleware.UserTimezoneMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                # After those two: where the request has no user to show (an error page), a visitor signed out.
                "config.context_processors.visitor",
                "django.template.context_processors.csp",
                "games.context_processors.waiting",
            ],
        },
    },
    {
        # Plain-text emails: no HTML escaping, so "O'Brien" does not arrive as "O&#x27;Brien".
        "NAME": "text",
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "OPTIONS": {"autoescape": False},
    },
]

# --- database ------------------------------------------------------------------
DATABASES = {
    "default": dj_database_url.parse(
        env("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=600,
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    # Persistent connections, WAL and immediate transactions: several processes (web,
    # worker, beat) write to one file, and per-request connections were many times slower.
    DATABASES["default"]["CONN_MAX_AGE"] = None
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Sessions and the cache (allauth's rate limits) live in the database, so logging in
# never depends on Redis being up.
SESSION_ENGINE = "django.contrib.sessions.backends.db"
# The cache holds allauth's rate-limit counters. Django's default of 300 entries would drop a
# third of them whenever tries under many names or addresses pushed past it, resetting the limits.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "django_cache",
        "OPTIONS": {"MAX_ENTRIES": 1_000_000},
    }
}

# --- accounts ------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
SITE_NAME = "Boardgames"  # what emails and allauth call the site (the pages' header says it too)
LOGIN_URL = "account_login"
CSRF_FAILURE_VIEW = "accounts.views.csrf_failure"
LOGIN_REDIRECT_URL = "dashboard"
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_FORMS = {"login": "accounts.forms.SignInForm", "signup": "accounts.forms.SignUpForm"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_LOGIN_ON_PASSWORD_RESET = True  # the new password was just typed: no second form to type it again
ACCOUNT_EMAIL_NOTIFICATIONS = True  # tell the owner when the password or an address changes: it may not be them
ACCOUNT_LOGOUT_REDIRECT_URL = "home"
ACCOUNT_EMAIL_SUBJECT_PREFIX = f"[{SITE_NAME}] "
ACCOUNT_DEFAULT_HTTP_PROTOCOL = SITE_URL.split(":", 1)[0]
# allauth's rate limits stay on (its defaults); they use the database cache above.

# --- email and webhooks -----------------------------------------------------------
# Player webhooks may reach loopback or private addresses (a local test server) only in development.
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = env_flag("WEBHOOK_ALLOW_PRIVATE_ADDRESSES", DEBUG)
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", f"{SITE_NAME} <noreply@boardgames.invalid>")
# Staff addresses, comma-separated: a message a player reports is emailed there (chat.services.report_staff_tell).
# None set: reports are only listed in the admin.
MANAGERS = env_list("MANAGERS")
# Operators' addresses ("Name <address>" or the address), comma-separated: each server error (a 500) is
# mailed there by a worker (config/errors.py). None set: it is only in the log.
ADMINS = env_list("DJANGO_ADMINS")
# Where the development backend writes every email (no EMAIL_HOST), kept MAIL_FILES_KEEP_DAYS.
MAIL_FILE_PATH = VAR_DIR / "mail"
if env("EMAIL_HOST"):
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": env("EMAIL_HOST"),
                "port": env_int("EMAIL_PORT", 25),
                "username": env("EMAIL_HOST_USER"),
                "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),  # as given: spaces may be part of it
                "use_tls": env_flag("EMAIL_USE_TLS", False),
                "timeout": 10,
            },
        }
    }
else:
    MAILERS = {
        "default": {
            "BACKEND": "config.mail.ConsoleAndFileEmailBackend",
            "OPTIONS": {"file_path": str(MAIL_FILE_PATH)},
        }
    }

# --- Celery --------------------------------------------------------------------
REDIS_URL = env("REDIS_URL")
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    # Without timeouts a publish to a Redis that accepts but never answers blocks forever.
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
        "socket_connect_timeout": 2,
        "socket_timeout": 2,
        "visibility_timeout": 3600,
        # A publish with no connection yet tries once: kombu's default retries (2 s, then 4 s)
        # kept a move waiting 6 s on a Redis that is down. Worker and beat reconnect with
        # their own retries (broker_connection_max_retries, the publish retry policy).
        "max_retries": 0,
    }
else:
    # No server needed: messages are files under var/celery, shared by web, worker and beat,
    # each written whole before a worker can see it (config/broker.py).
    CELERY_BROKER_URL = "filesystem://localhost/"  # the host means nothing here; without one kombu warns at every start
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(VAR_DIR / "celery" / "queue"),
        "data_folder_out": str(VAR_DIR / "celery" / "queue"),
        "processed_folder": str(VAR_DIR / "celery" / "processed"),
        "control_folder": str(VAR_DIR / "celery" / "control"),
        "store_processed": False,
        # The worker looks for new files this often (kombu's default, 1 s, added a second to
        # every AI move: a six-player round of AI seats took six seconds more).
        "polling_interval": 0.1,
    }
# First delay before a failed email is tried again; each retry doubles it.
NOTIFICATION_RETRY_SECONDS = 30
# Logging is Django's (LOGGING below); the worker must not replace the root logger's handlers.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_BEAT_SCHEDULE = {
    # Sweeps pick up whatever a lost or failed task left behind and apply what is due,
    # each with indexed queries on rows with due times (see games/tasks.py).
    "relay-notifications": {"task": "notifications.tasks.sweep_notifications", "schedule": 30.0},
    "tell-staff-of-reports": {"task": "chat.tasks.sweep_reports", "schedule": 60.0},
    "apply-timeouts": {"task": "games.tasks.sweep_deadlines", "schedule": 60.0},
    "end-vacations": {"task": "games.tasks.sweep_vacations", "schedule": 300.0},
    "wake-waiting-ai-seats": {"task": "games.tasks.sweep_ai_turns", "schedule": 60.0},
    "expire-open-matches": {"task": "games.tasks.sweep_open_matches", "schedule": 600.0},
    # Once a day, at a quiet hour (UTC): expired sessions and cache rows, old notifications and mail files.
    "clear-expired": {"task": "housekeeping.tasks.clear_expired", "schedule": crontab(hour=3, minute=30)},
    # Each game's statistics page reads a row computed here from every finished match (ratings.statistics).
    "refresh-statistics": {"task": "ratings.tasks.refresh_statistics", "schedule": crontab(hour=3, minute=45)},
}
# A match still waiting for players this many days after it was created, or after a seat was last
# taken or an invitation accepted (a match that is filling up lives on), is cancelled: an
# invitation nobody answers or a challenge nobody takes must not keep its creator waiting for ever
# (lichess and Yucata expire theirs too). Two weeks: a correspondence player away for a week still
# answers, and is told OPEN_MATCH_WARN_DAYS before.
OPEN_MATCH_EXPIRY_DAYS = env_int("OPEN_MATCH_EXPIRY_DAYS", 14)
OPEN_MATCH_WARN_DAYS = 2
if OPEN_MATCH_EXPIRY_DAYS <= OPEN_MATCH_WARN_DAYS:
    refuse_to_start(
        f"OPEN_MATCH_EXPIRY_DAYS must be more than {OPEN_MATCH_WARN_DAYS} (the invited players are told "
        f"{OPEN_MATCH_WARN_DAYS} days before it runs out), not {OPEN_MATCH_EXPIRY_DAYS}."
    )
# The profile lists a player's failed deliveries of this many last days.
FAILURES_SHOWN_DAYS = 30
# Notifications done with (sent, skipped, failed for good) stay this long for staff to look up: no
# fewer days than the profile shows.
NOTIFICATIONS_KEEP_DAYS = env_int("NOTIFICATIONS_KEEP_DAYS", 90)
if NOTIFICATIONS_KEEP_DAYS < FAILURES_SHOWN_DAYS:
    refuse_to_start(
        f"NOTIFICATIONS_KEEP_DAYS must be at least {FAILURES_SHOWN_DAYS} (the profile shows the failed "
        f"deliveries of the last {FAILURES_SHOWN_DAYS} days), not {NOTIFICATIONS_KEEP_DAYS}."
    )
# The development mail files stay this long after they were written (a confirmation link lasts 3 days).
MAIL_FILES_KEEP_DAYS = env_int("MAIL_FILES_KEEP_DAYS", 14)
if MAIL_FILES_KEEP_DAYS < 1:
    refuse_to_start(f"MAIL_FILES_KEEP_DAYS must be at least 1, not {MAIL_FILES_KEEP_DAYS}.")
# A player told of a message in their match is told this long after it (chat.services.message_post):
# the messages written meanwhile come in the same email, and one read on the match page by then in none.
MESSAGE_NOTICE_DELAY_SECONDS = env_int("MESSAGE_NOTICE_DELAY_SECONDS", 120)
if MESSAGE_NOTICE_DELAY_SECONDS < 0:
    refuse_to_start(f"MESSAGE_NOTICE_DELAY_SECONDS must be 0 or more, not {MESSAGE_NOTICE_DELAY_SECONDS}.")

# --- ratings (the ratings app; docs/players.md, "Ratings") ------------------------------------------------------------
# A rating is provisional, shown with "?", until it has counted this many rated matches.
RATING_PROVISIONAL_MATCHES = 10
# Leaderboards list the players who finished a rated match in the pool within this many days.
RATING_ACTIVE_DAYS = 90

# --- what one player may ask of the others (games.services.match_create; staff are not limited) ---------------------
# Far above what anyone playing needs (correspondence matches wait days for players), low enough that one
# player cannot fill the lobby or another player's inbox: every invitation is an email.
# Matches a player created that still wait for players (open challenges and unanswered invitations);
# a match against AI players only starts at once and is never counted.
OPEN_MATCHES_PER_PLAYER = 20
# Invitations from one player to the same player that wait for an answer at once.
PENDING_INVITATIONS_TO_ONE_PLAYER = 3
# Invitations one player sends (rematches that invite included) in any 24 hours.
INVITATIONS_PER_DAY = 50
# Messages one player writes in matches (chat.services.message_post) in any minute: a conversation
# never needs more, and the others' pages redraw with each one.
MESSAGES_PER_MINUTE = 10
# Messages one player reports to staff (chat.services.message_report) in any hour: each first report
# of a message is an email to staff.
REPORTS_PER_HOUR = 10
# Matches against the AI alone that one player may have in play at once: each AI move is a worker's time,
# and an eight-seat Jeexa match of seven Strong AIs took about a minute of it (staff are not limited).
AI_ONLY_MATCHES_PER_PLAYER = 5
# Wrong passwords for one account, whichever of its names or addresses was typed (accounts.adapter),
# within SIGN_IN_FAILURES_WINDOW_SECONDS: the next try waits for the window's end. From one address,
# ACCOUNT_RATE_LIMITS' "login_failed" (allauth) limits the tries on any accounts.
SIGN_IN_FAILURES_PER_ACCOUNT = 5
SIGN_IN_FAILURES_WINDOW_SECONDS = 300
ACCOUNT_RATE_LIMITS = {"login_failed": "10/m/ip"}

# --- the web -------------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
LOCALE_PATHS = [BASE_DIR / "locale"]  # our wording over a library's (locale/en: allauth's Title Case)
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
}
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
if not DEBUG:
    SESSION_COOKIE_SECURE = env_flag("DJANGO_SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# Serving over HTTPS, all three chosen by whoever deploys (each is wrong somewhere): a proxy
# that ends TLS says so in X-Forwarded-Proto (only trust it behind such a proxy); plain http
# is redirected; browsers are told to come back over HTTPS only (hard to undo: start small).
BEHIND_TLS_PROXY = env_flag("DJANGO_BEHIND_TLS_PROXY", False)
if BEHIND_TLS_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# allauth's sign-in limits count per client address. Behind a proxy every request comes from the
# proxy's, so ten wrong passwords a minute from anyone locked everyone out: trust the last entries
# of X-Forwarded-For, one per proxy of ours (a client can write the entries before them).
ALLAUTH_TRUSTED_PROXY_COUNT = env_int("DJANGO_TRUSTED_PROXY_COUNT", 1 if BEHIND_TLS_PROXY else 0)
SECURE_SSL_REDIRECT = env_flag("DJANGO_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 0)

LOG_LEVEL = env("LOG_LEVEL", "INFO").upper()
if LOG_LEVEL not in logging.getLevelNamesMapping():
    refuse_to_start(f"LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR or CRITICAL, not {LOG_LEVEL!r}.")
# Every line goes through one filter that hides the secrets links carry (config/logs.py):
# runserver's request log has a handler of its own (Django's format), and Django's other
# loggers no second one of their own (with debug on, each of their lines was written twice).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "secrets_hidden": {"()": "config.logs.SecretsInPathsHidden"},
        "request_id": {"()": "config.logs.RequestIdAttached"},
    },
    "formatters": {
        "django.server": {
            "()": "django.utils.log.ServerFormatter",
            "format": "[{server_time}] {message}",
            "style": "{",
        },
        # A line written while answering a request starts with its id, which a 500 page shows the player.
        "request_id": {"()": "config.logs.RequestIdFirst"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["secrets_hidden", "request_id"],
            "formatter": "request_id",
        },
        "django.server": {
            "class": "logging.StreamHandler",
            "formatter": "django.server",
            "filters": ["secrets_hidden"],
        },
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django": {"handlers": [], "level": "INFO"},
        "django.server": {"handlers": ["django.server"], "level": "INFO", "propagate": False},
    },
}
