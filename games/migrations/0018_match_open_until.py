from datetime import timedelta

from django.conf import settings
from django.db import migrations, models
from django.utils import timezone


def give_open_matches_their_time(apps, schema_editor):
    """Matches waiting for players when expiry came in get the whole time from now, not from
    when they were created: none is cancelled at the deploy, and invited players are told first."""
    Match = apps.get_model("games", "Match")
    Match.objects.filter(status="open").update(
        open_until=timezone.now() + timedelta(days=settings.OPEN_MATCH_EXPIRY_DAYS)
    )


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0017_notification_kind_more_time_from_staff"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="open_until",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="match",
            name="open_until_told",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(give_open_matches_their_time, migrations.RunPython.noop),
    ]
