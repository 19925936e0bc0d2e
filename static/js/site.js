// Keyboard for elements that act as buttons without being <button>s (the clickable hexes
// of an SVG map): Enter or Space clicks them, as it would a button. A trigger filter such
// as hx-trigger="keyup[key=='Enter']" would need eval, which our CSP and htmx config forbid.
document.addEventListener("keydown", (event) => {
  const target = event.target;
  if ((event.key === "Enter" || event.key === " ") && target instanceof Element
      && target.matches('[role="button"]:not(button)')) {
    event.preventDefault();
    target.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
  }
});

// The pages that show matches as they stand are sent "no-store", yet a browser may keep them all
// the same and show them again as they were on Back (Safari does, and Chrome may): "Your turn" after
// the move was made, or, after signing out, the player's matches to whoever comes next. Load them
// again; the server says what is true now (or asks to sign in).
// Other pages shown again keep what they said, but for the top bar's count of matches waiting
// for the player (and the tab's "(2) "): ask for it again.
window.addEventListener("pageshow", (event) => {
  if (!event.persisted) return;
  if (document.querySelector("[data-fresh-on-back]")) {
    window.location.reload();
    return;
  }
  const link = document.getElementById("my-matches");
  if (!link || !link.dataset.countUrl) return;
  htmx.ajax("GET", link.dataset.countUrl, { target: link, swap: "outerHTML" }).then(() => {
    const count = Number(document.getElementById("my-matches")?.dataset.count || 0);
    document.title = (count ? `(${count}) ` : "") + document.title.replace(/^\(\d+\) /, "");
  });
});

// The match's revision the page shows: a redraw (a move's answer, a poll's) then leaves the messages
// as they are when nothing but moves changed the match since (games/views/match.py, _parts_unchanged).
document.addEventListener("htmx:configRequest", (event) => {
  const live = document.getElementById("live");
  if (live && live.dataset.revision) event.detail.headers["X-Live-Revision"] = live.dataset.revision;
});

// htmx redraws the match (a move, a poll, a replay step) by replacing the element that
// held the keyboard focus, which leaves focus on the page itself: the next Tab would
// start again at the top. Put it back on the same control if it is still there (the same
// move button, the same link), else on the board's first move, else on the status line.
let focusWas = null;

function focusKey(element) {
  if (element.id) return `#${CSS.escape(element.id)}`;
  if (element.matches("button[name][value]")) {
    return `button[name="${CSS.escape(element.name)}"][value="${CSS.escape(element.value)}"]`;
  }
  if (element.hasAttribute("popovertarget")) {
    return `[popovertarget="${CSS.escape(element.getAttribute("popovertarget"))}"]`;
  }
  const testid = element.getAttribute("data-testid");
  return testid ? `[data-testid="${CSS.escape(testid)}"]` : null;
}

// A chooser (Jeexa's ways to turn a piece, a popover) open when a poll redraws the board
// opens again: the redraw would otherwise shut it under the player's finger or keyboard.
// Not after the player's own move or refusal (a POST): its answer is what they look at then.
let chooserWas = null;

document.addEventListener("htmx:beforeSwap", (event) => {
  const active = document.activeElement;
  const target = event.detail.target;
  // Only focus inside the part being replaced is lost; focus anywhere else stays put.
  focusWas = target && active && active !== document.body && target.contains(active) ? focusKey(active) || "" : null;
  const open = target && target.querySelector("[popover]:popover-open");
  chooserWas = open && open.id && event.detail.requestConfig?.verb === "get" ? open.id : null;
});

function reopenChooser() {
  const chooser = chooserWas && document.getElementById(chooserWas);
  chooserWas = null;
  if (chooser && chooser.matches("[popover]:not(:popover-open)")) chooser.showPopover();
}

// A control inside a closed chooser cannot take the focus: its spot's button takes it.
function focusable(element) {
  const chooser = element && element.closest("[popover]:not(:popover-open)");
  return chooser ? document.querySelector(`[popovertarget="${CSS.escape(chooser.id)}"]`) : element;
}

