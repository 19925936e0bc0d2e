"""Rematch: once a match has ended, any of its players offers the same match again, with
every seat moved round by one so that someone else starts."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from games import services
from games.models import Match, Status
from games.services import SeatSpec
from notifications.models import Notification
from tests.conftest import start_match
from tests.games.conftest import start_timed_match


def finished(match: Match, loser) -> Match:
    services.match_resign(match_id=match.pk, user=loser)  # two players: the other one wins
    match.refresh_from_db()
    assert match.status == Status.FINISHED
    return match


def test_a_rematch_moves_the_seats_round_keeps_options_and_clock_and_invites_the_other(alice, bob):
    match = finished(start_timed_match(alice, bob, options={"variant": "ethiopian"}), bob)

    rematch, created = services.match_rematch(match_id=match.pk, user=bob)

    assert created == services.CREATED and rematch.rematch_of == match and rematch.status == Status.OPEN
    seats = list(rematch.seats.order_by("number"))
    assert [(seat.user, seat.accepted) for seat in seats] == [(bob, True), (alice, False)], "Bob starts this time"
    assert rematch.options == {"variant": "ethiopian"} and rematch.created_by == bob
    assert (rematch.time_control, rematch.days_per_move) == (match.time_control, match.days_per_move)
    invitation = Notification.objects.get(match=rematch, user=alice, kind=Notification.Kind.INVITATION)
    assert invitation.subject.endswith(f"Bob invites you to a rematch: Mancala #{rematch.pk}")
    assert f"a rematch of Mancala #{match.pk}." in invitation.body

    # Alice asks too (her page still offered it): she gets the same rematch, not a second
    # one, and asking for it was saying yes to it.
    assert services.match_rematch(match_id=match.pk, user=alice) == (rematch, services.ACCEPTED)
    assert services.match_rematch(match_id=match.pk, user=alice) == (rematch, ""), "asked again: nothing to do"
    assert Match.objects.filter(rematch_of=match).count() == 1
    rematch.refresh_from_db()
    assert rematch.status == Status.ACTIVE


def test_a_declined_rematch_can_be_offered_again(alice, bob):
    match = finished(start_match(alice, bob), bob)
    declined, _ = services.match_rematch(match_id=match.pk, user=bob)
    services.match_decline(match_id=declined.pk, user=alice)

    again, created = services.match_rematch(match_id=match.pk, user=bob)

    assert created == services.CREATED and again != declined and again.rematch_of == match
    declined.refresh_from_db()
    assert declined.status == Status.ABORTED and declined.rematch_of == match, "it stays a rematch of it"
    assert list(match.rematches.order_by("pk")) == [declined, again]


def test_the_database_keeps_one_rematch_not_cancelled_per_match(alice, bob):
    match = finished(start_match(alice, bob), bob)
    offered, _ = services.match_rematch(match_id=match.pk, user=bob)
    with pytest.raises(IntegrityError, match=r"one_rematch_not_cancelled|rematch_of"), transaction.atomic():
        Match.objects.create(game="mancala", options={}, state={}, seed=1, created_by=alice, rematch_of=match)
    Match.objects.filter(pk=offered.pk).update(status=Status.ABORTED)
    # Cancelled, it no longer counts: another may be made.
    Match.objects.create(game="mancala", options={}, state={}, seed=1, created_by=alice, rematch_of=match)


def test_a_rematch_against_the_ai_starts_at_once_with_the_same_level(alice, django_capture_on_commit_callbacks):
    match = finished(start_match(alice, ai_level=2), alice)
    with django_capture_on_commit_callbacks() as callbacks:
        rematch, _ = services.match_rematch(match_id=match.pk, user=alice)
    seats = list(rematch.seats.order_by("number"))
    assert rematch.status == Status.ACTIVE
    assert (seats[0].ai_level, seats[1].user) == (2, alice), "the AI starts this time"
    assert callbacks, "the AI is asked for its first move"


@pytest.mark.parametrize(
    "how, why",
    [
        ("active", "only follow a match that was played to the end"),
        ("cancelled", "This match was cancelled, so there is nothing to play again"),
    ],
)
def test_only_an_ended_match_gets_a_rematch(alice, bob, staff, how, why):
    match = start_match(alice, bob)
    if how == "cancelled":
        services.match_abort(match_id=match.pk, actor=staff, reason="test")
    with pytest.raises(services.ServiceError, match=why):
        services.match_rematch(match_id=match.pk, user=alice)
    assert not Match.objects.filter(rematch_of=match).exists()


def test_only_its_players_get_a_rematch(match, alice, bob, carol):
    finished(match, bob)
    with pytest.raises(services.NotAllowed):
        services.match_rematch(match_id=match.pk, user=carol)
    assert not Match.objects.filter(rematch_of=match).exists()


def test_the_page_offers_the_rematch_then_links_both_ways(client, match, alice, bob):
    finished(match, bob)
    page = reverse("match_detail", args=[match.pk])
    client.force_login(bob)
    assert "Rematch</button>" in client.get(page).content.decode()

    response = client.post(reverse("match_rematch", args=[match.pk]), follow=True)
    rematch = Match.objects.get(rematch_of=match)
    assert response.redirect_chain[-1][0] == reverse("match_detail", args=[rematch.pk])
    html = response.content.decode()
    assert "Rematch created. Invited: Alice." in html
    assert f'A rematch of <a href="{page}">Mancala #{match.pk}</a>' in html

    client.force_login(alice)
    invitations = client.get(reverse("dashboard")).content.decode()
    assert f"Mancala #{rematch.pk}</a> (Egyptian), a rematch of #{match.pk}" in invitations
    old = client.get(page).content.decode()
    assert f'Bob offers a rematch: <a href="/matches/{rematch.pk}/">Mancala #{rematch.pk}</a>' in old
    assert "Accept the rematch</button>" in old
    response = client.post(reverse("match_rematch", args=[match.pk]), follow=True)
    assert response.redirect_chain[-1][0] == reverse("match_detail", args=[rematch.pk])
    assert "You accepted the rematch." in response.content.decode()
    assert "Accept</button>" not in response.content.decode()
    old = client.get(page).content.decode()
    assert "Rematch</button>" not in old and f"The rematch: Mancala #{rematch.pk}" in old

    # Declined, it no longer stands in the way: the button is back.
    Match.objects.filter(pk=rematch.pk).update(status=Status.ABORTED)
    assert "Rematch</button>" in client.get(page).content.decode()
    # Opened by GET (a reload, a sign-in that comes back), the address leads to the match.
    assert client.get(reverse("match_rematch", args=[match.pk])).url == page


def test_accepting_a_rematch_withdrawn_meanwhile_says_so_and_creates_nothing(client, match, alice, bob):
    finished(match, bob)
    offered, _ = services.match_rematch(match_id=match.pk, user=bob)
    client.force_login(alice)
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert f'name="accepting" value="{offered.pk}"' in page
    services.match_cancel(match_id=offered.pk, user=bob)  # Bob withdraws while Alice's page still offers it

    response = client.post(reverse("match_rematch", args=[match.pk]), {"accepting": str(offered.pk)})

    assert response.status_code == 400
    assert "was cancelled before you accepted it" in response.content.decode()
    assert Match.objects.count() == 2, "no new rematch"
    assert "Rematch</button>" in client.get(reverse("match_detail", args=[match.pk])).content.decode()


def test_an_outsider_is_not_offered_a_rematch_and_cannot_make_one(client, match, bob, carol):
    finished(match, bob)
    client.force_login(carol)
    watched = client.get(reverse("match_detail", args=[match.pk])).content.decode()  # a public match
    response = client.post(reverse("match_rematch", args=[match.pk]))
    assert "Rematch" not in watched and 400 <= response.status_code < 500
    Match.objects.filter(pk=match.pk).update(public=False)
    response = client.post(reverse("match_rematch", args=[match.pk]))
    assert response.status_code == 404 and not Match.objects.filter(rematch_of=match).exists()


@pytest.mark.parametrize("forged", ["²", "9" * 5000, "-1", "1.0", ""])
def test_a_forged_accepting_field_is_only_a_request_for_a_rematch(client, match, alice, bob, forged):
    """ "²" passed str.isdigit() and then broke int() (a 500); 5,000 digits broke it too."""
    finished(match, bob)
    client.force_login(alice)
    response = client.post(reverse("match_rematch", args=[match.pk]), {"accepting": forged})
    rematch = Match.objects.get(rematch_of=match)
    assert response.status_code == 302 and response.url == reverse("match_detail", args=[rematch.pk])


def test_accepting_names_only_this_matchs_rematch(client, match, alice, bob, carol):
    """Another match, cancelled, is no withdrawn rematch of this one (nor a way to learn its status)."""
    elsewhere = services.match_create(
        creator=carol,
        game_slug="mancala",
        options={"variant": "egyptian"},
        seats=[SeatSpec("creator"), SeatSpec("user", username=bob.username)],
    )
    services.match_cancel(match_id=elsewhere.pk, user=carol)
    finished(match, bob)
    client.force_login(alice)
    response = client.post(reverse("match_rematch", args=[match.pk]), {"accepting": str(elsewhere.pk)})
    assert response.status_code == 302 and Match.objects.filter(rematch_of=match).exists()


def test_accepting_a_withdrawn_rematch_after_a_new_one_was_offered_accepts_the_new_one(client, match, alice, bob):
    finished(match, bob)
    withdrawn, _ = services.match_rematch(match_id=match.pk, user=alice)
    client.force_login(bob)
    page = client.get(reverse("match_detail", args=[match.pk])).content.decode()
    assert f'name="accepting" value="{withdrawn.pk}"' in page
    services.match_cancel(match_id=withdrawn.pk, user=alice)
    offered, _ = services.match_rematch(match_id=match.pk, user=alice)  # Bob's page still shows the first

    response = client.post(reverse("match_rematch", args=[match.pk]), {"accepting": str(withdrawn.pk)})

    assert response.status_code == 302 and response.url == reverse("match_detail", args=[offered.pk])
    offered.refresh_from_db()
    assert offered.status == Status.ACTIVE, "asking for the rematch is saying yes to the one on offer"


def test_the_rematch_button_says_who_must_accept(client, alice, bob):
    """Against the AI it said "any other people in it are invited to accept": there were none."""
    against_ai = finished(start_match(alice, ai_level=2), alice)
    against_bob = finished(start_match(alice, bob), bob)
    client.force_login(alice)

    alone = client.get(reverse("match_detail", args=[against_ai.pk])).content.decode()
    assert "so that the other player starts; it starts at once." in alone and "invited" not in alone

    together = client.get(reverse("match_detail", args=[against_bob.pk])).content.decode()
    assert "so that the other player starts; they are invited to accept." in together
