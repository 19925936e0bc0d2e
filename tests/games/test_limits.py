"""What one player may ask of the others: matches waiting for players (the lobby is everyone's)
and invitations (each one is an email). See settings.OPEN_MATCHES_PER_PLAYER and the next two."""

from __future__ import annotations

import re
from importlib import import_module

import pytest
from django.apps import apps
from django.conf import settings
from django.core import mail
from django.urls import reverse

from games import services
from games.models import Match, Seat, Status
from games.selectors import LOBBY_SHOWN, LOBBY_SHOWN_PER_CREATOR
from games.services import SeatSpec, creating
from notifications.models import Notification
from tests.conftest import make_user, start_match
from tests.games.conftest import count_queries
from tests.games.test_race import hold_the_lock_longer, require_postgresql, run_together
from tests.notifications.conftest import sweep

OPEN = [SeatSpec("creator"), SeatSpec("open")]
AGAINST_AI = [SeatSpec("creator"), SeatSpec("ai", ai_level=1)]


def create(creator, seats, game="mancala"):
    return services.match_create(creator=creator, game_slug=game, options={}, seats=seats)


def inviting(*users):
    return [SeatSpec("creator"), *(SeatSpec("user", username=user.username) for user in users)]


def stored():
    return Match.objects.count(), Seat.objects.count(), Notification.objects.count()


def test_a_player_with_as_many_matches_waiting_as_allowed_may_start_no_other_until_one_goes(alice, bob):
    """Open challenges and unanswered invitations both wait for players; a match against the AI alone does not."""
    most = settings.OPEN_MATCHES_PER_PLAYER
    waiting = [create(alice, OPEN) for _ in range(most - 1)] + [create(alice, inviting(bob))]
    before = stored()
    for seats in (OPEN, inviting(bob)):
        with pytest.raises(services.ServiceError) as refused:
            create(alice, seats)
        assert refused.value.message == (
            f"You already have {most} matches waiting for players, the most one player may have at once. "
            "Cancel one of them (on its page), or wait until players join them, before you start another. "
            "A match against the AI alone starts at once, so you may start one of those."
        )
    assert stored() == before, "nothing stored, no invitation written"

    assert create(alice, AGAINST_AI).status == Status.ACTIVE, "a match against the AI is not limited"
    assert create(bob, OPEN).status == Status.OPEN, "another player is not limited by Alice's"
    services.match_join(match_id=waiting[0].pk, user=bob)  # a player joined: one fewer waits
    assert create(alice, OPEN).status == Status.OPEN
    services.match_cancel(match_id=waiting[1].pk, user=alice)  # or she cancels one
    assert create(alice, OPEN).status == Status.OPEN


def test_the_new_match_form_says_why_a_player_with_too_many_matches_waiting_may_start_none(client, alice, settings):
    settings.OPEN_MATCHES_PER_PLAYER = 1
    create(alice, OPEN)
    client.force_login(alice)
    response = client.post(
        reverse("match_new", args=["mancala"]), {"option_variant": "egyptian", "position": "first", "seat_1": "open"}
    )
    assert response.status_code == 400
    assert "You already have 1 matches waiting for players" in response.content.decode()
    assert Match.objects.count() == 1


def test_staff_are_not_limited(staff, bob, settings):
    """Staff can do far more from the admin; they may set up many matches for an event."""
    settings.OPEN_MATCHES_PER_PLAYER = settings.PENDING_INVITATIONS_TO_ONE_PLAYER = settings.INVITATIONS_PER_DAY = 1
    for _ in range(3):
        create(staff, OPEN)
        create(staff, inviting(bob))
    assert Match.objects.filter(created_by=staff, status=Status.OPEN).count() == 6


