"""The nightly statistics (Celery beat, 03:45 UTC): each pool's figures over its finished matches,
stored for the statistics page (``ratings.statistics``)."""

from __future__ import annotations

import logging

from celery import shared_task

from ratings import statistics
from ratings.pools import all_pools

log = logging.getLogger(__name__)


@shared_task(ignore_result=True)
def refresh_statistics() -> dict[str, int]:
    """Nightly: every pool's statistics computed again. A pool that fails is logged and keeps its
    last figures until the next night; the others still refresh. The finished matches counted, by pool."""
    counted = {}
    for pool in all_pools():
        try:
            counted[pool] = statistics.refresh(pool).figures["matches"]
        except Exception:
            log.exception("Computing the statistics of %s failed; the next run tries again.", pool)
    log.info("Statistics refreshed: %s.", ", ".join(f"{pool} {count}" for pool, count in counted.items()))
    return counted