// What a screen reader hears after a redraw: the moves the log gained (the opponent's answer,
// the player's own move with its capture or extra turn), then the new status. The status alone
// said "Your turn" after the AI's move without saying what it was, and nothing at all between
// the steps of one turn (Mecca's pilgrims, Mesopotamia's phases), where it stays the same.
let logSeen = null;

function logNumber(line) {
  return Number(line.getAttribute("value")) || 0;
}

document.addEventListener("htmx:beforeSwap", (event) => {
  const target = event.detail.target;
  logSeen = target && target.querySelector("#log")
    ? Math.max(0, ...[...target.querySelectorAll("#log li[value]")].map(logNumber)) : null;
});

// And, after the status, the messages of the others that the redraw brought (ids above the newest
// the page showed): "New message from Bob: <its start>", or "3 new messages, the last from Bob". Not
// the player's own (data-own: the one just sent), nor one staff removed (it has no text).
const MESSAGE_SAID = 100;  // characters of a new message read out
let messageSeen = null;

function messageNumber(item) {
  return Number(item.dataset.messageId) || 0;
}

document.addEventListener("htmx:beforeSwap", (event) => {
  const target = event.detail.target;
  messageSeen = target && target.querySelector("#messages")
    ? Math.max(0, ...[...target.querySelectorAll("#messages li[data-message-id]")].map(messageNumber)) : null;
});

function newMessagesSaid() {
  if (messageSeen === null) return "";
  const fresh = [...document.querySelectorAll("#messages li[data-message-id]:not([data-own])")]
    .filter((item) => messageNumber(item) > messageSeen && item.querySelector(".chat-text"));
  messageSeen = null;
  if (!fresh.length) return "";
  const last = fresh[fresh.length - 1];
  const author = spoken(last.querySelector(".chat-about > :is(a, strong)"));
  if (fresh.length > 1) return `${fresh.length} new messages, the last from ${author}.`;
  const text = last.querySelector(".chat-text").innerText.replace(/\s+/g, " ").trim();  // a line break (<br>) is a space
  return `New message from ${author}: ${text.length > MESSAGE_SAID ? `${text.slice(0, MESSAGE_SAID)}…` : text}`;
}

function spoken(element) {
  return element.textContent.replace(/\s+/g, " ").trim();
}

document.addEventListener("htmx:afterSettle", (event) => {
  // The top bar's count of matches waiting comes with a redraw of the match (hx-swap-oob) and settles
  // first, on its own: what follows is for the match's part, once it has settled.
  if (event.target instanceof Element && event.target.closest(".topbar")) return;
  const announcer = document.getElementById("announcer");
  if (announcer) {
    const gained = logSeen === null ? []
      : [...document.querySelectorAll("#log li[value]")].filter((line) => logNumber(line) > logSeen).reverse();
    const status = [...document.querySelectorAll("[data-announce]")].map(spoken);
    // The message after the status: its own words end what is said, unpunctuated as they may be.
    const news = newMessagesSaid();
    const said = [...gained.map(spoken), ...status, news].filter(Boolean).join(" ");
    if (said && announcer.textContent !== said) announcer.textContent = said;  // a live region that outlives the swap
    else if (news) {
      // The same words again ("gg" twice): a live region speaks only when its text changes.
      announcer.textContent = "";
      requestAnimationFrame(() => { announcer.textContent = said; });
    }
  }
  logSeen = messageSeen = null;
  reopenChooser();
  if (focusWas === null) return;
  const found = focusable(focusWas && document.querySelector(focusWas));
  focusWas = null;
  // A control that is no longer a Tab stop (a Mecca square just filled) gives way to the board's next move.
  const again = found && found.getAttribute("tabindex") !== "-1" ? found : null;
  const next = again
    // (not a move inside a closed chooser: Jeexa's ways to turn a piece open from their spot's button)
    || document.querySelector('.board :is([name="move"], [popovertarget]):not([tabindex="-1"], [popover] *), '
                              + '.board [role="button"][tabindex="0"]')
    || document.getElementById("status");
  if (next) next.focus({ preventScroll: true });
});

