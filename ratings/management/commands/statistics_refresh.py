"""Compute the statistics pages' figures now, rather than wait for the nightly run (beat's
``refresh-statistics``): every pool, or those named."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.template.defaultfilters import pluralize

from ratings import statistics
from ratings.pools import all_pools


class Command(BaseCommand):
    help = "Compute each pool's statistics over its finished matches and store them for the statistics page."

    def add_arguments(self, parser):
        parser.add_argument("pools", nargs="*", help='Pools to refresh ("mecca", "mancala/kalah"); all by default.')

    def handle(self, *args, pools: list[str], **options):
        unknown = [pool for pool in pools if pool not in all_pools()]
        if unknown:
            raise CommandError(f"No such pool: {', '.join(unknown)}. Pools: {', '.join(all_pools())}.")
        for pool in pools or all_pools():
            count = statistics.refresh(pool).figures["matches"]
            self.stdout.write(f"{pool}: {count} finished match{pluralize(count, 'es')}.")
