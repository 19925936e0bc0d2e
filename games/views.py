"""Thin views: parse the request, call a selector or a service, render.

The match page and its HTMX fragment come from one template: ``request.htmx`` asks for
the ``live`` partial (status, board and move log) instead of the whole page.
"""

from __future__ import annotations

import hashlib
import re
from datetime import timedelta
from functools import wraps

from django.contrib import messages
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST, require_safe
from django_htmx.http import HttpResponseClientRefresh

from accounts.forms import VacationForm
from accounts.middleware import activate_zone, draws_no_times
from accounts.views import profile_page
from games import hooks, selectors, services
from games.boards import LastMove, board_context, seat_colours
from games.engine import all_games, get_game
from games.forms import MatchCreateForm
from games.models import Match, Seat, Status
from games.naming import in_names, seat_names, seat_names_at, with_colour
from games.replay import last_move, position_at, positions_count
from games.services import holding
from games.showcase import PITCHES, board_picture

MALFORMED = "This request was malformed: reload the page and try again."
NOT_FOUND = "There is no such match, or it is not yours to see."
STARTED_WITHOUT_YOU = "This match is no longer waiting for players: it started without you, or was cancelled."
UNKNOWN_GAME = "There is no such game."
NO_SUCH_PLAYER = "There is no player called “{name}”."
NO_PLAYER_HERE = "There is no player at this address."
NAME_LENGTH = 150  # of a username: what a name in an address or a Challenge link may be
# What a username may be (Django's validator), checked before the database sees it: PostgreSQL
# refuses a NUL character with an error, and "%00" in an address would be a 500.
USERNAME = re.compile(rf"[\w.@+-]{{1,{NAME_LENGTH}}}")
OPENED_NOT_SENT = "That address takes a button press on this page, so nothing was done."
FORM_SENT_AGAIN = (
    "That form was sent already and made this match, so no second match was made. "
    "To start another one, open a new form from the lobby."
)
FORMS_SENT = "match_forms_sent"  # session key: each new-match form's token and choices -> the match it made
FORM_TOKEN_LENGTH = 64  # of a new-match form's token that counts (a forged longer one must not fill the session)
FORMS_REMEMBERED = 20
POLL_SECONDS = 3
# While a move may come any second the page asks more often: every half second while the AI is
# to act (it answers within a second or two), every second while a player to act has the match
# open; otherwise every POLL_SECONDS, so a page left open costs what it did.
AI_POLL_MS = 500
PRESENT_POLL_MS = 1000
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


# --- the match page ---------------------------------------------------------------------


class MatchHidden(Http404):
    """Someone else's match, or none at all."""


def viewer_match(request, pk: int) -> Match:
    match = selectors.match_for_viewer(pk, request.user)
    if match is None:
        raise MatchHidden(NOT_FOUND)
    return match


# Sent with every htmx request of a page drawn for someone signed in (base.html): a page whose session
# ended since (signed out in another tab) is sent to sign in, not redrawn for a visitor.
SIGNED_IN_HEADER = "X-Signed-In"


def match_address(*, signed_in: bool = False):
    """For an address of one match (inside ``match_page``). A visitor who is not signed in opens what
    anyone may (a public match: ``selectors.visible_to``); any other match is the same 404 as none
    at all. ``signed_in``: an action, for those signed in only: a visitor is sent to sign in where
    the match is one they may open. A page of a session that ended is sent to sign in whatever the
    match, as a sign-in would bring the player back to it."""

    def decorate(view):
        @wraps(view)
        def wrapper(request, pk: int, *args, **kwargs):
            if not request.user.is_authenticated:
                if request.headers.get(SIGNED_IN_HEADER):
                    return redirect_to_login(request.get_full_path())
                if signed_in:
                    if not selectors.match_visible(pk, request.user):
                        raise MatchHidden(NOT_FOUND)
                    return redirect_to_login(request.get_full_path())
            return view(request, pk, *args, **kwargs)

        return wrapper

    return decorate


def match_page(view):
    """A match view whose hidden match is answered in plain words, in the site's layout (a
    fragment for htmx), with DEBUG on or off."""

    @wraps(view)
    def wrapper(request, pk: int, *args, **kwargs):
        try:
            return view(request, pk, *args, **kwargs)
        except MatchHidden as hidden:
            return not_found(request, str(hidden))

    return wrapper


