"""Recompute every rating from the stored results, for when the rule or its parameters change:
every rating and change is deleted and every finished rated match replayed in the order they
finished, as the live updates counted them (``ratings.services.ratings_recompute``)."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.template.defaultfilters import pluralize

from ratings.services import ratings_recompute


class Command(BaseCommand):
    help = (
        "Delete every rating and rating change and replay every finished rated match in the order they "
        "finished, giving the numbers the live updates give."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="Count what would be done, and do nothing.")

    def handle(self, *args, dry_run: bool, **options):
        done = ratings_recompute(dry_run=dry_run)
        deleted = (
            f"{done.ratings_deleted} rating{pluralize(done.ratings_deleted)} and "
            f"{done.changes_deleted} change{pluralize(done.changes_deleted)}"
        )
        replayed = f"{done.matches} finished rated match{pluralize(done.matches, 'es')}"
        if dry_run:
            self.stdout.write(f"Would delete {deleted}, and replay {replayed}. Nothing was changed.")
            return
        self.stdout.write(
            f"Deleted {deleted}; replayed {replayed}: {done.ratings} rating{pluralize(done.ratings)}, "
            f"{done.changes} change{pluralize(done.changes)}, in {done.seconds:.1f} s."
        )
