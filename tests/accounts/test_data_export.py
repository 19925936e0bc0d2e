"""Download my data (/accounts/profile/data/): a JSON file of what the site keeps about the
player (GDPR's data portability), their account, their matches with the move log as their own
match page shows it, and the notifications sent them. Nothing another player may hide (a
Mesopotamia marker or card, the seed, the stored state) and nothing of another player's own
(their address, their webhook, their notifications). Its cost in queries does not grow with
the number of matches or moves."""

from __future__ import annotations

import json
import random
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from chat import services as chat_services
from chat.models import Message, MessageReport
from games import services
from games.engine import get_game
from games.models import Match, MoveRecord, Status
from games.services import SeatSpec, creating
from notifications.models import Notification
from tests.conftest import make_user, signed_in, start_match
from tests.games.conftest import play_random_moves
from tests.games.test_secrets import SEEDS, choose, forbidden, secret_moment

DATA = reverse("account_data")
JEEXA_RESIGNED = "Alice resigned; the AI plays on."


def download(user) -> tuple[dict, str]:
    response = signed_in(user).get(DATA)
    assert response.status_code == 200
    text = b"".join(response.streaming_content).decode()
    return json.loads(text), text


def started(game: str, creator, *others, options=None) -> Match:
    seats = [SeatSpec("creator"), *(SeatSpec("user", username=user.username) for user in others)]
    match = services.match_create(creator=creator, game_slug=game, options=options or {}, seats=seats)
    for user in others:
        services.match_accept(match_id=match.pk, user=user)
    match.refresh_from_db()
    return match


def keys_of(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {key for item in value.values() for key in keys_of(item)}
    if isinstance(value, list):
        return {key for item in value for key in keys_of(item)}
    return set()


@pytest.fixture
def ai_moves(monkeypatch):
    """AI moves are not published to Celery: a test plays the seats it needs itself."""
    from games import tasks

    monkeypatch.setattr(tasks, "enqueue_ai_move", lambda *args: None)
    monkeypatch.setattr(tasks, "enqueue_ai_move_alone", lambda *args: None)


# --- who may have it, and how it comes ------------------------------------------------------------------------------


def test_a_visitor_is_asked_to_sign_in(client, db):
    response = client.get(DATA)
    assert response.status_code == 302 and response["Location"].startswith(reverse("account_login"))


def test_it_is_a_json_file_named_for_the_player_and_the_day_never_cached(alice):
    response = signed_in(alice).get(DATA)
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "application/json; charset=utf-8"
    day = timezone.now().astimezone(alice.zone).date().isoformat()
    assert response["Content-Disposition"] == f'attachment; filename="boardgames-alice-{day}.json"'
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]
    json.loads(b"".join(response.streaming_content))


def test_a_username_in_any_script_names_the_file_as_browsers_read_it(db):
    helene = make_user("hélène")
    disposition = signed_in(helene).get(DATA)["Content-Disposition"]
    assert disposition.startswith("attachment; filename*=utf-8''boardgames-h%C3%A9l%C3%A8ne-")


def test_it_is_a_get_link_on_the_profile(alice):
    page = signed_in(alice).get(reverse("profile")).content.decode()
    assert f'href="{DATA}"' in page and "Download my data" in page
    assert signed_in(alice).post(DATA).status_code == 405


def test_five_downloads_in_ten_minutes_then_a_page_that_says_to_wait(alice):
    client = signed_in(alice)
    for _ in range(5):
        assert client.get(DATA).status_code == 200
    refused = client.get(DATA)
    assert refused.status_code == 429 and "Too many tries" in refused.content.decode()
    assert "no-store" in refused["Cache-Control"]


def test_the_ten_minutes_count_from_the_first_download_not_the_last(alice, monkeypatch):
    """The database cache's ``incr`` wrote the count back with its 5-minute default: 5 minutes and a
    second after the last download the count was gone."""
    start = timezone.now()
    monkeypatch.setattr(timezone, "now", lambda: start)
    client = signed_in(alice)
    for _ in range(5):
        assert client.get(DATA).status_code == 200
    monkeypatch.setattr(timezone, "now", lambda: start + timedelta(seconds=301))
    assert client.get(DATA).status_code == 429
    monkeypatch.setattr(timezone, "now", lambda: start + timedelta(seconds=601))
    assert client.get(DATA).status_code == 200