def posted_or_back(view):
    """A match's POST-only address opened by GET (a sign-in that returns to it, a reload
    of a refused form's answer, a bookmark) goes to the match page, not a blank 405."""

    @wraps(view)
    def wrapper(request, pk: int, *args, **kwargs):
        if request.method != "POST":
            messages.info(request, OPENED_NOT_SENT)
            return redirect("match_detail", pk=pk)
        return view(request, pk, *args, **kwargs)

    return wrapper


def _match_id(text: str) -> int | None:
    """A match id sent in a form, or None: str.isdigit() alone lets "²" through to int()."""
    return int(text) if re.fullmatch(r"[0-9]{1,18}", text) else None


def not_found(request, message: str, status: int = 404) -> HttpResponse:
    """The page (htmx: the part) that says so in plain words; a visitor who is not signed in is offered
    to sign in and come back to the page they were on (a private match may be theirs)."""
    template = "games/not_found.html#live" if request.htmx else "games/not_found.html"
    back = (request.htmx.current_url_abs_path if request.htmx else None) or request.get_full_path()
    return render(request, template, {"message": message, "back": back}, status=status)


def _match_context(request, match: Match, *, error: str = "") -> dict:
    game = match.game_obj
    state = game.load(match.state)
    seats = list(match.seats.all())
    # Whose turn, from the state drawn: the seats are a second read, and a move committed between
    # the two made the page say "Your turn." over a board that offered nothing.
    acting = set(game.to_act(state)) if match.status == Status.ACTIVE else set()
    for seat in seats:
        seat.to_act = seat.number in acting
    viewer = request.user.pk  # None for a visitor, who has no seat (nor an open one)
    my_seat = next((seat for seat in seats if viewer and seat.user_id == viewer), None)
    seat_number = my_seat.number if my_seat else None
    # Past the deadline the move would be refused: offer none while the sweep applies the timeout.
    late = bool(my_seat and my_seat.deadline and my_seat.deadline <= timezone.now())
    # The player's own held steps (``games.services.holding``): on their board, and nobody else's.
    held = holding.held_steps(match, my_seat)
    held_lines = _held_lines(game, state, seat_number, held, seats)
    state = holding.rebuilt(game, state, seat_number, held)
    legal = game.legal_moves(state, seat_number) if my_seat and match.status == Status.ACTIVE and not late else []
    names = seat_names(seats)
    view = game.view(state, seat_number)
    moves, events = selectors.match_log(match)
    rematch = None
    if my_seat and match.status == Status.FINISHED:
        rematch = Match.objects.filter(rematch_of=match).exclude(status=Status.ABORTED).first()
    colours = seat_colours(game.slug, view)
    for seat in seats:
        seat.colours = colours.get(seat.number, "")  # the seat list ties the board's colours to names
    context = {
        "match": match,
        "game": game,
        "seats": seats,
        "my_seat": my_seat,
        "my_time_ran_out": late,
        "my_former_seat": next((seat for seat in seats if viewer and seat.former_user_id == viewer), None),
        # Its players are offered a rematch, or shown the one already offered (a declined one
        # is no obstacle: a new one may be offered).
        "rematch": rematch,
        "rematch_asks": sum(seat.user_id not in (None, request.user.pk) for seat in seats),  # people to accept
        "rematch_invites_me": bool(rematch)
        and rematch.status == Status.OPEN
        and rematch.seats.filter(user=request.user, accepted=False).exists(),
        "view": view,
        "board": board_context(game.slug, view, seat_number, legal, last_move(match, moves, seat_number, held)),
        "held": held,
        "held_lines": held_lines,
        "legal": legal,
        # The player's own choice, for a seat that is to act: site.js then has each move confirmed.
        "confirm_moves": bool(legal) and my_seat.to_act and request.user.confirm_moves,
        "waiting_for": [names[seat.number] for seat in seats if seat.to_act],
        # Before the start: whose answer to an invitation it waits for, and whether anyone may still join.
        "to_accept": [
            names[seat.number] if seat != my_seat else "you" for seat in seats if seat.user_id and not seat.accepted
        ],
        "open_seat": any(seat.is_open for seat in seats),
        # An account closed before closing one cancelled its matches: no Join, no Accept.
        "never_starts": services.waits_for_closed_account(seats) if match.status == Status.OPEN else "",
        # Who a cancellation would tell (the creator's confirmation says whether anyone).
        "others_in_match": any(seat.user_id and seat.user_id != request.user.pk for seat in seats),
        "winners": [names[number] for number in (match.result or {}).get("winners", [])],
        "names": names,
        **_move_log(moves, events),
        "now": timezone.now(),
        "board_template": f"games/boards/{game.slug}.html",
        # Not their turn here (or no longer, after their move): where it is, the least time left first.
        # Nor while this match waits for their answer to its invitation: the Accept and Decline are here.
        "next_match": None
        if not viewer or (my_seat and (my_seat.to_act or (match.status == Status.OPEN and not my_seat.accepted)))
        else selectors.next_match_to_act(request.user, besides=match.pk),
        "poll_token": match.poll_token,
        "poll_ms": _poll_ms(match, seats, my_seat),
        "error": error,
    }
    for part in hooks.match_page_parts:  # chat: the players' messages
        context.update(part(request, match, seats, my_seat))
    return context


