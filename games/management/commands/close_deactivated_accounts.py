"""Do for accounts deactivated before closing an account settled its matches what closing one
does now (``accounts.services.user_deactivate``): every match still waiting for players that
such a player created, joined or was invited to is cancelled, the others in it told why, and in
every match in play the AI takes their seat. Safe to run again: a second run finds nothing."""

from __future__ import annotations

from collections import Counter

from django.core.management.base import BaseCommand, CommandError
from django.template.defaultfilters import pluralize

from accounts.models import User
from accounts.services import user_deactivate
from games.models import Seat, Status

NOTHING = "No match waits for a deactivated player."


class Command(BaseCommand):
    help = (
        "Cancel the matches still waiting for players that deactivated players created, joined or were "
        "invited to, and give their seats in matches in play to the AI, as deactivating an account does now."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="Say what would be done, and do nothing.")

    def handle(self, *args, dry_run: bool, **options):
        seats = Seat.objects.filter(user__is_active=False, match__status__in=[Status.OPEN, Status.ACTIVE]).values_list(
            "user_id", "match__status"
        )
        waiting: dict[int, Counter] = {}
        for user_id, status in seats:
            waiting.setdefault(user_id, Counter())[status] += 1
        if not waiting:
            self.stdout.write(NOTHING)
            return
        failed = []
        for user in User.objects.filter(pk__in=waiting).order_by("pk"):
            what = _what(waiting[user.pk], dry_run=dry_run)
            if dry_run:
                self.stdout.write(f"{user.public_name} (#{user.pk}): would {what}.")
                continue
            try:
                user_deactivate(user_id=user.pk, actor=None)
            except Exception as error:  # one player's matches (a lock held too long) do not stop the others'
                failed.append(user.public_name)
                self.stderr.write(f"{user.public_name} (#{user.pk}): failed, nothing changed: {error}")
            else:
                self.stdout.write(f"{user.public_name} (#{user.pk}): {what}.")
        if failed:
            raise CommandError(f"Not done for {', '.join(failed)}: run the command again.")


def _what(statuses: Counter, *, dry_run: bool) -> str:
    open_, active = statuses[Status.OPEN], statuses[Status.ACTIVE]
    parts = []
    if open_:
        parts.append(
            f"{'cancel' if dry_run else 'cancelled'} {open_} match{pluralize(open_, 'es')} waiting for players"
        )
    if active:
        parts.append(f"{'give' if dry_run else 'gave'} the AI {active} seat{pluralize(active)} in play")
    return " and ".join(parts)
