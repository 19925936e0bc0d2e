"""A seat's ``turn_started_at`` becomes ``clock_started_at``: it is set again when a
vacation ends or staff extend the deadline, and reminders count from it."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("games", "0009_status_cancelled")]

    operations = [migrations.RenameField(model_name="seat", old_name="turn_started_at", new_name="clock_started_at")]