def test_the_close_page_suggests_downloading_it_first(alice):
    page = signed_in(alice).get(reverse("account_close")).content.decode()
    assert f'href="{DATA}"' in page and "download your data" in page


# --- the account ------------------------------------------------------------------------------------------------------


def test_the_account_has_every_setting_address_and_the_vacation(alice, bob):
    from allauth.account.models import EmailAddress

    EmailAddress.objects.create(user=alice, email="alice.work@example.com", verified=False, primary=False)
    alice.time_zone, alice.turn_notice, alice.digest_hour, alice.reminders = "Europe/Paris", "digest", 19, "50,80,95"
    alice.webhook_url, alice.message_emails = "https://discord.com/api/webhooks/1/alice-secret", False
    alice.confirm_moves = True
    alice.last_login = timezone.now()
    alice.save()
    services.vacation_start(user_id=alice.pk, days=3)
    alice.refresh_from_db()

    account = download(alice)[0]["account"]

    assert account["username"] == "alice" and account["display_name"] == "Alice"
    assert account["email_addresses"] == [
        {"address": "alice@example.com", "verified": True, "primary": True},
        {"address": "alice.work@example.com", "verified": False, "primary": False},
    ]
    assert account["date_joined"] == alice.date_joined.isoformat()
    assert account["last_login"] == alice.last_login.isoformat()
    assert account["time_zone"] == "Europe/Paris"
    assert account["confirm_each_move"] is True
    assert account["notification_settings"] == {
        "when_it_is_my_turn": "digest",
        "digest_hour": 19,
        "reminders_at_percent": [50, 80, 95],
        "email_me_when_another_player_writes": False,
        "webhook_url": "https://discord.com/api/webhooks/1/alice-secret",
    }
    vacation = account["vacation"]
    assert vacation["on_vacation_until"] == alice.vacation_until.isoformat()
    assert vacation["started_at"] == alice.vacation_started_at.isoformat()
    assert vacation["days_used_this_year"] == 3 and vacation["days_left_this_year"] == 27


def test_the_notifications_are_theirs_of_the_kept_days(settings, alice, bob, ai_moves):
    match = start_match(alice, bob)
    old = Notification.objects.create(
        user=alice, match=match, kind="reminder", subject="Long ago", body="…", sent_at=timezone.now(), outcome="sent"
    )
    Notification.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=91))
    Notification.objects.create(
        user=alice,
        match=match,
        kind="match_over",
        subject="Skipped one",
        body="…",
        sent_at=timezone.now(),
        outcome="skipped",
    )
    Notification.objects.create(user=bob, match=match, kind="your_turn", subject="Bob's own", body="…")

    data, text = download(alice)

    kept = {note["subject"]: note for note in data["notifications"]}
    assert "Long ago" not in kept and "Bob's own" not in text
    assert kept["Skipped one"]["kind"] == "match_over" and kept["Skipped one"]["status"] == "skipped"
    assert set(kept["Skipped one"]) == {
        "kind",
        "channel",
        "subject",
        "match",
        "created_at",
        "due_at",
        "status",
        "done_at",
    }
    mine = Notification.objects.filter(user=alice, created_at__gte=timezone.now() - timedelta(days=90))
    assert len(kept) == mine.count()


# --- the matches ------------------------------------------------------------------------------------------------------


@pytest.fixture
def alices_games(alice, bob, carol, ai_moves):
    """A match of every game with moves in it, one Alice left to the AI, and one she has no part in."""
    rng = random.Random(7)
    matches = {
        "mancala": started("mancala", alice, bob, options={"variant": "kalah"}),
        "mecca": started("mecca", alice, bob),
        "jeexa": started("jeexa", alice, bob, carol),
        "mesopotamia": started("mesopotamia", alice, bob),
    }
    for match in matches.values():
        players = [seat.user for seat in match.seats.order_by("number")]
        play_random_moves(match, players, rng, limit=12)
    services.match_resign(match_id=matches["jeexa"].pk, user=alice)
    others = start_match(bob, carol)
    return matches, others


