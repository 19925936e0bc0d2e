from __future__ import annotations

import secrets

from django import forms

from accounts.forms import FocusFirstRefused, one_space
from accounts.models import User
from games import services
from games.engine.base import Game
from games.models import DAYS_PER_MOVE_CHOICES, OnTimeout, TimeControl
from games.services import ClockSpec, SeatSpec

POSITIONS = [("first", "I move first"), ("last", "I move last"), ("random", "Random seat")]
INVITE_NEEDS_NAME = "Type the username or display name of the player you invite."
NO_ONE_ELSE = "Choose who plays on the other seat."
SEAT_NEEDS_SOMEONE = "Choose who plays on this seat."
PLAYERS_OUT_OF_RANGE = "Choose between {low} and {high} players."
# The page without its script: the number changed, then Create pressed instead of Set.
TOO_MANY_SEATS = (
    "{players} players leave {opponents} other {seats}, but {filled} are filled: "
    "choose {needed} players, or press Set to show {opponents}."
)
# The one <datalist> of recent opponents that every invite field offers (``MatchCreateForm.suggest``).
SUGGESTIONS_ID = "recent-opponents"
SUGGESTIONS_HELP = "Players you played with lately are suggested as you type."
# An option's values in a sentence, under its field; the game's "How to play" page explains them in full.
OPTION_HELP = {
    "mancala": {
        "variant": "Egyptian: captures and extra turns. Ethiopian: the same, and you choose the direction each turn. "
        "Nigerian: relay sowing, and a tile that reaches 4 coins is banked. "
        "Kalah: Egyptian, but a capture needs coins in the tile across.",
    },
    "mesopotamia": {
        "start_card": "Yes: every player starts with one card, playable from the first turn on.",
        "discard": "Reshuffle: played cards are shuffled into a new deck when it runs out. "
        "Remove: each card is played once at most.",
    },
}


def _or(value, default):
    return default if value is None else value


def _invitee_username(name: str) -> str:
    """The username of the player called ``name`` (a username or a display name, any case).
    Anything else comes back as typed, so that match_create names it in its error. Spaces
    count as display names are saved: any run of them as one."""
    name = one_space(name)
    players = User.objects.filter(is_active=True)
    if not name or players.filter(username__iexact=name).exists():
        return name
    namesakes = list(players.filter(display_name__iexact=name).values_list("username", flat=True)[:2])
    return namesakes[0] if len(namesakes) == 1 else name


BANK_FIELDS = ("bank_initial_days", "bank_increment_days", "bank_cap_days")
CLOCK_FIELDS = ("time_control", "days_per_move", *BANK_FIELDS, "on_timeout")
# Where a clock the service refuses is named: a time bank's cap below its start, beside the cap.
CLOCK_REFUSED_AT = {TimeControl.PER_MOVE: "days_per_move", TimeControl.BANK: "bank_cap_days"}
# The clock's fields each time control leaves out (the page hides them).
CLOCK_FIELDS_UNUSED = {
    TimeControl.NONE: ("days_per_move", *BANK_FIELDS, "on_timeout"),
    TimeControl.PER_MOVE: BANK_FIELDS,
    TimeControl.BANK: ("days_per_move",),
}


