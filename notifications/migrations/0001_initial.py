# The outbox's table was made by the games app (0002 onwards) and stays as it is: only Django's
# idea of which app holds the model moves (games 0024 lets go of it).

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import games.models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("chat", "0001_initial"),
        ("games", "0023_message_reports"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Notification",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "kind",
                            models.CharField(
                                choices=[
                                    ("your_turn", "Your turn"),
                                    ("match_over", "Match over"),
                                    ("invitation", "Invitation"),
                                    ("reminder", "Reminder before the clock runs out"),
                                    ("timeout", "Time ran out"),
                                    ("seat_taken", "Seat given to the AI"),
                                    ("extension", "More time from staff"),
                                    ("digest", "Daily digest"),
                                    ("message", "New message"),
                                ],
                                max_length=20,
                            ),
                        ),
                        ("subject", models.CharField(max_length=200)),
                        ("body", models.TextField()),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("claimed_until", models.DateTimeField(blank=True, null=True)),
                        ("sent_at", models.DateTimeField(blank=True, null=True)),
                        ("attempts", models.PositiveSmallIntegerField(default=0)),
                        ("last_error", models.CharField(blank=True, max_length=300)),
                        (
                            "match",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="notifications",
                                to="games.match",
                            ),
                        ),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="notifications",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "channel",
                            models.CharField(
                                choices=[("email", "Email"), ("webhook", "Webhook")], default="email", max_length=8
                            ),
                        ),
                        (
                            "due_at",
                            models.DateTimeField(default=games.models.now, help_text="Not sent before this time."),
                        ),
                        (
                            "outcome",
                            models.CharField(
                                blank=True,
                                choices=[
                                    ("", "Pending"),
                                    ("sent", "Sent"),
                                    ("skipped", "Not needed any more"),
                                    ("failed", "Failed for good"),
                                ],
                                default="",
                                max_length=8,
                            ),
                        ),
                        (
                            "resent_from",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to="notifications.notification",
                            ),
                        ),
                        (
                            "first_message",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to="chat.message",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_notification",
                        "ordering": ["-created_at"],
                        "indexes": [
                            models.Index(
                                condition=models.Q(("sent_at__isnull", True)),
                                fields=["due_at"],
                                name="notification_due",
                            ),
                            models.Index(fields=["-created_at"], name="notification_newest"),
                        ],
                        "constraints": [
                            models.UniqueConstraint(
                                condition=models.Q(
                                    ("kind", "digest"), ("resent_from__isnull", True), ("sent_at__isnull", True)
                                ),
                                fields=("user", "channel"),
                                name="notification_one_pending_digest",
                            ),
                            models.UniqueConstraint(
                                condition=models.Q(
                                    ("kind", "message"), ("resent_from__isnull", True), ("sent_at__isnull", True)
                                ),
                                fields=("user", "match", "channel"),
                                name="notification_one_pending_message",
                            ),
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