def _held_lines(game, state, seat: int | None, held: list[str], seats: list[Seat]) -> list[str]:
    """The held steps in words, as the log will say them once played, the latest first."""
    names = seat_names(seats)
    lines = []
    for step in held:
        lines.append(in_names(game.describe_parts(state, seat, step), names))
        state = game.apply(state, seat, step)
    return lines[::-1]


def _poll_ms(match: Match, seats: list[Seat], my_seat: Seat | None) -> int:
    """How often the page asks whether the match moved, in milliseconds (a whole number: a
    decimal comma in some languages would break the trigger)."""
    if match.status != Status.ACTIVE:
        return POLL_SECONDS * 1000
    awaited = [seat for seat in seats if seat.to_act and seat != my_seat]
    if any(seat.is_ai for seat in awaited):
        return AI_POLL_MS
    present_since = timezone.now() - timedelta(seconds=2 * selectors.PRESENCE_WRITE_SECONDS)
    if any(seat.last_seen_at and seat.last_seen_at >= present_since for seat in awaited):
        return PRESENT_POLL_MS
    return POLL_SECONDS * 1000


def _move_log(moves: list, events: list) -> dict:
    """The move log, newest first: each move with the events that followed it (a timeout, a
    seat the AI took) just above it, and the events before any move apart. One pass each:
    a template loop over the events inside the loop over the moves cost moves × events."""
    after: dict[int, list] = {}
    for event in events:
        after.setdefault(event.ply, []).append(event)
    lines = []
    for record in reversed(moves):
        number = record.ply + 1
        lines += [{"number": number, "text": event.reason, "event": True} for event in reversed(after.get(number, []))]
        lines.append({"number": number, "text": record.description, "event": False})
    return {"moves": moves, "log_lines": lines, "opening_events": list(reversed(after.get(0, [])))}


def render_match(
    request, match: Match, *, error: str = "", status: int = 200, said: dict | None = None
) -> HttpResponse:
    """The match page (its ``live`` part for htmx). ``said``: what another app's action adds to the
    page's context (chat: a refused message with its text, what a Report said)."""
    template = "games/match_detail.html#live" if request.htmx else "games/match_detail.html"
    context = {**_match_context(request, match, error=error), **(said or {})}
    response = render(request, template, context, status=status)
    # One URL serves a page and a fragment; neither may be cached or kept in history.
    patch_vary_headers(response, ["HX-Request"])
    patch_cache_control(response, no_store=True, private=True)
    return response


def _seen(request, match: Match) -> None:
    """The page shows the match as it stands: its watcher has seen it (nothing new on My matches)."""
    if getattr(match, "watch_behind", False):
        services.watch_seen(match=match, user=request.user)


@require_safe
@match_page
@match_address()
def match_detail(request, pk: int):
    match = viewer_match(request, pk)
    if request.user.is_authenticated:
        if match.presence_due:
            services.seat_seen(match_id=pk, user=request.user)
        _seen(request, match)
    return render_match(request, match)


@draws_no_times
@require_GET
def match_poll(request, pk: int):
    """Nothing (204) while the match is unchanged; the fresh fragment once it moved. A player's
    poll of their own match reads the session and the match row only (``selectors.player_poll``);
    the user is read, and the session checked in full, once there is something to draw."""
    user_id = request.session.get(SESSION_KEY)
    if user_id is not None and (poll := selectors.player_poll(pk, int(user_id))) is not None:
        if poll.token == request.GET.get("token"):
            if poll.presence_due:
                services.seat_seen(match_id=pk, user=int(user_id))
            return HttpResponse(status=204)
        activate_zone(request)
        return _match_poll(request, pk, poll=poll)
    activate_zone(request)
    return _match_poll(request, pk)