class MatchCreateForm(FocusFirstRefused, forms.Form):
    """Options of one game and, for every seat beside the creator's, who sits there."""

    position = forms.ChoiceField(choices=POSITIONS, initial="first", label="Your seat")
    # Not required: a form without them (an older page, a script) makes a match without a clock.
    time_control = forms.ChoiceField(
        choices=TimeControl.choices, initial=TimeControl.NONE, label="Time control", required=False
    )
    days_per_move = forms.TypedChoiceField(
        choices=[(days, f"{days} day{'s' if days > 1 else ''}") for days in DAYS_PER_MOVE_CHOICES],
        coerce=int,
        initial=3,
        label="Days per move",
        required=False,
        empty_value=3,
    )
    bank_initial_days = forms.IntegerField(
        min_value=1, max_value=60, initial=7, required=False, label="Time bank: days at the start"
    )
    bank_increment_days = forms.IntegerField(
        min_value=0, max_value=14, initial=1, required=False, label="Days added per move"
    )
    bank_cap_days = forms.IntegerField(min_value=1, max_value=90, initial=14, required=False, label="At most (days)")
    on_timeout = forms.ChoiceField(
        choices=OnTimeout.choices,
        initial=OnTimeout.LOSE,
        label="When a clock runs out",
        required=False,
        help_text="With more than two players the AI always takes the late player's seat.",
    )

    # Not required, as the clock's: a form without them makes a rated public match, its messages the players'.
    rating = forms.ChoiceField(
        choices=[("rated", "Rated: the result changes the players' ratings"), ("casual", "Casual: no rating changes")],
        initial="rated",
        required=False,
        label="Rating",
    )
    visibility = forms.ChoiceField(
        choices=[("public", "Public: anyone may watch, signed in or not"), ("private", "Private: its players only")],
        initial="public",
        required=False,
        label="Who may watch",
    )
    chat = forms.ChoiceField(
        choices=[("players", "Its players only"), ("everyone", "Everyone who may watch")],
        initial="players",
        required=False,
        label="Who reads the players' messages",
    )

    # One per form shown: the same form sent again (Back, then Create) finds the match it made.
    # (No length limit here: a hidden field's refusal would show nowhere. The view reads at most FORM_TOKEN_LENGTH.)
    form_token = forms.CharField(widget=forms.HiddenInput, required=False)
    suggestions_id = SUGGESTIONS_ID

    def __init__(self, game: Game, *args, creator: User, setting_players: bool = False, **kwargs):
        """``setting_players``: the page's Set button (no script) sent the form to be drawn
        again with the number of seat blocks chosen; only that number is checked."""
        super().__init__(*args, **kwargs)
        self.game = game
        self.creator = creator
        self.setting_players = setting_players
        self.suggestions: list[tuple[str, str]] = []  # (username, display name or ""): ``suggest``
        unused = CLOCK_FIELDS_UNUSED.get(self.data.get("time_control") or TimeControl.NONE, ()) if self.is_bound else ()
        if unused:  # hidden on the page: a value left there (a 0 typed before switching) must not refuse the form
            self.data = self.data.copy()
            for name in unused:  # and a form sent back for another field shows their defaults, not "1 day"
                self.data[name] = str(self.fields[name].initial)
        if not self.is_bound:
            self.initial["form_token"] = secrets.token_urlsafe(16)
        for name, allowed in game.options.items():
            self.fields[f"option_{name}"] = forms.ChoiceField(
                label=name.replace("_", " ").capitalize(),
                choices=[(value, value.replace("_", " ").capitalize()) for value in allowed],
                initial=allowed[0],
                help_text=OPTION_HELP.get(game.slug, {}).get(name, ""),
            )
        if game.min_players < game.max_players:
            low, high = game.min_players, game.max_players
            self.fields["players"] = forms.TypedChoiceField(
                choices=[(number, str(number)) for number in range(low, high + 1)],
                coerce=int,
                empty_value=None,
                # Not required: a form without it (an older page, a script) counts the seats filled.
                required=False,
                initial=low,
                label="Players",
                help_text=f"{low} to {high}, you included.",
                error_messages={"invalid_choice": PLAYERS_OUT_OF_RANGE.format(low=low, high=high)},
            )
        occupants = [("open", "Open seat: anyone may join"), ("invite", "Invite a player")]
        occupants += [(f"ai:{level}", f"AI: {label}") for level, label in game.ai_levels.items()]
        for number in range(1, game.max_players):
            # No "no one" choice: the number of players says which seats are played. Empty is
            # accepted (not offered) for a form without that number, as a seat left out.
            self.fields[f"seat_{number}"] = forms.ChoiceField(
                label=f"Opponent {number}",
                choices=occupants,
                required=number < game.min_players,
                initial=occupants[2][0] if len(occupants) > 2 else "open",
                error_messages={"required": SEAT_NEEDS_SOMEONE},
            )
            self.fields[f"invite_{number}"] = forms.CharField(
                label=f"Username or display name to invite (opponent {number})", required=False, max_length=150
            )
        # In the page's order, so that the first refused field (autofocus) is the first one seen.
        seating = ["players", "position"] + [
            f"{kind}_{n}" for n in range(1, game.max_players) for kind in ("seat", "invite")
        ]
        self.order_fields([name for name in self.fields if name not in seating] + seating)
        self.opponents_shown = self._opponents_shown()
        if setting_players and self.is_bound:
            # A seat block shown again after it was hidden (so not sent) offers the usual choice;
            # and the page opens at the number, above the seats it just showed.
            self.data = self.data.copy()
            for number in range(1, game.max_players):
                self.data.setdefault(f"seat_{number}", self.fields[f"seat_{number}"].initial)
            if "players" in self.fields:
                self.fields["players"].widget.attrs["autofocus"] = True

    def suggest(self, players: list[User]) -> None:
        """Offer ``players`` in every invite field: each option fills in a username (which the form
        accepts as it accepts a display name) and shows the display name beside it."""
        self.suggestions = [
            (player.username, player.display_name if player.display_name != player.username else "")
            for player in players
        ]
        if not self.suggestions:
            return
        for number in range(1, self.game.max_players):
            self.fields[f"invite_{number}"].widget.attrs["list"] = SUGGESTIONS_ID
            # On the bound field: a sent form made it (and read the field's help) when it was checked.
            self[f"invite_{number}"].help_text = SUGGESTIONS_HELP

    def seat_rows(self):
        """(seat field, invite field, shown) for every opponent's seat the game may have: the
        page holds them all, those beyond the number of players hidden and disabled (site.js
        shows them when the number changes; without it, the Set button draws the page again)."""
        return [
            (self[f"seat_{n}"], self[f"invite_{n}"], n <= self.opponents_shown) for n in range(1, self.game.max_players)
        ]

    def _players_sent(self) -> int | None:
        """The number of players the form holds, if one of the game's; else None."""
        if "players" not in self.fields:
            return self.game.max_players
        value = self.data.get("players") if self.is_bound else self.initial.get("players", self.game.min_players)
        try:
            players = int(value)
        except (TypeError, ValueError):
            return None
        return players if self.game.min_players <= players <= self.game.max_players else None

    def _seats_filled(self) -> list[int]:
        """The numbers of the opponents' seats the sent form fills."""
        if not self.is_bound:
            return []
        return [n for n in range(1, self.game.max_players) if self.data.get(f"seat_{n}")]

    def _opponents_shown(self) -> int:
        """How many opponents' seat blocks the page shows: as many as the number of players
        asks for, and every seat filled beside (a number lowered without Set, or refused, or
        not sent), so that nothing filled in is hidden; Set shows the number chosen."""
        players = self._players_sent()
        filled = self._seats_filled()
        if players is not None and (self.setting_players or not filled):
            return players - 1
        return max(players or self.game.min_players, max(filled, default=0) + 1) - 1

    def option_fields(self):
        return [self[f"option_{name}"] for name in self.game.options]

    def clean(self):
        """Every problem at once, each beside its field: the service's refusals of an invitation
        or a clock are asked for here too (it refuses only the first, and only once the rest
        of the form is right)."""
        data = super().clean()
        if self.setting_players:
            return data
        specs: list[SeatSpec] = []
        invited: set[int] = set()
        players = data.get("players") if "players" in self.fields else self.game.max_players
        if players is not None:  # else every seat filled counts, as the form had no number before
            self._check_seats_match(players)
        for number in range(1, players or self.game.max_players):
            choice = data.get(f"seat_{number}") or ""
            if choice == "open":
                specs.append(SeatSpec("open"))
            elif choice == "invite":
                name = (data.get(f"invite_{number}") or "").strip()
                username = _invitee_username(name)
                specs.append(SeatSpec("user", username=username))
                if not name:
                    self.add_error(f"invite_{number}", INVITE_NEEDS_NAME)
                else:
                    self._check(
                        f"invite_{number}", services.invitee, name=username, creator=self.creator, invited=invited
                    )
            elif choice.startswith("ai:"):
                specs.append(SeatSpec("ai", ai_level=int(choice[3:])))
        seat_refused = any(f"seat_{number}" in self.errors for number in range(1, self.game.max_players))
        if not specs and not seat_refused:  # a refused choice says why already
            self.add_error(None, NO_ONE_ELSE)
        data["seat_specs"] = specs
        data["rated"] = data.get("rating") != "casual"
        data["public"] = data.get("visibility") != "private"
        data["chat_public"] = data.get("chat") == "everyone" and data["public"]
        data["options"] = {name: data.get(f"option_{name}") for name in self.game.options}
        data["clock"] = ClockSpec(
            time_control=data.get("time_control") or TimeControl.NONE,
            days_per_move=data.get("days_per_move"),
            bank_initial_days=_or(data.get("bank_initial_days"), 7),
            bank_increment_days=_or(data.get("bank_increment_days"), 1),
            bank_cap_days=_or(data.get("bank_cap_days"), 14),
            on_timeout=data.get("on_timeout") or OnTimeout.LOSE,
        )
        if not any(name in self.errors for name in CLOCK_FIELDS):  # a refused field says why already
            self._check(
                CLOCK_REFUSED_AT.get(data["clock"].time_control, "time_control"),
                services.clock_fields,
                data["clock"],
                players=len(specs) + 1,
            )
        return data

    def _post_clean(self) -> None:
        super()._post_clean()
        if self.setting_players:  # the rest is checked when the form is sent to make its match
            for name in [name for name in self.errors if name != "players"]:
                del self.errors[name]

    def _check_seats_match(self, players: int) -> None:
        """Each of the ``players`` - 1 opponents' seats filled, and none beyond (refused at the
        number, where it was changed, and kept: the page shows every seat filled)."""
        for number in range(1, players):
            if not self.data.get(f"seat_{number}") and f"seat_{number}" not in self.errors:
                self.add_error(f"seat_{number}", SEAT_NEEDS_SOMEONE)
        filled = self._seats_filled()
        if filled and filled[-1] >= players:
            opponents = players - 1
            self.add_error(
                "players",
                TOO_MANY_SEATS.format(
                    players=players,
                    opponents=opponents,
                    seats="seat" if opponents == 1 else "seats",
                    filled=len(filled),
                    needed=filled[-1] + 1,
                ),
            )

    def _check(self, field: str, service_check, *args, **kwargs) -> None:
        """The service's refusal, if any, as an error of ``field``."""
        try:
            service_check(*args, **kwargs)
        except services.ServiceError as error:
            self.add_error(field, error.message)
