"""``Match.open_to_all``: created with a seat for anyone. Existing matches count as such
when a seat is still free or someone joined one ("… took seat N.")."""

from django.db import migrations, models


def mark_open_challenges(apps, schema_editor):
    Match = apps.get_model("games", "Match")
    free_seat = models.Q(seats__user__isnull=True, seats__ai_level__isnull=True)
    joined = models.Q(events__reason__contains=" took seat ")
    Match.objects.filter(free_seat | joined).update(open_to_all=True)


class Migration(migrations.Migration):
    dependencies = [("games", "0010_seat_clock_started_at")]

    operations = [
        migrations.AddField(model_name="match", name="open_to_all", field=models.BooleanField(default=False)),
        migrations.RunPython(mark_open_challenges, migrations.RunPython.noop),
    ]