// A server error (5xx), no connection or no answer in time: htmx swaps nothing in, so a click
// would seem to do nothing at all. Say what happened, on top of the page wherever it is
// scrolled to. What the poll met is over once any answer comes (and never hides what a click
// met); what a click met only once the page is redrawn, an action goes through or the next
// move is sent (the poll's "nothing changed" does none of these, so it does not clear those).
const REQUEST_PROBLEMS = {
  move: "Something went wrong on our side, so your move may not have been made. Try it again.",
  slowMove: "The site took too long to answer, so your move may not have been made. Try it again.",
  server: "Something went wrong on our side. Reload the page to see the match as it stands.",
  refused: "The site could not read that request, so nothing was done. Reload the page and try again.",
  message: "Something went wrong on our side, so your message may not have been sent. It is still in its box: "
    + "send it again.",
  messageNotSent: "Your message did not reach the site; it is still in its box. Check your connection and send it again.",
  report: "Your report may not have reached staff: something went wrong, or the site could not be reached. "
    + "Try it again.",
  action: "Your last click did not reach the site, so nothing was done. Check your connection and try again.",
  connection: "The site cannot be reached just now. Check your connection; this page catches up once it is back.",
  unavailable: "The site is not answering just now. This page catches up once it is back.",
};
const POLL_PROBLEMS = new Set(["connection", "unavailable"]);

function isPoll(element) {
  return element instanceof Element && element.matches('[hx-trigger^="every"]');
}

function showProblem(kind, text) {
  const problem = document.getElementById("request-problem");
  if (!problem || (POLL_PROBLEMS.has(kind) && !problem.hidden && !POLL_PROBLEMS.has(problem.dataset.kind))) return;
  document.getElementById("request-problem-text").textContent = text || REQUEST_PROBLEMS[kind];
  problem.dataset.kind = kind;
  problem.hidden = false;
}

// What went wrong, said for a move, for the poll, or for any other click (the replay's steps).
function isMessage(element) {
  return element instanceof Element && element.matches(".chat-form");
}

function showFailure(detail, kinds) {
  const [move, poll, other, message] = kinds;
  const verb = detail.requestConfig ? detail.requestConfig.verb : "get";
  const report = detail.elt instanceof Element && detail.elt.matches(".report-form");
  showProblem(isMessage(detail.elt) ? message : report ? "report" : verb === "post" ? move
    : isPoll(detail.elt) ? poll : other);
}
document.addEventListener("htmx:responseError",
  (event) => showFailure(event.detail, ["move", "unavailable", "server", "message"]));
document.addEventListener("htmx:sendError",
  (event) => showFailure(event.detail, ["action", "connection", "action", "messageNotSent"]));
document.addEventListener("htmx:timeout",
  (event) => showFailure(event.detail, ["slowMove", "connection", "action", "message"]));
document.addEventListener("click", (event) => {
  if (event.target.closest("#request-problem .dismiss")) document.getElementById("request-problem").hidden = true;
});
document.addEventListener("keydown", (event) => {
  const problem = document.getElementById("request-problem");
  if (event.key === "Escape" && problem && !problem.hidden) problem.hidden = true;
});
// Our refusals (a stale or illegal move) come as the part they replace, and are swapped in;
// any other 4xx (Django's own answer to a forged or oversized request) would wipe the board.
const unreadable = new WeakSet();  // requests answered so: the answer does not clear the message
document.addEventListener("htmx:beforeSwap", (event) => {
  const status = event.detail.xhr.status;
  const target = event.detail.target;
  if (status >= 400 && status < 500 && target && target.id
      && !event.detail.serverResponse.includes(`id="${target.id}"`)) {
    event.detail.shouldSwap = false;
    unreadable.add(event.detail.xhr);
    showProblem("refused");
  }
});

