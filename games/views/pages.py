"""The pages around the matches: the home page, a game's page and rules, My matches, the lobby,
the new-match form, a player's page and the vacation form."""

from __future__ import annotations

import hashlib
import re

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST, require_safe
from django_htmx.http import HttpResponseClientRefresh

from accounts.forms import VacationForm
from accounts.views import profile_page
from games import hooks, selectors, services
from games.engine import all_games, get_game
from games.forms import MatchCreateForm
from games.models import Match, Status
from games.showcase import PITCHES, board_picture
from games.views.common import not_found

UNKNOWN_GAME = "There is no such game."
NO_SUCH_PLAYER = "There is no player called “{name}”."
NO_PLAYER_HERE = "There is no player at this address."
NAME_LENGTH = 150  # of a username: what a name in an address or a Challenge link may be
# What a username may be (Django's validator), checked before the database sees it: PostgreSQL
# refuses a NUL character with an error, and "%00" in an address would be a 500.
USERNAME = re.compile(rf"[\w.@+-]{{1,{NAME_LENGTH}}}")
FORM_SENT_AGAIN = (
    "That form was sent already and made this match, so no second match was made. "
    "To start another one, open a new form from the lobby."
)
FORMS_SENT = "match_forms_sent"  # session key: each new-match form's token and choices -> the match it made
FORM_TOKEN_LENGTH = 64  # of a new-match form's token that counts (a forged longer one must not fill the session)
FORMS_REMEMBERED = 20
FINISHED_PER_PAGE = 25
VACATION_STARTED = "Enjoy your vacation: your clocks are stopped."
VACATION_ENDED = "Welcome back: your clocks run again."
NOT_ON_VACATION = "You are not on vacation, so nothing changed: your clocks are running."


@require_safe
def home(request):
    """The games, each with a picture of its board, and public matches to watch; for a player,
    first the matches that wait for their move. The pictures are drawn once per process."""
    games = [
        {"game": game, "picture": board_picture(game.slug), "pitch": PITCHES.get(game.slug, "")} for game in all_games()
    ]
    context = {"games": games, "public": selectors.public_matches(), "now": timezone.now()}
    if request.user.is_authenticated:
        context["turns"] = selectors.turns_waiting(request.user)
    return render(request, "home.html", context)


@require_safe
def game_page(request, slug: str):
    """One game, for anyone: what it is, how many play it, the way to a new match, its pages (How to
    play, and those other steps add), and its public matches to watch."""
    try:
        game = get_game(slug)
    except KeyError:
        return not_found(request, UNKNOWN_GAME)
    context = {"game": game, "public": selectors.public_matches(game.slug), "now": timezone.now()}
    return render(request, "games/game.html", context)


@never_cache
@require_GET
def my_matches_link(request):
    """The top bar's My matches link with its count, for a page the browser showed again on Back
    (site.js): the count it kept may be old. Signed out since, that page reloads, as it still
    names the player in its top bar."""
    if not request.user.is_authenticated:
        return HttpResponseClientRefresh()
    return render(request, "_my_matches_link.html")


@login_required
@require_safe
@never_cache  # Back to it must show the matches as they stand, and nothing of them once signed out
def dashboard(request):
    matches = selectors.matches_of(request.user)
    return render(
        request,
        "games/dashboard.html",
        {
            "matches": matches,
            "watching": selectors.watched_by(request.user),
            "watching_shown": selectors.WATCHING_SHOWN,
            "has_finished": any(match.status in (Status.FINISHED, Status.ABORTED) for match in matches),
            "invitations": selectors.invitations_for(request.user),
            "now": timezone.now(),
        },
    )


@login_required
@require_safe
@never_cache  # Back to it must show the matches as they stand, and nothing of them once signed out
def finished_matches(request):
    """Every finished match of the player, a page at a time (My matches lists the latest)."""
    page = Paginator(selectors.finished_matches_of(request.user), FINISHED_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "games/finished.html", {"page": page, "now": timezone.now()})


