"""Text and marks are readable against what they stand on, measured from the colours the
browser computes: every piece of text on the pages a visitor or a player sees, also the
numbers and letters drawn on the SVG boards, has the contrast WCAG AA asks for (4.5:1, or
3:1 for large text), and the marks that tell where a move may go or where the keyboard is
have 3:1 against the square or hex under them (WCAG 1.4.11). Disabled controls are left
out, as WCAG exempts them (the pages have none today)."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from chat.models import Message
from games.services import ClockSpec, creating
from tests.conftest import make_user
from tests.e2e.conftest import console_checked_page
from tests.e2e.pages import log_in, write_messages
from tests.games.conftest import play_random_moves, start_timed_match

pytestmark = [pytest.mark.e2e]

# Colours as the page shows them. `shown(e, [layer])` paints a layer inside element e and each
# of its ancestors in turn: their background colours (each colour of a gradient, one result
# each), and their opacity, which fades the whole group, text and background alike.
COLOURS = """
    const parse = (css) => {
        const m = css && css.match(/^rgba?\\(([^)]+)\\)$/);
        if (!m) return null;
        const [r, g, b, a = 1] = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
        return {r, g, b, a};
    };
    const CLEAR = {r: 0, g: 0, b: 0, a: 0}, WHITE = {r: 255, g: 255, b: 255, a: 1};
    const over = (top, below) => {
        const a = top.a + below.a * (1 - top.a);
        const mix = (x, y) => a && (x * top.a + y * below.a * (1 - top.a)) / a;
        return {r: mix(top.r, below.r), g: mix(top.g, below.g), b: mix(top.b, below.b), a};
    };
    const shown = (element, layers) => {
        for (let e = element; e; e = e.parentElement) {
            const style = getComputedStyle(e), plain = parse(style.backgroundColor) || CLEAR;
            const stops = (style.backgroundImage.match(/rgba?\\([^)]+\\)/g) || []).map(parse);
            const backs = stops.length ? stops.map((stop) => over(stop, plain)) : [plain];
            layers = layers.flatMap((layer) => backs.map((back) => {
                const c = over(layer, back);
                return {...c, a: c.a * Number(style.opacity)};
            }));
        }
        return layers.map((c) => over(c, WHITE));
    };
    const luminance = ({r, g, b}) => {
        const linear = (v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
        return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
    };
    const ratio = (x, y) => {
        const [light, dark] = [luminance(x), luminance(y)].sort((p, q) => q - p);
        return (light + 0.05) / (dark + 0.05);
    };
    const worst = (inks, backs) => Math.min(...inks.map((ink, i) => ratio(ink, backs[i])));
    const label = (e) => `${e.tagName.toLowerCase()}.${[...e.classList].join(".")} `
        + `'${e.textContent.trim().slice(0, 20)}'`;
    const seen = (e) => e.getClientRects().length && getComputedStyle(e).visibility !== "hidden"
        && !e.closest(".visually-hidden");
    const large = (px, style) => px >= 24 || (Number(style.fontWeight) >= 700 && px >= 18.66);
"""

# Each text whose contrast falls short, as "tag.class 'text' ratio". Text in an SVG stands on
# the last shape drawn before it under its middle (a pilgrim, a hex, a piece).
LOW_CONTRAST = (
    "() => {"
    + COLOURS
    + """
    const failing = [];
    const check = (e, ratio, needed) => {
        if (ratio < needed) failing.push(`${label(e)} ${ratio.toFixed(2)}`);
    };
    for (const e of document.querySelectorAll("body *")) {
        if (e.closest("svg, :disabled") || !seen(e)) continue;
        if (![...e.childNodes].some((node) => node.nodeType === 3 && node.textContent.trim())) continue;
        const style = getComputedStyle(e);
        check(e, worst(shown(e, [parse(style.color)]), shown(e, [CLEAR])),
              large(parseFloat(style.fontSize), style) ? 3 : 4.5);
    }
    for (const text of document.querySelectorAll("svg text")) {
        const svg = text.ownerSVGElement, box = text.getBoundingClientRect();
        if (!seen(text) || !box.width) continue;
        const x = box.x + box.width / 2, y = box.y + box.height / 2;
        let under = CLEAR;
        for (const shape of svg.querySelectorAll("path, rect, circle, polygon")) {
            if (text.compareDocumentPosition(shape) & Node.DOCUMENT_POSITION_FOLLOWING) break;
            const style = getComputedStyle(shape), fill = parse(style.fill), edge = shape.getBoundingClientRect();
            if (!fill || x < edge.left || x > edge.right || y < edge.top || y > edge.bottom) continue;
            under = {...fill, a: fill.a * Number(style.fillOpacity) * Number(style.opacity)};
        }
        const style = getComputedStyle(text), fill = parse(style.fill);
        let fade = Number(style.fillOpacity);
        for (let e = text; e !== svg; e = e.parentElement) fade *= Number(getComputedStyle(e).opacity);
        const backs = shown(svg, [CLEAR]).map((back) => over(under, back));
        const px = parseFloat(style.fontSize) * svg.getScreenCTM().a;  // user units to CSS pixels
        check(text, worst(backs.map((back) => over({...fill, a: fill.a * fade}, back)), backs),
              large(px, style) ? 3 : 4.5);
    }
    return failing;
}"""
)

# Each mark with less than 3:1 against what is beside it, as "what: tag.class 'text' ratio": where a
# pilgrim may go (outline and plus) and which may be removed (badge and cross), which Mancala tile may
# be sown, Mesopotamia's hexes to choose or to go to, and the frame of a Mecca square the keyboard is on.
LOW_CONTRAST_MARKS = (
    "() => {"
    + COLOURS
    + """
    const failing = [];
    const check = (e, mark, back, what) => {
        const r = ratio(over(mark, back), back);
        if (r < 3) failing.push(`${what}: ${label(e)} ${r.toFixed(2)}`);
    };
    for (const cell of document.querySelectorAll(".mecca-cell.target, .tile.playable")) {
        const inset = parseFloat(getComputedStyle(cell).outlineOffset) < 0;
        check(cell, parse(getComputedStyle(cell).outlineColor), shown(inset ? cell : cell.parentElement, [CLEAR])[0],
              "a move's mark");
    }
    // Mecca's "+" where a pilgrim may go: its bars on the square under them (every colour of a hatching).
    for (const plus of document.querySelectorAll(".mecca-cell .may-place")) {
        const bars = parse(getComputedStyle(plus).backgroundImage.match(/rgba?\\([^)]+\\)/)[0]);
        for (const square of shown(plus.parentElement, [CLEAR])) check(plus, bars, square, "a place's plus");
    }
    // Mecca's red "×" badge on a pilgrim that may be removed stands off the pilgrim and the square it overlaps by
    // one of its layers (its red, a light line round it, a dark one round that), and its cross off its red.
    for (const badge of document.querySelectorAll(".mecca-cell .may-remove")) {
        const style = getComputedStyle(badge), fill = parse(style.backgroundColor);
        const cross = parse(style.backgroundImage.match(/rgba?\\([^)]+\\)/g).find((c) => parse(c).a === 1));
        const ring = parse(style.boxShadow.match(/rgba?\\([^)]+\\)/)[0]);
        const pilgrim = badge.parentElement.querySelector(".pilgrim");
        for (const under of [shown(pilgrim, [CLEAR])[0], ...shown(badge.parentElement, [CLEAR])]) {
            const layers = [fill, parse(style.borderTopColor), ring];
            const edge = Math.max(...layers.map((layer) => ratio(over(layer, under), under)));
            if (edge < 3) failing.push(`a removal's badge, edge: ${label(badge)} ${edge.toFixed(2)}`);
        }
        check(badge, cross, fill, "a removal's cross");
    }
    // The hexes a chosen tribe may go to (shown once it is chosen): their outline on the hex under them.
    for (const dest of document.querySelectorAll(".meso-dests.is-shown .meso-dest")) {
        const [x, y] = dest.getAttribute("transform").match(/-?[\\d.]+/g).map(Number);
        const hex = [...document.querySelectorAll(".meso-hex")].find((h) => {
            const [hx, hy] = h.getAttribute("transform").match(/-?[\\d.]+/g).map(Number);
            return Math.abs(hx - x) < 1 && Math.abs(hy - y) < 1;
        });
        const under = parse(getComputedStyle((hex || document).querySelector(hex ? ".meso-tile" : ".meso-sea")).fill);
        check(dest, parse(getComputedStyle(dest.querySelector(".meso-dest-hex")).stroke), under, "a hex to go to");
    }
    for (const target of document.querySelectorAll(".meso-target")) {
        const tile = target.parentElement.querySelector(".meso-tile") || document.querySelector(".meso-sea");
        check(target.parentElement, parse(getComputedStyle(target).stroke), parse(getComputedStyle(tile).fill),
              "a hex to choose");
    }
    // Every square the keyboard can be on, a playable one and the Kaaba's (a refused click leaves the focus
    // there) too. The frame is drawn inside the square: it stands on the square's own colour inside and on
    // what is just outside the square (the board between squares, or the Kaaba's black round its squares).
    for (const cell of document.querySelectorAll("button.mecca-cell")) {
        cell.focus();  // after a Tab press, so it shows the frame a keyboard user sees
        const style = getComputedStyle(cell), frame = parse(style.outlineColor);
        if (!cell.matches(":focus-visible") || style.outlineStyle === "none" || parseFloat(style.outlineWidth) < 2) {
            failing.push(`the keyboard's frame: ${label(cell)} not drawn`);
            continue;
        }
        const ring = style.boxShadow.match(/^(rgba?\\([^)]+\\)) 0px 0px 0px (\\d+)px$/);
        const outside = ring && parseFloat(ring[2]) >= 2 ? parse(ring[1]) : shown(cell.parentElement, [CLEAR])[0];
        const what = cell.classList.contains("mat-kaaba") ? "the Kaaba" : cell.classList.contains("target")
            ? "a playable square" : "a square";
        check(cell, frame, shown(cell, [CLEAR])[0], `the keyboard's frame on ${what}, inside`);
        check(cell, frame, over(outside, shown(cell.parentElement, [CLEAR])[0]),
              `the keyboard's frame on ${what}, outside`);
        cell.blur();
    }
    return failing;
}"""
)

# The largest tables (every Mecca crescent is in play with six colours), all human; a
# two-player Mesopotamia has neutral huts.
GAMES = {"mancala": 2, "mecca": 6, "jeexa": 4, "mesopotamia": 4}


def mid_game(viewer, others, slug, seats, rng, moves):
    """A match after some random moves, stopped where the viewer (seat 0) is to act."""
    match = start_timed_match(viewer, *others[: seats - 1], clock=ClockSpec(), game=slug)
    game, players = match.game_obj, [viewer, *others]
    play_random_moves(match, players, rng, limit=moves)
    play_random_moves(match, players, rng, until=lambda: game.to_act(game.load(match.state))[:1] == (0,))
    return match


def removing(viewer, others, rng):
    """A six-colour Mecca stopped where the viewer may remove a pilgrim: its badges shown."""
    match = start_timed_match(viewer, *others[:5], clock=ClockSpec(), game="mecca")
    game = match.game_obj

    def viewer_may_remove() -> bool:
        state = game.load(match.state)
        return game.to_act(state)[:1] == (0,) and "pass" in game.legal_moves(state, 0)

    assert not play_random_moves(match, [viewer, *others], rng, until=viewer_may_remove)
    return match


def finished(viewer, others, slug, seats, rng):
    match = start_timed_match(viewer, *others[: seats - 1], clock=ClockSpec(), game=slug)
    assert play_random_moves(match, [viewer, *others], rng)
    return match


def measure(page: Page, low: dict, path: str) -> None:
    page.keyboard.press("Tab")  # keyboard focus shows its frame
    if found := page.evaluate(LOW_CONTRAST) + page.evaluate(LOW_CONTRAST_MARKS):
        low[path] = found


def test_text_and_marks_on_every_page_have_aa_contrast(browser: Browser, live_server, db, monkeypatch):
    viewer = make_user("petra", display_name="Petra")
    others = [make_user(name) for name in ("quinn", "rosa", "sami", "tomas", "ulla")]
    rng = random.Random(7)
    # The same positions every run: with each match's own random seed, a six-colour Mecca once
    # ended before Petra could remove a pilgrim.
    seeds = iter(range(1000, 2000))
    monkeypatch.setattr(creating, "new_seed", lambda: next(seeds))
    moves = {"mancala": 12, "mecca": 60, "jeexa": 40, "mesopotamia": 60}
    playing = [mid_game(viewer, others, slug, seats, rng, moves[slug]) for slug, seats in GAMES.items()]
    playing.append(mid_game(viewer, others, "mesopotamia", 2, rng, 20))
    playing.append(start_timed_match(viewer, *others[:3], clock=ClockSpec(), game="mecca"))
    playing.append(removing(viewer, others, rng))
    moving = start_timed_match(viewer, others[0], clock=ClockSpec(), game="mesopotamia")  # tribes to choose
    ended = [finished(viewer, others, slug, seats, rng) for slug, seats in GAMES.items()]
    pages = [
        reverse("dashboard"),
        reverse("finished_matches"),
        reverse("lobby"),
        reverse("profile"),
        reverse("account_email"),
        reverse("account_close"),
        reverse("player", args=["quinn"]),
        *(reverse("match_new", args=[slug]) for slug in GAMES),
        reverse("match_new", args=["jeexa"]) + "?invite=quinn",  # an invite field shown, with its help
        *(reverse("match_detail", args=[match.pk]) for match in playing + ended),
        *(reverse("match_replay", args=[match.pk]) + "?ply=5" for match in ended),
    ]
    viewer.confirm_moves = True  # a click on the board chooses a move, and a bar offers to send it
    viewer.save()
    write_messages(playing[0], viewer, others[0])
    Message.objects.create(match=ended[0], author=others[0], text="good game!", after_move=1)  # "New message"
    low: dict[str, list[str]] = {}
    with console_checked_page(browser, viewport={"width": 1100, "height": 900}) as page:
        for path in ["/", *(reverse("game_rules", args=[slug]) for slug in GAMES), reverse("account_signup")]:
            page.goto(live_server.url + path)
            measure(page, low, path)
        page.get_by_role("button", name="Sign up").click()  # empty: every field says what it needs
        measure(page, low, "sign up, refused")
        page.goto(live_server.url + reverse("account_login"))
        page.get_by_label("Username or email").fill("petra")
        page.get_by_label("Password").fill("not the password")
        page.get_by_role("button", name="Sign in").click()
        measure(page, low, "sign in, refused")
        log_in(page, live_server.url, "petra")
        for path in pages:
            page.goto(live_server.url + path)
            measure(page, low, path)
        mecca = playing[1]
        page.goto(live_server.url + reverse("match_detail", args=[mecca.pk]))
        page.locator("#board button.mecca-cell:not(.target)").first.click()  # refused, with its reason
        expect(page.get_by_role("alert")).to_be_visible()
        measure(page, low, "a refused Mecca move")
        page.locator("#board button.mecca-cell.target").first.click()
        expect(page.locator(".move-confirm")).to_be_visible()
        measure(page, low, "a Mecca square chosen")
        page.goto(live_server.url + reverse("match_detail", args=[moving.pk]))
        page.locator("#board .meso-camp").first.click()  # a tribe chosen (on a hex of several, in a chooser)
        if (chooser := page.locator(".meso-chooser:popover-open [data-pick]")).count():
            chooser.first.click()
        expect(page.locator("#board .meso-dests.is-shown .meso-dest").first).to_be_visible()
        measure(page, low, "a Mesopotamia tribe chosen")
        page.goto(live_server.url + reverse("match_detail", args=[playing[0].pk]))
        page.locator("#board .sow").first.click()
        expect(page.locator(".move-confirm")).to_be_visible()
        measure(page, low, "a Mancala move chosen")
        page.locator("#messages .report summary").first.click()
        measure(page, low, "a Report… opened")
        page.get_by_label("Write to the players").fill(" ")
        page.get_by_role("button", name="Send").click()
        expect(page.locator("#messages .error")).to_be_visible()
        measure(page, low, "a message refused")
    assert low == {}
