"""A seat keeps the steps of its turn that its player may still take back (``Seat.held``)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0026_watch_and_public_match_lists"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="held",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="seat",
            name="held_at",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
    ]
