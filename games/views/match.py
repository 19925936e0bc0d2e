"""The match page and its HTMX fragment (the ``live`` partial of one template: status, board
and move log), its poll, a move, taking back a step, the match's actions and its replay."""

from __future__ import annotations

import re
from datetime import timedelta

from django.contrib import messages
from django.contrib.auth import SESSION_KEY
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.views.decorators.http import require_GET, require_safe

from accounts.middleware import activate_zone, draws_no_times
from games import hooks, selectors, services
from games.boards import LastMove, board_context, seat_colours
from games.context_processors import Waiting
from games.models import Match, Seat, Status
from games.naming import in_names, seat_names, seat_names_at, with_colour
from games.replay import last_move, position_at, positions_count
from games.services import holding
from games.views.common import (
    MALFORMED,
    NOT_FOUND,
    MatchHidden,
    match_address,
    match_page,
    not_found,
    posted_or_back,
    sent_match_id,
    viewer_match,
)

STARTED_WITHOUT_YOU = "This match is no longer waiting for players: it started without you, or was cancelled."
POLL_SECONDS = 3
# While a move may come any second the page asks more often: every half second while the AI is
# to act (it answers within a second or two), every second while a player to act has the match
# open; otherwise every POLL_SECONDS, so a page left open costs what it did.
AI_POLL_MS = 500
PRESENT_POLL_MS = 1000


def _match_context(request, match: Match, *, error: str = "", parts_kept: bool = False) -> dict:
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
    passed = holding.positions(game, state, seat_number, held)
    state = passed[-1]
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
        # The held steps in words, as the log will say them once played, the latest first.
        "held_lines": [
            in_names(game.describe_parts(before, seat_number, step), names)
            for before, step in zip(passed[:-1], held, strict=True)
        ][::-1],
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
        "next_match": None,
        "poll_token": match.poll_token,
        "poll_ms": _poll_ms(match, seats, my_seat),
        "error": error,
    }
    # Not their turn here (or no longer, after their move): where it is, the least time left first.
    # Nor while this match waits for their answer to its invitation: the Accept and Decline are here.
    if viewer and not (my_seat and (my_seat.to_act or (match.status == Status.OPEN and not my_seat.accepted))):
        context["next_match"], count = selectors.next_match_and_count(request.user, besides=match.pk)
        context["waiting"] = Waiting(request, count=count)
    if parts_kept:
        context["parts_kept"] = True
    else:
        for part in hooks.match_page_parts:  # chat: the players' messages
            context.update(part(request, match, seats, my_seat))
    return context


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
    page's context (chat: a refused message with its text, what a Report said). A redraw leaves
    the other apps' parts (the messages) as the page shows them while they are unchanged."""
    template = "games/match_detail.html#live" if request.htmx else "games/match_detail.html"
    parts_kept = bool(request.htmx) and not said and _parts_unchanged(request, match)
    context = {**_match_context(request, match, error=error, parts_kept=parts_kept), **(said or {})}
    response = render(request, template, context, status=status)
    # One URL serves a page and a fragment; neither may be cached or kept in history.
    patch_vary_headers(response, ["HX-Request"])
    patch_cache_control(response, no_store=True, private=True)
    return response


def _parts_unchanged(request, match: Match) -> bool:
    """Whether the page's messages are still the match's: nothing but moves changed it since the page
    was drawn (a message, like any change that is not a move, moves ``Match.revision`` on). site.js
    sends the revision the page shows; the redraw then keeps them (hx-preserve), unread and undrawn."""
    return request.headers.get("X-Live-Revision") == str(match.revision)


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
        return _match_poll(request, pk, poll=poll)
    return _match_poll(request, pk)


@match_page
@match_address()
def _match_poll(request, pk: int, poll: selectors.Poll | None = None):
    """``poll``: what ``selectors.player_poll`` read, for a session whose user still holds."""
    activate_zone(request)  # the user is read from here on (``draws_no_times``)
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
        match = services.step_take_back(match_id=pk, user=request.user, expected_version=version, expected_held=held)
    except services.ServiceError as error:
        return _refused(request, pk, error.message, error.status)
    except Match.DoesNotExist:
        raise MatchHidden(NOT_FOUND) from None
    if request.htmx:
        return render_match(request, match)
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
            match_id=pk, user=request.user, accepting=sent_match_id(request.POST.get("accepting", ""))
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