@match_page
@match_address()
def _match_poll(request, pk: int, poll: selectors.Poll | None = None):
    """``poll``: what ``selectors.player_poll`` read, for a session whose user still holds."""
    if poll is None or not request.user.is_authenticated:
        poll = selectors.match_poll(pk, request.user)
    if poll is None:
        was_open = f"-{Status.OPEN}-" in request.GET.get("token", "")
        if was_open and request.user.is_authenticated and Match.objects.filter(pk=pk, open_to_all=True).exists():
            return not_found(request, STARTED_WITHOUT_YOU, status=200)  # a watcher of an open challenge
        raise MatchHidden(NOT_FOUND)
    if poll.presence_due:
        services.seat_seen(match_id=pk, user=request.user)
    if poll.token == request.GET.get("token"):
        return HttpResponse(status=204)
    match = viewer_match(request, pk)
    _seen(request, match)
    return render_match(request, match)


@match_page
@match_address(signed_in=True)
@posted_or_back
def match_move(request, pk: int):
    """A move, and the page as it stands after it, drawn from the match and seats the move read."""
    move = request.POST.get("move", "")
    try:
        version, held = _page_position(request)
    except ValueError:
        return _refused(request, pk, MALFORMED, 400)
    if not move or len(move) > 64:
        return _refused(request, pk, MALFORMED, 400)
    try:
        # looking: each redraw restarts the poll's timer, so someone moving quickly never polls, yet is looking.
        played = services.move_play(
            match_id=pk, user=request.user, move=move, expected_version=version, held=held, looking=True
        )
    except services.ServiceError as error:
        return _refused(request, pk, error.message, error.status)
    except Match.DoesNotExist:
        raise MatchHidden(NOT_FOUND) from None
    if request.htmx:
        return render_match(request, played.match)
    return redirect("match_detail", pk=pk)


@match_page
@match_address(signed_in=True)
@posted_or_back
def match_take_back(request, pk: int):
    """Take back the last step held this turn (``games.services.holding``)."""
    try:
        version, held = _page_position(request)
    except ValueError:
        return _refused(request, pk, MALFORMED, 400)
    if held is None:
        return _refused(request, pk, MALFORMED, 400)
    try:
        services.step_take_back(match_id=pk, user=request.user, expected_version=version, expected_held=held)
    except services.ServiceError as error:
        return _refused(request, pk, error.message, error.status)
    except Match.DoesNotExist:
        raise MatchHidden(NOT_FOUND) from None
    services.seat_seen(match_id=pk, user=request.user)
    if request.htmx:
        return render_match(request, viewer_match(request, pk))
    return redirect("match_detail", pk=pk)


def _refused(request, pk: int, message: str, status: int) -> HttpResponse:
    """A move or a take-back refused: the match as it stands with the reason (a 404 for a match
    the player may not see); they are looking at it."""
    match = viewer_match(request, pk)
    services.seat_seen(match_id=pk, user=request.user)
    return render_match(request, match, error=message, status=status)


def _page_position(request) -> tuple[int, int | None]:
    """The match version and the number of held steps the page showed, None where not sent (a
    page from before steps could be taken back); ValueError where either is not a whole number."""
    version, held = int(request.POST.get("version", "")), request.POST.get("held")
    if held is not None and not re.fullmatch(r"[0-9]{1,4}", held):
        raise ValueError(held)
    return version, None if held is None else int(held)


def _match_action(service, success: str, *, for_outsiders: bool = False):
    """A POST that calls one service on the match and returns to its page with a message.
    ``for_outsiders``: anyone may try it (joining), and the service says why not."""

    @match_page
    @match_address(signed_in=True)
    @posted_or_back
    def view(request, pk: int):
        visible = selectors.match_for_viewer(pk, request.user) is not None
        if not visible and not (for_outsiders and Match.objects.filter(pk=pk, open_to_all=True).exists()):
            raise MatchHidden(NOT_FOUND)
        try:
            service(match_id=pk, user=request.user)
        except services.AlreadyDone as done:  # pressed twice: the first press did it
            messages.info(request, done.message)
            return _back(request, pk)
        except services.ServiceError as error:
            # Asked again: a lost race for the last seat takes the match out of sight.
            visible = selectors.match_for_viewer(pk, request.user) is not None
            return render(
                request,
                "games/action_refused.html",
                {"message": error.message, "match_id": pk, "visible": visible},
                status=error.status,
            )
        messages.success(request, success)
        return _back(request, pk)

    return view


