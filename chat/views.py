"""The players' messages on the match page: writing one and reporting one. Both answer with the
match page (``games.views.render_match``), whose messages part is ``match_page_messages``."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse

from chat import selectors, services
from games import services as game_services
from games.views import match_address, match_page, not_found, posted_or_back, render_match, viewer_match


def match_page_messages(request, match, seats, my_seat) -> dict:
    """The messages part of the match page (``games.hooks.match_page_parts``). Read by those who may
    (``selectors.may_read``); to anyone else watching, the page says they are the players' alone."""
    user = request.user
    every_message = request.GET.get("messages") == "all"
    company = any(seat != my_seat and (seat.user_id or seat.is_open) for seat in seats)  # people, or a seat for one
    if not selectors.may_read(match, seats, user):
        people = sum(1 for seat in seats if seat.user_id or seat.is_open)
        return {"may_write": False, "chat_shown": False, "chat_theirs": people > 1}  # not read: not even counted
    chat = selectors.match_messages(match, every=every_message, reader=user if user.is_authenticated else None)
    return {
        # The players seated (the invited too) write to each other, in a match of any status.
        # Not where every other seat is the AI's: nobody would read it.
        "may_write": bool(my_seat) and user.is_active and company,
        "may_report": user.is_authenticated,
        "chat": chat,
        "chat_shown": company or bool(chat.total),
        "every_message": every_message,
    }


def _back_to_messages(request, pk: int, anchor: str):
    every = "?messages=all" if request.GET.get("messages") == "all" else ""
    return redirect(reverse("match_detail", args=[pk]) + every + anchor)


@match_page
@match_address(signed_in=True)
@posted_or_back
def match_message(request, pk: int):
    """A message to the others in the match. Refused, the page says why and the text stays where it
    was typed: the form is outside the part htmx redraws, and a plain form's page gets it back."""
    match = viewer_match(request, pk)
    game_services.seat_seen(match_id=pk, user=request.user)
    text = request.POST.get("text", "")
    try:
        services.message_post(match_id=match.pk, user=request.user, text=text)
    except game_services.ServiceError as error:
        match.refresh_from_db()
        said = {"message_error": error.message, "message_text": text}
        return render_match(request, match, status=error.status, said=said)
    if request.htmx:
        return render_match(request, viewer_match(request, pk))
    return _back_to_messages(request, pk, "#messages")


@match_page
@match_address(signed_in=True)
@posted_or_back
def match_message_report(request, pk: int, message_pk: int):
    """A message reported to staff, from the two-step Report beside it. Answered as the page's other
    actions: htmx gets the redrawn part with the words beside the message, a plain form the page
    with them on top (a refusal: the page that says why). ``report_said``: the message's id, the
    words said beside it, whether they are a refusal, and the reason typed (a refused one is
    offered again)."""
    match = viewer_match(request, pk)
    said, reason = services.REPORTED, request.POST.get("reason", "")
    try:
        services.message_report(match_id=pk, message_id=message_pk, user=request.user, reason=reason)
    except game_services.AlreadyDone as done:
        said = done.message
    except game_services.NotFound as missing:
        return not_found(request, missing.message)
    except game_services.ServiceError as error:
        if request.htmx:
            refused = {"report_said": (message_pk, error.message, True, reason)}
            return render_match(request, match, status=error.status, said=refused)
        return render(
            request,
            "games/action_refused.html",
            {"message": error.message, "match_id": pk, "visible": True},
            status=error.status,
        )
    if request.htmx:
        return render_match(request, match, said={"report_said": (message_pk, said, False, "")})
    messages.success(request, said)
    return _back_to_messages(request, pk, f"#message-{message_pk}")
