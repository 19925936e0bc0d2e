"""Matches declined or withdrawn before 9d69b16 have no ``finished_at``: give them the time
of the event that ended them, so that they sort among the finished matches by it."""

from django.db import migrations
from django.db.models import OuterRef, Subquery


def fill_in(apps, schema_editor):
    Match = apps.get_model("games", "Match")
    MatchEvent = apps.get_model("games", "MatchEvent")
    ended = MatchEvent.objects.filter(match=OuterRef("pk"), to_status="aborted").order_by("-created_at")
    Match.objects.filter(status="aborted", finished_at__isnull=True).update(
        finished_at=Subquery(ended.values("created_at")[:1])
    )


class Migration(migrations.Migration):
    dependencies = [("games", "0013_matchevent_ai_level_change")]

    operations = [migrations.RunPython(fill_in, migrations.RunPython.noop)]