// A move on its way (a slow line, a busy server) is said after a moment, and nothing else is
// sent until its answer comes. A second click meanwhile was a second move made on the same
// board (Mesopotamia's hexes post apart from its move buttons), refused, or played instead of
// the first had it arrived first; a click on another square waited, and went out by itself if
// the first failed. And a poll sent before the move but answered before it redrew the board
// as it was, and the move's own answer, meant for the board just replaced, was lost: the move
// seemed not made. So an answer to any request sent before the latest move is not shown.
const SENDING_SAID_AFTER_MS = 300;  // a quick answer does not flash it
let moveOnItsWay = null;
let sendingSaid = null;
let requestsSent = 0;
let lastMoveSent = 0;
const sentAs = new WeakMap();

function saySending(said, element) {
  const notice = document.getElementById("request-pending");
  if (!notice) return;
  // A message's form says what it sends ("Sending your message…"); a move says the notice's own words.
  notice.dataset.move ||= notice.textContent;
  if (said && element) notice.textContent = element.closest("[data-sending]")?.dataset.sending || notice.dataset.move;
  notice.hidden = !said;
}

document.addEventListener("htmx:confirm", (event) => {
  if (!moveOnItsWay) return;
  event.preventDefault();
  if (!isPoll(event.detail.elt)) saySending(true);  // the click did something: it met the move under way
});
document.addEventListener("htmx:beforeSend", (event) => {
  const xhr = event.detail.xhr;
  sentAs.set(xhr, ++requestsSent);
  if (event.detail.requestConfig.verb !== "post") return;
  lastMoveSent = requestsSent;
  moveOnItsWay = xhr;
  const problem = document.getElementById("request-problem");
  if (problem) problem.hidden = true;  // a try again: its own answer says how it went
  const sender = event.detail.elt;
  sendingSaid = setTimeout(() => saySending(true, sender), SENDING_SAID_AFTER_MS);
  // At the very end, however it ended: an answer, an error, no connection or no answer in time.
  xhr.addEventListener("loadend", () => {
    moveOnItsWay = null;
    clearTimeout(sendingSaid);
    saySending(false);
  });
});
const outdated = new WeakSet();
document.addEventListener("htmx:beforeSwap", (event) => {
  if ((sentAs.get(event.detail.xhr) || 0) < lastMoveSent) {
    event.detail.shouldSwap = false;
    outdated.add(event.detail.xhr);
  }
});

// A refused move says why at the top of the status, which a player who clicked low on a
// tall board (Mecca's 11 rows on a phone) has scrolled out of sight: the tap would seem to
// do nothing. Then the reason is also said on top of the screen, until the next answer.
document.addEventListener("htmx:afterSettle", () => {
  const refusal = document.querySelector("#status .error[role=alert]");
  if (!refusal) return;
  // Read only if wholly in sight: its last line peeping in under the top of the screen said nothing.
  const box = refusal.getBoundingClientRect();
  if (box.top >= 0 && box.bottom <= window.innerHeight) return;
  showProblem("refusal", refusal.textContent.trim());
});

document.addEventListener("htmx:afterRequest", (event) => {
  const problem = document.getElementById("request-problem");
  const xhr = event.detail.xhr;
  const status = xhr ? xhr.status : 0;
  if (!problem || problem.hidden || !status || status >= 500 || unreadable.has(xhr)) return;
  if (POLL_PROBLEMS.has(problem.dataset.kind) || (status !== 204 && !outdated.has(xhr))) problem.hidden = true;
});

// A Jeexa puzzle or a Mesopotamia map wider than its box scrolls inside it (on a phone, say):
// mark it, so the line that says so shows. Again after every redraw and when the window changes.
// At the swap itself, before the new board is first laid out: marked at the settle, 20 ms
// later, the line came back above what the player was looking at, and the browser's scroll
// anchoring kept the page where the board without it had put it: a jump at every move.
function markOverflowingPuzzles() {
  for (const box of document.querySelectorAll(".jx-scroll, .meso-map")) {
    box.classList.toggle("overflowing", box.scrollWidth > box.clientWidth + 1);
  }
}
document.addEventListener("DOMContentLoaded", markOverflowingPuzzles);
document.addEventListener("htmx:afterSwap", markOverflowingPuzzles);
window.addEventListener("resize", markOverflowingPuzzles);