@login_required
@require_safe
@never_cache  # Back to it must show the matches as they stand, and nothing of them once signed out
def lobby(request):
    open_matches = selectors.lobby_open_matches(request.user)
    return render(
        request,
        "games/lobby.html",
        {
            "games": all_games(),
            "open_matches": open_matches,
            # The list is full, or a creator has more open than the few of theirs it shows.
            "more_may_wait": len(open_matches) == selectors.LOBBY_SHOWN
            or any(match.creator_open > selectors.LOBBY_SHOWN_PER_CREATOR for match in open_matches),
            "shown_per_creator": selectors.LOBBY_SHOWN_PER_CREATOR,
            "invitations": selectors.invitations_for(request.user),
            "now": timezone.now(),  # who is on vacation
        },
    )


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def match_new(request, slug: str):
    try:
        game = get_game(slug)
    except KeyError:
        return not_found(request, UNKNOWN_GAME)
    # The Set button beside the number of players (the page without its script): drawn again
    # with that many seats, everything filled in kept, nothing made.
    setting_players = request.method == "POST" and "set_players" in request.POST
    # A form sent with no fields is still a form sent: unbound, it was refused without a word.
    form = MatchCreateForm(
        game,
        request.POST if request.method == "POST" else None,
        creator=request.user,
        initial=_challenged(request),
        setting_players=setting_players,
    )
    if setting_players:
        return _match_new_page(request, game, form, status=200 if form.is_valid() else 400)
    if request.method == "POST":
        made = request.session.get(FORMS_SENT, {})
        # The same form with other choices (Back, change, Create) is meant as another match.
        sent = "|".join(
            f"{key}={value}"
            for key, value in sorted(request.POST.items())
            if key not in ("csrfmiddlewaretoken", "form_token")
        )
        token = request.POST.get("form_token", "")[:FORM_TOKEN_LENGTH]  # ours are 22 characters
        key = f"{token}:{hashlib.sha256(sent.encode()).hexdigest()[:16]}"
        if token and key in made and Match.objects.filter(pk=made[key], created_by=request.user).exists():
            messages.info(request, FORM_SENT_AGAIN)
            return redirect("match_detail", pk=made[key])
        if form.is_valid():
            try:
                match = services.match_create(
                    creator=request.user,
                    game_slug=slug,
                    options=form.cleaned_data["options"],
                    clock=form.cleaned_data["clock"],
                    rated=form.cleaned_data["rated"],
                    public=form.cleaned_data["public"],
                    chat_public=form.cleaned_data["chat_public"],
                    seats=services.creator_seats(
                        seats=form.cleaned_data["seat_specs"], position=form.cleaned_data["position"]
                    ),
                )
            except (services.ServiceError, ValueError) as error:
                form.add_error(None, getattr(error, "message", str(error)))
            else:
                if token:
                    request.session[FORMS_SENT] = dict([*made.items(), (key, match.pk)][-FORMS_REMEMBERED:])
                return redirect("match_detail", pk=match.pk)
        return _match_new_page(request, game, form, status=400)
    return _match_new_page(request, game, form)


def _match_new_page(request, game, form: MatchCreateForm, *, status: int = 200):
    """The form as drawn, its invite fields suggesting the player's recent opponents (looked
    up only here: a form that makes its match draws no page)."""
    form.suggest(selectors.recent_opponents(request.user))
    return render(request, "games/match_new.html", {"game": game, "form": form}, status=status)


def _challenged(request) -> dict:
    """``?invite=<username>`` (a player page's Challenge link) puts that player on the first
    opponent's seat; the form checks the name when it is sent, as if typed."""
    name = request.GET.get("invite", "").strip()[:NAME_LENGTH]
    return {"seat_1": "invite", "invite_1": name} if name and request.method != "POST" else {}


@require_safe
def player_page(request, username: str):
    """What anyone, signed in or not, may know of a player: their name, since when they play, their
    record per game, how often their clock ran out, the matches of theirs the viewer may open
    (``selectors.player_matches``: public ones for a visitor), and what other apps add (ratings)."""
    if not USERNAME.fullmatch(username):
        return not_found(request, NO_PLAYER_HERE)
    player = selectors.player_named(username)
    if player is None:
        return not_found(request, NO_SUCH_PLAYER.format(name=username))
    in_play, finished = selectors.player_matches(player, request.user)
    for match in finished:
        match.outcome = _outcome(match, player)
    context = {
        "player": player,
        "record": selectors.player_record(player),
        "reliability": selectors.player_reliability(player),
        "in_play": in_play if player.is_active else [],  # a closed account's seats went to the AI
        "finished": finished,
        "challenge": player.is_active and request.user.is_authenticated and player.pk != request.user.pk,
        "games": all_games(),
        "now": timezone.now(),
    }
    for part in hooks.player_page_parts:  # ratings: the player's ratings with their history
        context.update(part(request, player))
    return render(request, "games/player.html", context)


def _outcome(match: Match, player) -> str:
    """How a finished match ended for ``player``, as My matches says it to them."""
    number = next(seat.number for seat in match.seats.all() if seat.user_id == player.pk)
    winners = (match.result or {}).get("winners", [])
    if number not in winners:
        return "Lost"
    return "Shared win" if len(winners) > 1 else "Won"


@require_safe
def game_rules(request, slug: str):
    """How to play one game, for anyone: a visitor decides here whether to sign up."""
    try:
        game = get_game(slug)
    except KeyError:
        return not_found(request, UNKNOWN_GAME)
    return render(request, f"games/rules/{game.slug}.html", {"game": game, "games": all_games()})


@login_required
@require_POST
def vacation(request):
    """Start or end a vacation: every clock of the player stops, or runs again (the profile's form)."""
    if "end" in request.POST:
        if request.user.vacation_until is None:  # a page from before the vacation ended (or another tab)
            messages.info(request, NOT_ON_VACATION)
            return redirect("profile")
        services.vacation_end(user_id=request.user.pk)
        messages.success(request, VACATION_ENDED)
        return redirect("profile")
    form = VacationForm(request.POST)
    if form.is_valid():
        try:
            services.vacation_start(user_id=request.user.pk, days=form.cleaned_data["days"])
        except services.ServiceError as error:
            form.add_error("days", error.message)
        else:
            messages.success(request, VACATION_STARTED)
            return redirect("profile")
    request.user.refresh_from_db()
    return profile_page(request, vacation_form=form, status=400)
