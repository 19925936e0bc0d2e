"""End-to-end fixtures: a headless Debian Chromium driven by Playwright, and a real Celery
worker on the Redis broker, both against pytest-django's live server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from celery.contrib.testing.worker import start_worker
from django.db import connections
from playwright.sync_api import Browser, Page, sync_playwright

from config.celery import app as celery_app
from tests.conftest import route_tasks_to

# Playwright's sync API runs an event loop in this thread; Django would otherwise refuse
# the ORM calls the test and its fixtures make here.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Fail fast: nothing on these pages should take longer (the AI reply comes by a 3 s poll).
TIMEOUT_MS = 15_000
NO_REDIS = "The e2e tests need a real broker: run them with REDIS_URL=redis://..."


@contextmanager
def launched(*args: str, **options) -> Iterator[Browser]:
    """Chromium started with ``args`` besides ours."""
    # Per test, not per session: Playwright's event loop would otherwise stay running in this
    # thread through the rest of the test session.
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=[*CHROMIUM_ARGS, *args], **options
        )
        yield browser
        browser.close()
        # While Playwright runs, this thread has a contextvars context of its own, so Django
        # opened separate connections for the test; left open they block dropping the test database.
        connections.close_all()


@pytest.fixture
def browser() -> Iterator[Browser]:
    with launched() as browser:
        yield browser


# Chromium as players have it: Playwright turns off its back/forward cache, which keeps a page
# left (scripts and all) to show it again, as it was, on Back.
WITH_BFCACHE = {"ignore_default_args": ["--disable-back-forward-cache"]}
# Chromium's trial that keeps pages sent "no-store" too (until a cookie only the server reads
# changes), as Safari does (WebKit r250437).
KEEPS_NO_STORE_PAGES = (
    "--enable-features=CacheControlNoStoreEnterBackForwardCache:level/restore-unless-http-only-cookie-change"
)


@contextmanager
def console_checked_page(browser: Browser, **context_options) -> Iterator[Page]:
    """A page that fails its test if a script error reaches the console (htmx reports there
    what it refuses to do, such as a trigger filter our CSP forbids). A refused move's 4xx
    response is logged too ("Failed to load resource"), but that one is expected."""
    context = browser.new_context(**context_options)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    script_errors = [text for text in errors if not text.startswith("Failed to load resource")]
    assert not script_errors, f"errors in the browser console: {script_errors}"


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    with console_checked_page(browser, viewport={"width": 1100, "height": 900}) as page:
        yield page


PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 320, "height": 568}


@contextmanager
def phone_page(browser: Browser, screen: dict[str, int] = PHONE) -> Iterator[Page]:
    """A page as a phone shows it: touch, and as wide as ``screen`` (390 px unless told)."""
    with console_checked_page(browser, viewport=screen, is_mobile=True, has_touch=True) as page:
        yield page


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    with phone_page(browser) as page:
        yield page


@pytest.fixture
def small_phone(browser: Browser) -> Iterator[Page]:
    with phone_page(browser, SMALL_PHONE) as page:
        yield page


@pytest.fixture
def celery_worker(live_server):
    """A real worker in a thread, consuming from the Redis broker the settings name.

    Other test runs may share that Redis, so the tasks go to a queue of this process's own:
    a worker elsewhere must not play our AI's moves against its own database, nor ours theirs.
    """
    broker = celery_app.conf.broker_url or ""
    assert broker.startswith("redis://"), NO_REDIS
    default_queue = celery_app.conf.task_default_queue
    queue = f"e2e-{os.getpid()}"
    route_tasks_to(queue)
    with celery_app.connection_for_write() as connection:
        connection.default_channel.queue_purge(queue)  # leftovers of an interrupted run
    try:
        with start_worker(celery_app, perform_ping_check=False, pool="solo", shutdown_timeout=20) as worker:
            yield worker
    finally:
        route_tasks_to(default_queue)
