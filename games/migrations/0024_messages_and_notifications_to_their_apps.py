# Messages went to the chat app and the outbox to the notifications app (their 0001): their
# tables stay, only the state lets go of them here. The content types move with them, so staff
# keep the permissions they were given ("change message") and the admin's history its links.

from django.db import migrations

MOVED = {"message": "chat", "messagereport": "chat", "notification": "notifications"}


def _move_content_types(apps, moves: dict[str, tuple[str, str]]) -> None:
    content_type = apps.get_model("contenttypes", "ContentType")
    for model, (old_app, new_app) in moves.items():
        old = content_type.objects.filter(app_label=old_app, model=model).first()
        if old is None:  # a new database: Django makes the new app's types after migrating
            continue
        # One made meanwhile (the new app migrated alone) holds only its own fresh permissions.
        content_type.objects.filter(app_label=new_app, model=model).delete()
        old.app_label = new_app
        old.save(update_fields=["app_label"])


def forwards(apps, schema_editor):
    _move_content_types(apps, {model: ("games", app) for model, app in MOVED.items()})


def backwards(apps, schema_editor):
    _move_content_types(apps, {model: (app, "games") for model, app in MOVED.items()})


class Migration(migrations.Migration):
    dependencies = [
        ("chat", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("games", "0023_message_reports"),
        ("notifications", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="Notification"),
                migrations.DeleteModel(name="MessageReport"),
                migrations.DeleteModel(name="Message"),
            ],
            database_operations=[],
        ),
        migrations.RunPython(forwards, backwards),
    ]
