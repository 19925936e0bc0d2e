# Matches already stored stay private (nobody chose to show them); their results count toward the
# ratings as any new match's do unless made casual (ratings' recompute command reads them).

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0024_messages_and_notifications_to_their_apps"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="chat_public",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="match",
            name="public",
            field=models.BooleanField(default=False),
        ),
        migrations.AlterField(
            model_name="match",
            name="public",
            field=models.BooleanField(default=True),
        ),
        migrations.AddField(
            model_name="match",
            name="rated",
            field=models.BooleanField(default=True),
        ),
        migrations.AddField(
            model_name="seat",
            name="timeouts",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="seat",
            name="turns",
            field=models.PositiveIntegerField(default=0),
        ),
    ]