def test_every_match_of_theirs_with_its_seats_and_move_log(alice, alices_games):
    matches, others = alices_games
    data = download(alice)[0]

    by_id = {entry["id"]: entry for entry in data["matches"]}
    assert set(by_id) == {match.pk for match in matches.values()}
    assert others.pk not in by_id
    mancala = by_id[matches["mancala"].pk]
    assert mancala["game"] == "mancala" and mancala["name"] == f"Mancala #{matches['mancala'].pk}"
    assert mancala["options"] == {"variant": "kalah"} and mancala["status"] == "active"
    assert mancala["your_seat"] == {"number": 1, "colour": None, "seated": True, "ai_took_it_at": None}
    assert [seat["name"] for seat in mancala["seats"]] == ["Alice", "Bob"]
    records = list(MoveRecord.objects.filter(match=matches["mancala"]).order_by("ply"))
    assert [(move["number"], move["seat"], move["description"]) for move in mancala["moves"]] == [
        (record.ply + 1, record.seat + 1, record.description) for record in records
    ]
    assert mancala["moves"][0]["at"] == records[0].created_at.isoformat()
    assert [move.get("notation") for move in mancala["moves"]] == [
        record.notation if record.seat == 0 else None for record in records
    ]  # her own moves, as she made them

    mecca = by_id[matches["mecca"].pk]
    assert mecca["your_seat"]["colour"] == "Yellow and Green"
    assert [seat["colour"] for seat in mecca["seats"]] == ["Yellow and Green", "Red and Blue"]
    seat_list = signed_in(alice).get(reverse("match_detail", args=[mecca["id"]])).content.decode()
    assert "Player 1 · Yellow and Green" in seat_list and "Player 2 · Red and Blue" in seat_list

    jeexa = by_id[matches["jeexa"].pk]
    assert jeexa["your_seat"]["seated"] is False and jeexa["your_seat"]["ai_took_it_at"]
    assert jeexa["seats"][0]["replacing"] == "Alice" and jeexa["seats"][0]["name"].startswith("AI (")
    assert [event["text"] for event in jeexa["log_events"]] == [JEEXA_RESIGNED]


def test_a_finished_match_says_who_won_and_how_it_went_for_them(alice, bob, ai_moves):
    match = start_match(alice, bob)
    services.match_resign(match_id=match.pk, user=bob)

    entry = download(alice)[0]["matches"][0]

    assert entry["status"] == "finished" and entry["finished_at"]
    assert entry["result"] == {"winners": ["Alice"], "scores": [], "reason": "Bob resigned"}
    assert entry["your_result"] == "won"


def test_no_raw_state_seed_or_other_players_data(alice, bob, carol, alices_games):
    from allauth.account.models import EmailAddress

    bob.webhook_url = "https://discord.com/api/webhooks/2/bob-secret"
    bob.save()
    EmailAddress.objects.create(user=bob, email="bob.second@example.com", verified=True, primary=False)
    data, text = download(alice)

    assert not keys_of(data) & {"state", "seed", "password", "last_seen_at", "body"}
    for match in Match.objects.all():
        assert str(match.seed) not in text
    for secret in ("bob@example.com", "bob.second@example.com", "bob-secret", "carol@example.com", "pbkdf2", "md5$"):
        assert secret not in text