// A Mesopotamia map wider than a phone scrolls in its box: open it with the Temple and the
// hexes the player may choose or click (dashed, where discoveries go too) in the middle, or
// those hexes alone where the Temple does not fit beside them (the map grows in every
// direction; the choices were cut off at the edge), and keep where the player scrolled it to
// when a move redraws it.
let mapScrolledTo = null;
document.addEventListener("htmx:beforeSwap", () => {
  const map = document.querySelector(".meso-map");
  mapScrolledTo = map ? map.scrollLeft : null;
});

function placeMap() {
  const map = document.querySelector(".meso-map");
  const temple = map && map.querySelector(".meso-temple");
  if (!temple || map.scrollWidth <= map.clientWidth + 1) return;
  if (mapScrolledTo !== null) {
    map.scrollLeft = mapScrolledTo;
    mapScrolledTo = null;
    return;
  }
  const box = map.getBoundingClientRect();
  const choices = [...map.querySelectorAll(".meso-choice, .meso-clickable, .meso-ghost")]
    .map((hex) => hex.getBoundingClientRect());
  const middle = (spots) => {
    const left = Math.min(...spots.map((spot) => spot.left));
    const right = Math.max(...spots.map((spot) => spot.right));
    return [(left + right) / 2, right - left <= box.width];
  };
  let [centre, fits] = middle([temple.getBoundingClientRect(), ...choices]);
  if (!fits && choices.length) [centre] = middle(choices);  // the choices matter more than the Temple
  map.scrollLeft += centre - (box.left + box.width / 2);
}
document.addEventListener("DOMContentLoaded", placeMap);
document.addEventListener("htmx:afterSettle", placeMap);

// The new-match form hides the clock's fields that the chosen time control does not use
// (site.css). Disable them too: the browser would otherwise refuse to send the form for a
// value left invalid there (a 0 typed before switching), without showing why.
const CLOCK_FIELDS_USED = { ".tc-per-move": ["per_move"], ".tc-bank": ["bank"], ".tc-timed": ["per_move", "bank"] };

function syncClockFields(select) {
  for (const [part, controls] of Object.entries(CLOCK_FIELDS_USED)) {
    select.form.querySelectorAll(`${part} :is(input, select)`).forEach((field) => {
      field.disabled = !controls.includes(select.value);
    });
  }
}
// Not before pageshow: back to the form, the browser puts the choices made there back after
// this script ran, but not into a disabled field (the days per move chosen came back as 3), and
// the fields of the time control chosen then were left disabled, the hidden ones enabled.
window.addEventListener("pageshow", () => {
  document.querySelectorAll('.match-new select[name="time_control"]').forEach(syncClockFields);
});
document.addEventListener("change", (event) => {
  if (event.target instanceof Element && event.target.matches('.match-new select[name="time_control"]')) {
    syncClockFields(event.target);
  }
});

// Jeexa's chooser of ways to turn a piece opens at the foot of the screen (site.css): scroll
// its spot up into sight above it, so that the player sees where the piece would go.
document.addEventListener("toggle", (event) => {
  const chooser = event.target;
  if (event.newState !== "open" || !(chooser instanceof Element) || !chooser.matches(".jx-turns")) return;
  const spot = document.querySelector(`[popovertarget="${CSS.escape(chooser.id)}"]`);
  if (!spot) return;
  const hidden = spot.getBoundingClientRect().bottom + 12 - chooser.getBoundingClientRect().top;
  if (hidden > 0) window.scrollBy({ top: hidden, behavior: "instant" });
}, true);  // toggle does not bubble

// Sign-up keeps the browser's time zone (a hidden field), so a new player's deadlines and
// digest hour are in their own time from the start; the profile can change it.
document.addEventListener("DOMContentLoaded", () => {
  const zone = document.querySelector('input[type="hidden"][name="time_zone"]');
  if (zone && !zone.value) zone.value = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
});

