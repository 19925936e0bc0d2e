# Each pool's statistics, one row computed nightly (ratings.statistics, issue 41). It starts empty:
# the page computes a pool's row on its first visit, or `manage.py statistics_refresh` does them all.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="PoolStatistics",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("pool", models.CharField(max_length=40, unique=True)),
                ("computed_at", models.DateTimeField()),
                ("figures", models.JSONField()),
            ],
            options={
                "verbose_name_plural": "pool statistics",
            },
        ),
    ]