def test_a_mesopotamia_export_hides_the_other_players_markers_cards_and_deck(monkeypatch, alice, bob, ai_moves):
    """As tests/games/test_secrets.py checks the pages: none of Bob's hidden markers or cards (their
    ids), the seed, the deck or stack order, nor the notation of his moves that names a hidden
    offering ("hut 3 5"), taken at a moment when Bob has some face down."""
    game = get_game("mesopotamia")
    monkeypatch.setattr(creating, "new_seed", lambda: SEEDS[2])
    match = started("mesopotamia", alice, bob)
    users, rng = [alice, bob], random.Random(SEEDS[2])
    bobs_secret_moves = []
    while len(bobs_secret_moves) < 2:
        match.refresh_from_db()
        state = game.load(match.state)
        assert not game.is_over(state) and match.version < 600, "Bob never hid an offering"
        seat = game.to_act(state)[0]
        move = choose(rng, state, seat, finishing=False)
        services.move_submit(match_id=match.pk, user=users[seat], move=move, expected_version=match.version)
        if seat == 1 and secret_moment(move):
            bobs_secret_moves.append(MoveRecord.objects.get(match=match, ply=match.version).notation)
    match.refresh_from_db()
    state = game.load(match.state)
    assert game.secrets(state, 1)

    data, text = download(alice)

    leaked = sorted(secret for secret in forbidden(state, 0, match.seed) if secret in text)
    assert not leaked
    for notation in bobs_secret_moves:
        assert f'"{notation}"' not in text
    assert not keys_of(data) & {"deck", "stack", "stack_order", "deck_order", "hand", "offerings", "cards"}
    entry = data["matches"][0]
    assert all("notation" not in move for move in entry["moves"] if move["seat"] == 2)
    assert [move["description"] for move in entry["moves"]] == list(
        MoveRecord.objects.filter(match=match).order_by("ply").values_list("description", flat=True)
    )


# --- its cost ---------------------------------------------------------------------------------------------------------


def queries(user) -> int:
    client = signed_in(user)
    cache.clear()  # the download limit's count: a new one costs other queries than one that goes on
    with CaptureQueriesContext(connection) as captured:
        response = client.get(DATA)
        b"".join(response.streaming_content)
    return len(captured.captured_queries)


def test_it_costs_the_same_queries_for_2_matches_as_for_20(alice, bob, carol, ai_moves):
    rng = random.Random(3)

    def play(count: int) -> None:
        for number in range(count):
            match = start_match(alice, bob) if number % 2 else started("jeexa", alice, bob, carol)
            play_random_moves(match, [seat.user for seat in match.seats.order_by("number")], rng, limit=6)
            Notification.objects.create(user=alice, match=match, kind="your_turn", subject="Your turn", body="…")
            Message.objects.create(match=match, author=alice, text="gg", after_move=0)
            if number % 3 == 0:
                services.match_resign(match_id=match.pk, user=alice)

    play(2)
    few = queries(alice)
    play(18)

    assert Match.objects.filter(status=Status.FINISHED).exists()
    assert queries(alice) == few


def test_the_messages_they_wrote_and_no_one_else_s(alice, bob, carol):
    match = start_match(alice, bob)
    services.move_submit(match_id=match.pk, user=alice, move="1", expected_version=0)
    chat_services.message_post(match_id=match.pk, user=alice, text="good luck")
    chat_services.message_post(match_id=match.pk, user=bob, text="bob's own words")
    rude = chat_services.message_post(match_id=match.pk, user=alice, text="rude\nwords")
    chat_services.message_hide(message_id=rude.pk, hidden=True)
    other = start_match(bob, carol)
    chat_services.message_post(match_id=other.pk, user=carol, text="carol's own words")

    data, text = download(alice)

    assert [(m["match"], m["after_move"], m["text"], m["removed_by_staff"]) for m in data["messages"]] == [
        (match.pk, 1, "good luck", False),
        (match.pk, 1, "rude\nwords", True),
    ]
    assert data["messages"][0]["at"] == Message.objects.get(text="good luck").created_at.isoformat()
    assert "bob's own words" not in text and "carol's own words" not in text
    assert download(carol)[0]["messages"][0]["text"] == "carol's own words"
    assert download(make_user("dora"))[0]["messages"] == []


def test_the_messages_they_reported_with_their_reason_and_not_the_others_reports(alice, bob, carol):
    match = start_match(alice, bob)
    rude = chat_services.message_post(match_id=match.pk, user=bob, text="rude words")
    chat_services.message_report(message_id=rude.pk, match_id=match.pk, user=alice, reason="insults")

    data = download(alice)[0]

    assert [(r["match"], r["message"], r["reason"]) for r in data["reports"]] == [(match.pk, rude.pk, "insults")]
    assert data["reports"][0]["at"] == MessageReport.objects.get().created_at.isoformat()
    assert download(bob)[0]["reports"] == [] and "insults" not in download(bob)[1]  # who reported them: never