@pytest.mark.django_db(transaction=True)
def test_two_matches_sent_at_once_cannot_both_take_the_last_place(alice, monkeypatch, settings):
    """Two tabs (or a script) sending at once: each counted 19 waiting before the other's was stored."""
    require_postgresql()
    settings.OPEN_MATCHES_PER_PLAYER = 3
    create(alice, OPEN)
    create(alice, OPEN)
    hold_the_lock_longer(monkeypatch, (creating, "clock_fields"))  # called after the count, before the match is stored

    results = run_together(lambda: create(alice, OPEN), lambda: create(alice, OPEN))

    assert sorted(type(result).__name__ for result in results) == ["Match", "ServiceError"], results
    assert Match.objects.filter(created_by=alice, status=Status.OPEN).count() == 3


def test_a_player_may_not_keep_more_invitations_waiting_for_the_same_player(clock, client, alice, bob, carol):
    most = settings.PENDING_INVITATIONS_TO_ONE_PLAYER
    waiting = [create(alice, inviting(bob)) for _ in range(most)]
    sweep(clock)
    assert len([m for m in mail.outbox if m.to == [bob.email]]) == most
    mail.outbox.clear()
    before = stored()

    with pytest.raises(services.ServiceError) as refused:
        create(alice, inviting(carol, bob), game="jeexa")
    assert refused.value.message == (
        f"“Bob” has {most} of your invitations still to answer, the most one player may have from another at once. "
        "Wait for their answers, or cancel one of those matches, before you invite them again."
    )
    assert stored() == before
    sweep(clock)
    assert mail.outbox == [], "no email to Bob, nor to Carol invited beside him"

    client.force_login(alice)  # the new-match form says so beside the name
    page = client.post(
        reverse("match_new", args=["mancala"]),
        {"option_variant": "egyptian", "position": "first", "seat_1": "invite", "invite_1": "Bob"},
    )
    assert page.status_code == 400 and "“Bob” has 3 of your invitations still to answer" in page.content.decode()
    assert stored() == before

    assert create(alice, inviting(carol)).status == Status.OPEN, "another player may be invited"
    assert create(carol, inviting(bob)).status == Status.OPEN, "another player may invite Bob"
    services.match_accept(match_id=waiting[0].pk, user=bob)  # an answer frees a place
    create(alice, inviting(bob))
    services.match_decline(match_id=waiting[1].pk, user=bob)
    create(alice, inviting(bob))


def test_a_player_may_send_only_so_many_invitations_a_day(clock, alice, bob, carol, settings):
    """Answered ones count too: each was an email. A day later they may invite again."""
    settings.INVITATIONS_PER_DAY = 4
    dave, erin = make_user("dave"), make_user("erin")
    start_match(alice, bob)
    start_match(alice, carol)
    create(alice, inviting(dave))
    before = stored()

    with pytest.raises(services.ServiceError) as refused:
        create(alice, inviting(bob, carol), game="jeexa")
    assert refused.value.message == (
        "You sent 3 invitations in the last 24 hours and this match would send 2 more: one player may send at most "
        "4 a day. Leave seats open for anyone to join instead, or invite again tomorrow."
    )
    assert stored() == before

    create(alice, inviting(erin))  # the fourth
    with pytest.raises(services.ServiceError, match="You sent 4 invitations in the last 24 hours"):
        create(alice, inviting(bob))
    assert create(alice, OPEN).status == Status.OPEN, "an open challenge invites nobody"
    assert create(bob, inviting(alice)).status == Status.OPEN, "Bob's invitations are his own"
    clock.advance(days=1, seconds=1)
    assert create(alice, inviting(bob, carol), game="jeexa").status == Status.OPEN


def test_a_rematch_that_invites_counts_as_an_invitation(client, alice, bob, settings):
    settings.PENDING_INVITATIONS_TO_ONE_PLAYER = 1
    played = start_match(alice, bob)
    services.match_resign(match_id=played.pk, user=bob)
    create(alice, inviting(bob))  # Bob has not answered this one yet
    before = stored()

    client.force_login(alice)
    page = client.post(reverse("match_rematch", args=[played.pk]))
    assert page.status_code == 400
    assert "“Bob” has 1 of your invitations still to answer" in page.content.decode()
    assert stored() == before

    client.force_login(bob)  # Bob asking for it invites Alice, who has none of his waiting
    assert client.post(reverse("match_rematch", args=[played.pk])).status_code == 302
    assert Match.objects.get(rematch_of=played).created_by == bob


