"""When the AI took a seat from its player in a match in play: that player hears how the
match ends. Seats taken over before this field existed, in matches still in play, get the
time of the move log's line that says so (by the player's name); a seat without such a
line (a name changed since) stays empty, and its player is not told, as before."""

from django.db import migrations, models

HANDOVERS = ("{name} resigned;", "{name} ran out of time;", "Staff gave {name}'s seat to the AI")


def fill_in(apps, schema_editor):
    Seat = apps.get_model("games", "Seat")
    MatchEvent = apps.get_model("games", "MatchEvent")
    seats = Seat.objects.filter(former_user__isnull=False, taken_over_at__isnull=True,
                                match__status="active").select_related("former_user")
    for seat in seats:
        user = seat.former_user
        name = user.display_name or user.username
        events = MatchEvent.objects.filter(match_id=seat.match_id, from_status="active", to_status="active",
                                           ply__isnull=False).order_by("-created_at", "-pk")
        event = next((event for event in events
                      if event.reason.startswith(tuple(text.format(name=name) for text in HANDOVERS))), None)
        if event is not None:
            seat.taken_over_at = event.created_at
            seat.save(update_fields=["taken_over_at"])


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
