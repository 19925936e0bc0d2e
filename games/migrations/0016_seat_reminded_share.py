"""A seat remembers the highest share of the turn's time whose reminder moment came before
its clock stopped (a vacation) or its deadline moved (staff gave more time): after the
restart only higher shares are reminded of, so half time is not announced twice in a turn.
Seats in play start at 0, as before: their next restart may still repeat a share once."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0015_seat_taken_over_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="reminded_share",
            field=models.PositiveSmallIntegerField(default=0),
        ),
    ]