def test_a_match_stored_marks_its_invitations_and_not_its_joined_seats(alice, bob, carol):
    match = create(alice, [*inviting(bob), SeatSpec("open")], game="jeexa")
    services.match_join(match_id=match.pk, user=carol)
    assert {seat.user: seat.invited for seat in match.seats.all()} == {alice: False, bob: True, carol: False}


def test_the_lobby_lists_the_newest_challenges_only_however_many_players_post(client, carol):
    """A flood of challenges from many players makes no longer page and no more queries."""
    many = LOBBY_SHOWN // LOBBY_SHOWN_PER_CREATOR + 1  # none has more than the few of theirs shown
    players = [make_user(f"poster{n}") for n in range(many)]
    posted = [create(players[n % many], OPEN).pk for n in range(2)]
    client.force_login(carol)
    few = count_queries(client, "get", reverse("lobby"))
    assert "older ones may be waiting too" not in client.get(reverse("lobby")).content.decode()
    posted += [create(players[n % many], OPEN).pk for n in range(LOBBY_SHOWN + 3)]

    assert count_queries(client, "get", reverse("lobby")) == few
    page = client.get(reverse("lobby")).content.decode()
    assert lobby_list(page) == posted[::-1][:LOBBY_SHOWN]
    assert (
        f"The newest {LOBBY_SHOWN} are listed, at most {LOBBY_SHOWN_PER_CREATOR} of any one player's; "
        "older ones may be waiting too."
    ) in page


def lobby_list(page):
    return [int(pk) for pk in re.findall(r"Mancala #(\d+)<", page)]


def test_players_at_the_cap_do_not_fill_the_lobby(client, settings, carol):
    """Three players with as many challenges as allowed, posted after five others' one each: the
    lobby shows the newest few of each of the three, and every other's, in as many queries."""
    others = [create(make_user(f"other{n}"), OPEN).pk for n in range(5)]
    client.force_login(carol)
    few = count_queries(client, "get", reverse("lobby"))
    assert "older ones may be waiting too" not in client.get(reverse("lobby")).content.decode()
    many = {make_user(f"many{n}"): [] for n in range(3)}
    for _ in range(settings.OPEN_MATCHES_PER_PLAYER):
        for player, posted in many.items():
            posted.append(create(player, OPEN).pk)

    assert count_queries(client, "get", reverse("lobby")) == few
    page = client.get(reverse("lobby")).content.decode()
    shown = lobby_list(page)
    for posted in many.values():
        assert [pk for pk in shown if pk in posted] == posted[::-1][:LOBBY_SHOWN_PER_CREATOR], "their newest few"
    assert set(others) <= set(shown), "every other player's challenge is listed"
    assert len(shown) == 3 * LOBBY_SHOWN_PER_CREATOR + len(others) and shown == sorted(shown, reverse=True)
    assert (
        f"The newest {len(shown)} are listed, at most {LOBBY_SHOWN_PER_CREATOR} of any one player's; "
        "older ones may be waiting too."
    ) in page