// A redraw of the match (the poll, a move) replaces #live: a <details> the player had opened there
// (Resign…, Cancel this match…, Report…) would shut, and a reason half typed in it would be lost.
// Open again each that is still there, with what was typed in it.
let openBeforeRedraw = [];
document.addEventListener("htmx:beforeSwap", (event) => {
  const live = event.detail.target;
  if (!(live instanceof Element) || live.id !== "live") return;
  openBeforeRedraw = [...live.querySelectorAll("details[open][id]")].map((details) => ({
    id: details.id,
    typed: [...details.querySelectorAll('input[type="text"][id], textarea[id]')].map((field) => [field.id, field.value]),
  }));
});
document.addEventListener("htmx:afterSettle", () => {
  const kept = openBeforeRedraw;
  openBeforeRedraw = [];
  kept.forEach(({ id, typed }) => {
    const details = document.getElementById(id);
    if (!details || !document.getElementById("live")?.contains(details)) return;
    details.open = true;
    typed.forEach(([fieldId, value]) => {
      const field = document.getElementById(fieldId);
      if (field && !field.value) field.value = value;
    });
  });
});

// A message sent empties its box; one refused (its reason is said above the box) or lost stays
// there to be sent again. Not htmx's event.detail.successful: our config swaps a 4xx answer in
// as no error (a refusal is shown), so a refused message counted as successful.
document.addEventListener("htmx:afterRequest", (event) => {
  const form = event.detail.elt;
  const status = event.detail.xhr ? event.detail.xhr.status : 0;
  if (isMessage(form) && status >= 200 && status < 300) form.querySelector("textarea").value = "";
});

// ---- Confirm each move (a profile setting) ----
// The server marks the board data-confirm-moves when its player chose to confirm each move and
// is to act. Then a click (or Enter, Space) on a move does not send it: it chooses it, marked
// by a thick outline and aria-pressed, and a bar beside the board offers "Confirm: <the move>"
// and "Cancel". Another move moves the choice there; a second click on the chosen one or
// Confirm sends it, as the click would have (the same form, the same request); Escape or
// Cancel drops it. All of it lives in the board's own elements, so a redraw of #live (the
// player's move, or a poll that found the match changed) simply drops a choice not sent.
// A double click only chooses: as a choice and its confirmation, a shaky double tap would send the move.
// Not Mecca's unmarked squares: no move, they are sent at once for the reason why not.
const CONFIRMED_MOVES = '[data-confirm-moves] :is(button[name="move"]:not(.mecca-cell:not(.target)), [role="button"][hx-post])';
let moveConfirmed = null;  // the control Confirm clicks: that click goes through

function chosenMove() {
  return document.querySelector('[data-confirm-moves] .move-chosen');
}

// A move in words: a Mecca square says its move apart from its label ("f1, entrance 1, you may choose this
// entrance" read oddly after "Confirm:").
function moveSaid(control) {
  return control.dataset.moveSaid || control.getAttribute("aria-label") || spoken(control);
}

function announceChoice(text) {
  const announcer = document.getElementById("announcer");
  if (announcer) announcer.textContent = text;
}

function dropChoice() {
  const chosen = chosenMove();
  if (!chosen) return null;
  chosen.classList.remove("move-chosen");
  chosen.removeAttribute("aria-pressed");
  document.querySelectorAll(".move-confirm").forEach((bar) => bar.remove());
  return chosen;
}

function confirmBar(control) {
  const bar = document.createElement("div");
  bar.className = "move-confirm";
  bar.setAttribute("role", "group");
  bar.setAttribute("aria-label", "Your move, not sent yet");
  const send = document.createElement("button");
  send.type = "button";
  send.className = "move-confirm-send";
  send.textContent = `Confirm: ${moveSaid(control)}`;
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.className = "secondary move-confirm-cancel";
  cancel.textContent = "Cancel";
  bar.append(send, cancel);
  return bar;
}

