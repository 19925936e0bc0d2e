"""The daily clearing (Celery beat, 03:30 UTC): what only grows and is not the product
(``housekeeping.clearing``)."""

from __future__ import annotations

import logging

from celery import shared_task

from housekeeping import clearing

log = logging.getLogger(__name__)


@shared_task(ignore_result=True)
def clear_expired() -> dict[str, int]:
    """Daily: clear what only grows and is not the product (``housekeeping.clearing``). One
    clearing that fails is logged and tried again the next day; the others still run."""
    clearings = {
        "sessions": clearing.expired_sessions_clear,
        "cache_rows": clearing.expired_cache_clear,
        "tries": clearing.old_tries_clear,
        "notifications": clearing.old_notifications_clear,
        "mail_files": clearing.old_mail_files_clear,
    }
    cleared = {}
    for name, clear in clearings.items():
        try:
            cleared[name] = clear()
        except Exception:
            log.exception("Clearing the old %s failed; the next run tries again.", name.replace("_", " "))
    log.info("Cleared: %s.", ", ".join(f"{count} {name.replace('_', ' ')}" for name, count in cleared.items()))
    return cleared