def test_the_lobby_is_full_when_every_player_posts_as_many_as_allowed(client, settings, carol):
    """One player's challenges after another's: the lobby still lists as many as it may."""
    settings.OPEN_MATCHES_PER_PLAYER = 2 * LOBBY_SHOWN_PER_CREATOR
    players = [make_user(f"full{n}") for n in range(LOBBY_SHOWN // LOBBY_SHOWN_PER_CREATOR + 2)]
    posted = [(player, create(player, OPEN).pk) for player in players for _ in range(settings.OPEN_MATCHES_PER_PLAYER)]
    client.force_login(carol)

    theirs = {player: [pk for who, pk in posted if who == player][::-1] for player in players}
    newest = sorted((pk for pks in theirs.values() for pk in pks[:LOBBY_SHOWN_PER_CREATOR]), reverse=True)
    assert lobby_list(client.get(reverse("lobby")).content.decode()) == newest[:LOBBY_SHOWN]


def test_upgrading_marks_the_invitations_still_waiting(alice, bob, carol):
    waiting = create(alice, inviting(bob))
    answered = start_match(alice, carol)
    Seat.objects.update(invited=False)  # as the site wrote them before

    import_module("games.migrations.0019_seat_invited").fill_in(apps, None)

    assert set(Seat.objects.filter(invited=True).values_list("match", "user")) == {(waiting.pk, bob.pk)}
    assert answered.seats.filter(invited=True).count() == 0, "an answered invitation is not told from a joined seat"


def test_a_match_sent_while_its_creator_closes_their_account_is_not_made(alice, bob):
    """The account closed between the page and the create (its row locked since): the match would
    have waited for a player nobody can ever hear from, its creator's matches already settled."""
    User = type(alice)
    User.objects.filter(pk=alice.pk).update(is_active=False)  # the request still holds the signed-in user
    before = stored()
    for seats in (OPEN, inviting(bob)):
        with pytest.raises(services.ServiceError, match=re.escape(creating.CREATOR_CLOSED)):
            create(alice, seats)
    assert stored() == before


def test_a_player_may_have_only_so_many_matches_against_the_ai_alone_in_play(alice, bob, staff, settings):
    """Twelve eight-seat Jeexa matches of seven Strong AIs each, made in 3 s, took the workers 755 s."""
    settings.AI_ONLY_MATCHES_PER_PLAYER = 2
    first, _second = create(alice, AGAINST_AI), create(alice, AGAINST_AI)
    before = Match.objects.count()

    with pytest.raises(services.ServiceError) as refused:
        create(alice, AGAINST_AI)

    assert refused.value.message == creating.TOO_MANY_AGAINST_THE_AI.format(count=2)
    assert Match.objects.count() == before, "nothing stored"
    assert create(alice, inviting(bob)).status == Status.OPEN, "a match with a person is another matter"
    assert create(staff, AGAINST_AI) and create(staff, AGAINST_AI) and create(staff, AGAINST_AI)
    services.match_resign(match_id=first.pk, user=alice)
    assert create(alice, AGAINST_AI).status == Status.ACTIVE, "one ended: a place is free again"


def test_a_match_the_player_left_to_the_ai_still_counts(alice, bob, carol, settings):
    """Resigned with three players, the AI plays on alone: the workers' time goes on."""
    settings.AI_ONLY_MATCHES_PER_PLAYER = 1
    left = create(alice, [SeatSpec("creator"), SeatSpec("ai", ai_level=1), SeatSpec("ai", ai_level=1)], game="jeexa")
    services.match_resign(match_id=left.pk, user=alice)
    with pytest.raises(services.ServiceError):
        create(alice, AGAINST_AI)


@pytest.mark.django_db(transaction=True)
def test_two_matches_against_the_ai_sent_at_once_cannot_both_take_the_last_place(alice, monkeypatch, settings):
    require_postgresql()
    settings.AI_ONLY_MATCHES_PER_PLAYER = 2
    create(alice, AGAINST_AI)
    hold_the_lock_longer(monkeypatch, (creating, "clock_fields"))  # called after the count, before the match is stored

    results = run_together(lambda: create(alice, AGAINST_AI), lambda: create(alice, AGAINST_AI))

    assert sorted(type(result).__name__ for result in results) == ["Match", "ServiceError"], results
    assert Match.objects.filter(created_by=alice, status=Status.ACTIVE).count() == 2