function chooseMove(control, byKeyboard) {
  dropChoice();
  control.classList.add("move-chosen");
  control.setAttribute("aria-pressed", "true");
  const bar = confirmBar(control);
  // Jeexa's ways to turn a piece open over the page: the bar goes with them, else under the board.
  (control.closest("[popover]") || control.closest("[data-confirm-moves]")).append(bar);
  // The bar stays at the foot of the screen: a move tapped low on a phone went under it, out of sight.
  const covered = control.getBoundingClientRect().bottom - bar.getBoundingClientRect().top;
  if (covered > 0) window.scrollBy(0, covered + 8);
  announceChoice(`Chosen: ${moveSaid(control)}. Confirm to send it, or Cancel.`);
  if (byKeyboard) bar.querySelector(".move-confirm-send").focus();
}

function focusInBar() {
  return Boolean(document.activeElement && document.activeElement.closest(".move-confirm"));
}

function sendChosenMove() {
  const fromBar = focusInBar();
  const control = dropChoice();
  if (!control) return;
  // The focus would leave with the bar: on the move, the redraw puts it back there or on the board's next move.
  if (fromBar) control.focus({ preventScroll: true });
  moveConfirmed = control;
  try {
    if (control instanceof HTMLElement) control.click();
    else control.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));  // an SVG hex
  } finally {
    moveConfirmed = null;
  }
}

function cancelChoice() {
  const fromBar = focusInBar();
  const control = dropChoice();
  if (!control) return;
  announceChoice("Choice cancelled: no move was sent.");
  if (fromBar) control.focus({ preventScroll: true });
}

document.addEventListener("click", (event) => {
  if (!(event.target instanceof Element)) return;
  if (event.target.closest(".move-confirm-send")) {
    sendChosenMove();
    return;
  }
  if (event.target.closest(".move-confirm-cancel")) {
    cancelChoice();
    return;
  }
  const control = event.target.closest(CONFIRMED_MOVES);
  if (!control || control === moveConfirmed) return;
  // Before htmx and the form hear of it: nothing is sent.
  event.preventDefault();
  event.stopPropagation();
  if (!control.classList.contains("move-chosen")) chooseMove(control, event.detail === 0);
  else if (event.detail <= 1) sendChosenMove();  // the second click of a double click is not one
}, true);
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && chosenMove()) cancelChoice();
});
// Jeexa's ways to turn a piece shut (a tap beside them, Escape): a choice among them goes too.
document.addEventListener("toggle", (event) => {
  if (event.newState === "closed" && event.target instanceof Element && event.target.querySelector(".move-chosen")) {
    dropChoice();
  }
}, true);

// A redraw that brings a position the page had not shown (the opponent's or the AI's move,
// arriving by the poll) marks the board "arrived": the boards' styles animate what the last
// move changed under that class only, so a first load or an unchanged redraw stays still.
let plyWas = null;

document.addEventListener("htmx:beforeSwap", () => {
  const board = document.getElementById("board");
  plyWas = board ? board.dataset.ply : null;
});

// After the settle, not the swap: settling puts the new board's own attributes back, class included.
document.addEventListener("htmx:afterSettle", (event) => {
  if (event.target instanceof Element && event.target.closest(".topbar")) return;  // the count settles first
  const board = document.getElementById("board");
  if (board && plyWas !== null && board.dataset.ply && board.dataset.ply !== plyWas) {
    board.classList.add("arrived");
  }
  plyWas = null;
});

// The new-match form holds a seat block per opponent the game may have; those beyond the number
// of players are hidden and disabled (not sent). Show the right ones as the number changes: the
// Set button that does it without a script (the page drawn again) is then not needed.
function syncSeats(select) {
  select.form.querySelectorAll("fieldset[data-opponent]").forEach((block) => {
    block.hidden = block.disabled = Number(block.dataset.opponent) >= Number(select.value);
  });
}
// Back to the form, the browser may put another number back than the page was drawn with.
window.addEventListener("pageshow", () => {
  document.querySelectorAll('.match-new select[name="players"]').forEach((select) => {
    select.form.querySelector('button[name="set_players"]')?.remove();  // site.css shows every button
    if (!select.selectedOptions[0]?.defaultSelected) syncSeats(select);
  });
});
document.addEventListener("change", (event) => {
  if (event.target instanceof Element && event.target.matches('.match-new select[name="players"]')) {
    syncSeats(event.target);
  }
});
