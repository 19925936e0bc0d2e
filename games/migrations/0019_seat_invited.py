"""Whether a seat was offered by the match's creator (an invitation) rather than taken from an
open seat: the daily limit on invitations counts these. Seats of before are marked when their
invitation still waits for an answer (``accepted`` is false only then); an invitation answered
before the upgrade is not told from a joined seat, so the first day's count may miss some."""

from django.db import migrations, models


def fill_in(apps, schema_editor):
    Seat = apps.get_model("games", "Seat")
    Seat.objects.filter(accepted=False).update(invited=True)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0018_match_open_until"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="invited",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(fill_in, migrations.RunPython.noop),
    ]
