"""Text is readable against what it stands on: every piece of text in the pages a player
uses has the contrast WCAG AA asks for (4.5:1, or 3:1 for large text), measured from the
colours the browser computes. Text on a picture (the SVG maps and boards, a text shadow)
and disabled controls are left out: WCAG exempts the last, the first need a human eye."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Browser

from games.services import ClockSpec
from tests.conftest import make_user
from tests.e2e.conftest import console_checked_page
from tests.e2e.pages import log_in
from tests.games.conftest import start_timed_match

pytestmark = [pytest.mark.e2e]

# Each text element below <main> whose contrast falls short, as "tag.class 'text' ratio".
LOW_CONTRAST = """() => {
    const parse = (css) => {
        const m = css.match(/^rgba?\\(([^)]+)\\)$/);
        if (!m) return null;
        const [r, g, b, a = 1] = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
        return {r, g, b, a};
    };
    const over = (top, below) => ({  // a see-through colour as it shows over another
        r: top.r * top.a + below.r * (1 - top.a), g: top.g * top.a + below.g * (1 - top.a),
        b: top.b * top.a + below.b * (1 - top.a), a: 1});
    const luminance = ({r, g, b}) => {
        const linear = (v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
        return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
    };
    const background = (element) => {  // null where an image lies behind the text
        const layers = [];
        for (let e = element; e; e = e.parentElement) {
            const style = getComputedStyle(e);
            if (style.backgroundImage !== "none") return null;
            const colour = parse(style.backgroundColor);
            if (colour && colour.a > 0) layers.push(colour);
            if (colour && colour.a === 1) break;
        }
        return layers.reduceRight((below, top) => over(top, below), {r: 255, g: 255, b: 255, a: 1});
    };
    const failing = [];
    for (const element of document.querySelectorAll("main *")) {
        if (element.closest("svg, :disabled, .visually-hidden")) continue;
        if (![...element.childNodes].some((node) => node.nodeType === 3 && node.textContent.trim())) continue;
        const style = getComputedStyle(element);
        if (style.visibility === "hidden" || !element.getClientRects().length || style.textShadow !== "none") continue;
        const behind = background(element), ink = parse(style.color);
        if (!behind || !ink) continue;
        const [light, dark] = [luminance(over(ink, behind)), luminance(behind)].sort((x, y) => y - x);
        const ratio = (light + 0.05) / (dark + 0.05);
        const size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
        const large = size >= 24 || (bold && size >= 18.66);
        if (ratio < (large ? 3 : 4.5)) {
            failing.push(`${element.tagName.toLowerCase()}.${element.className} '${element.textContent.trim()
                .slice(0, 20)}' ${ratio.toFixed(2)}`);
        }
    }
    return failing;
}"""
# The largest tables (every Mecca crescent is in play with six colours), all human.
GAMES = {"mancala": 2, "mecca": 6, "jeexa": 4, "mesopotamia": 4}


def test_all_text_on_the_players_pages_has_aa_contrast(browser: Browser, live_server, db):
    viewer = make_user("petra", display_name="Petra")
    others = [make_user(name) for name in ("quinn", "rosa", "sami", "tomas", "ulla")]
    matches = [start_timed_match(viewer, *others[: seats - 1], clock=ClockSpec(), game=slug)
               for slug, seats in GAMES.items()]
    matches.append(start_timed_match(viewer, others[0], others[1], others[2], clock=ClockSpec(), game="mecca"))
    pages = [reverse("dashboard"), reverse("lobby"), reverse("profile"),
             *(reverse("match_new", args=[slug]) for slug in GAMES),
             *(reverse("game_rules", args=[slug]) for slug in GAMES),
             *(reverse("match_detail", args=[match.pk]) for match in matches)]
    with console_checked_page(browser) as page:
        log_in(page, live_server.url, "petra")
        low = {}
        for path in pages:
            page.goto(live_server.url + path)
            if found := page.evaluate(LOW_CONTRAST):
                low[path] = found
    assert low == {}
