"""When the AI took a seat from its player in a match in play: that player hears how the
match ends. Seats taken over before this field existed, in matches still in play, get the
time of the move log's line that says so (by the player's name); a seat without such a
line (a name changed since) stays empty, and its player is not told, as before."""

import itertools
from collections import defaultdict

from django.db import migrations, models

HANDOVERS = ("{name} resigned;", "{name} ran out of time;", "Staff gave {name}'s seat to the AI")
# The column was just added, so the seat table stays locked until the fill-in ends: the seats are read
# in one query, then written this many at a time, with their matches' log lines read in one query.
BATCH = 1000


def fill_in(apps, schema_editor):
    Seat = apps.get_model("games", "Seat")
    MatchEvent = apps.get_model("games", "MatchEvent")
    seats = list(
        Seat.objects.filter(former_user__isnull=False, taken_over_at__isnull=True, match__status="active").values_list(
            "pk", "match_id", "former_user__display_name", "former_user__username"
        )
    )
    for batch in itertools.batched(seats, BATCH):
        lines = defaultdict(list)  # match id: its log lines of seats changing hands, newest first
        for match_id, reason, created_at in (
            MatchEvent.objects.filter(
                match_id__in={match_id for _, match_id, _, _ in batch},
                from_status="active",
                to_status="active",
                ply__isnull=False,
            )
            .order_by("-created_at", "-pk")
            .values_list("match_id", "reason", "created_at")
        ):
            lines[match_id].append((reason, created_at))
        found = []
        for pk, match_id, display_name, username in batch:
            said = tuple(text.format(name=display_name or username) for text in HANDOVERS)
            when = next((at for reason, at in lines[match_id] if reason.startswith(said)), None)
            if when is not None:
                found.append(Seat(pk=pk, taken_over_at=when))
        Seat.objects.bulk_update(found, ["taken_over_at"])


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0014_ended_at_for_declined_and_withdrawn_matches"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="taken_over_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(fill_in, migrations.RunPython.noop),
    ]
