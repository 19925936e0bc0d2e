# Ratings per pool for players and AI levels, and what each rated match changed (issue 41). They
# start empty: `manage.py recompute_ratings` counts the finished rated matches stored before.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("games", "0025_match_rated_public_and_seat_turns"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Rating",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("pool", models.CharField(max_length=40)),
                ("ai_level", models.PositiveSmallIntegerField(blank=True, null=True)),
                ("mu", models.FloatField()),
                ("sigma", models.FloatField()),
                ("rated_matches", models.PositiveIntegerField(default=0)),
                ("last_played_at", models.DateTimeField(blank=True, null=True)),
                ("value", models.IntegerField()),
                (
                    "user",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="ratings",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="RatingChange",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("seat", models.PositiveSmallIntegerField()),
                ("mu_before", models.FloatField()),
                ("sigma_before", models.FloatField()),
                ("mu_after", models.FloatField()),
                ("sigma_after", models.FloatField()),
                ("value_after", models.IntegerField()),
                ("at", models.DateTimeField()),
                (
                    "match",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="rating_changes", to="games.match"
                    ),
                ),
                (
                    "rating",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="changes", to="ratings.rating"
                    ),
                ),
            ],
        ),
        migrations.AddIndex(
            model_name="rating",
            index=models.Index(
                condition=models.Q(("user__isnull", False)),
                fields=["pool", "-value", "last_played_at"],
                name="rating_leaderboard",
            ),
        ),
        migrations.AddIndex(
            model_name="rating",
            index=models.Index(
                condition=models.Q(("user__isnull", False)), fields=["pool", "last_played_at"], name="rating_active"
            ),
        ),
        migrations.AddConstraint(
            model_name="rating",
            constraint=models.UniqueConstraint(fields=("user", "pool"), name="rating_unique_user_pool"),
        ),
        migrations.AddConstraint(
            model_name="rating",
            constraint=models.UniqueConstraint(fields=("pool", "ai_level"), name="rating_unique_ai_level_pool"),
        ),
        migrations.AddConstraint(
            model_name="rating",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("ai_level__isnull", True), ("user__isnull", False)),
                    models.Q(("ai_level__isnull", False), ("user__isnull", True)),
                    _connector="OR",
                ),
                name="rating_user_or_ai_level",
            ),
        ),
        migrations.AddIndex(
            model_name="ratingchange",
            index=models.Index(fields=["rating", "at"], name="rating_change_history"),
        ),
        migrations.AddConstraint(
            model_name="ratingchange",
            constraint=models.UniqueConstraint(fields=("match", "rating"), name="rating_change_once_per_match"),
        ),
    ]