def _back(request, pk: int) -> HttpResponse:
    """Back to the match page, or to My matches where the form was there (Unwatch on its Watching list)."""
    return redirect("dashboard") if request.POST.get("back") == "dashboard" else redirect("match_detail", pk=pk)


@match_page
@match_address(signed_in=True)
@posted_or_back
def match_rematch(request, pk: int):
    if selectors.match_for_viewer(pk, request.user) is None:
        raise MatchHidden(NOT_FOUND)
    try:
        rematch, done = services.match_rematch(
            match_id=pk, user=request.user, accepting=_match_id(request.POST.get("accepting", ""))
        )
    except services.ServiceError as error:
        return render(
            request,
            "games/action_refused.html",
            {"message": error.message, "match_id": pk, "visible": True},
            status=error.status,
        )
    if done == services.CREATED:
        invited = [
            seat.user.public_name for seat in rematch.seats.select_related("user") if seat.user_id and not seat.accepted
        ]
        messages.success(request, f"Rematch created. Invited: {', '.join(invited)}." if invited else "Rematch created.")
    elif done == services.ACCEPTED:
        messages.success(request, "You accepted the rematch.")
    else:
        messages.info(request, "The rematch was already offered; here it is.")
    return redirect("match_detail", pk=rematch.pk)


match_join = _match_action(services.match_join, "You joined the match.", for_outsiders=True)
match_accept = _match_action(services.match_accept, "You accepted the invitation.")
match_decline = _match_action(services.match_decline, "You declined the invitation.")
match_cancel = _match_action(services.match_cancel, "The match is cancelled.")
match_resign = _match_action(services.match_resign, "You resigned.")
match_watch = _match_action(services.match_watch, "You watch this match: it is on My matches, under Watching.")
match_unwatch = _match_action(services.match_unwatch, "You no longer watch this match.")


@require_safe
@match_page
@match_address()
def match_replay(request, pk: int):
    """Step through every position: ``?ply=N`` shows the position after N moves."""
    match = viewer_match(request, pk)
    moves = selectors.match_moves(match)
    last = positions_count(moves) - 1
    try:
        ply = int(request.GET.get("ply", last))
    except ValueError:
        ply = last
    ply = max(0, min(ply, last))
    game = match.game_obj
    my_seat = next((seat for seat in match.seats.all() if request.user.pk and seat.user_id == request.user.pk), None)
    seat_number = my_seat.number if my_seat else None
    if ply:  # the move that led here, marked on the board: from the position before it
        before, record = position_at(match, moves, ply - 1), moves[ply - 1]
        shown = LastMove(game.view(before, seat_number), ((record.seat, record.notation),))
        state = game.load(match.state) if ply == match.version else game.apply(before, record.seat, record.notation)
    else:
        state, shown = position_at(match, moves, 0), None
    view = game.view(state, seat_number)
    seats = list(match.seats.all())
    names = seat_names_at(seats, moves, selectors.match_level_changes(match), ply)
    colours = seat_colours(game.slug, view)
    context = {
        "match": match,
        "game": game,
        "seats": seats,
        "names": names,
        # Who played which seat (and colour) at this position: the log and board speak of both.
        "players": [
            with_colour(names[seat.number], colours[seat.number]) if colours.get(seat.number) else names[seat.number]
            for seat in seats
        ],
        "my_seat": my_seat,
        "view": view,
        "board": board_context(game.slug, view, seat_number, [], shown),
        "legal": [],
        "moves": moves,
        "ply": ply,
        "last": last,
        "shown_move": moves[ply - 1] if ply else None,
        "board_template": f"games/boards/{game.slug}.html",
    }
    template = "games/match_replay.html#replay" if request.htmx else "games/match_replay.html"
    response = render(request, template, context)
    patch_vary_headers(response, ["HX-Request"])
    patch_cache_control(response, no_store=True, private=True)
    return response


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
