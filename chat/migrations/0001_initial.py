# The messages' tables were made by the games app (0021, 0023) and stay as they are: only Django's
# idea of which app holds the models moves (games 0024 lets go of them).

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("games", "0023_message_reports"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Message",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("text", models.TextField()),
                        (
                            "after_move",
                            models.PositiveIntegerField(
                                help_text="The match's version (moves played) when it was written."
                            ),
                        ),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "hidden",
                            models.BooleanField(
                                default=False,
                                help_text="Removed by staff: the match page shows its author and time, not its text.",
                            ),
                        ),
                        (
                            "author",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="match_messages",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "match",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="messages", to="games.match"
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_message",
                        "indexes": [models.Index(fields=["match", "-id"], name="message_latest")],
                    },
                ),
                migrations.CreateModel(
                    name="MessageReport",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("reason", models.CharField(blank=True, max_length=200)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("staff_told_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "message",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="reports", to="chat.message"
                            ),
                        ),
                        (
                            "reporter",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="message_reports",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_messagereport",
                        "constraints": [
                            models.UniqueConstraint(fields=("message", "reporter"), name="one_report_per_reporter")
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
