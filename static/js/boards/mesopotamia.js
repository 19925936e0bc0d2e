// Mesopotamia's map (templates/games/boards/mesopotamia.html): a click on a tribe of the player's
// (its hex: a tribe is small for a finger) chooses it and shows the hexes it may go to, each of
// which makes that step; a short chooser opens where a click could mean several tribes. The map
// zooms in and out inside its own window. The chosen tribe, the zoom and where the map was
// scrolled to outlive each redraw of the match (a move, a poll). And the last move's marks get
// their order for the arrival's animation here: the site's CSP allows no style attribute.
(() => {
  // Loaded by the board's template, so again with each redraw of it (htmx runs the scripts it swaps in): once is enough.
  if (window.mesoBoardReady) return;
  window.mesoBoardReady = true;
  const ZOOMS = [1, 1.5, 2, 3];
  let picked = null;  // the chosen tribe's id
  let zoomAt = 0;  // in ZOOMS
  let scrolledTo = null;  // [left, top] of the map's window before a redraw
  let focusOnMap = false;  // the keyboard was on the map (or the chosen tribe's steps) before a redraw
  let pointer = "mouse";  // how the last click came: a finger picks by hex, a mouse by the tribe under it

  const board = () => document.querySelector(".meso:not(.meso-picture)");
  const layerOf = (id) => board()?.querySelector(`.meso-dests[data-for="${CSS.escape(id)}"]`);
  const panelOf = (id) => board()?.querySelector(`.meso-pick[data-pick-panel="${CSS.escape(id)}"]`);

  function announce(text) {
    const announcer = document.getElementById("announcer");
    if (announcer) announcer.textContent = text;
  }

  function setOrders(root) {
    root.querySelectorAll("[data-order]").forEach((element) => {
      element.style.setProperty("--order", element.dataset.order);
      if (element.dataset.dx) {
        element.style.setProperty("--dx", element.dataset.dx);
        element.style.setProperty("--dy", element.dataset.dy);
      }
    });
  }

  // --- choosing a tribe ---

  function pick(id, { focus = false, say = true } = {}) {
    const meso = board();
    const layer = layerOf(id);
    const panel = panelOf(id);
    if (!panel) return false;
    drop();
    picked = id;
    meso.classList.add("is-picking");
    panel.hidden = false;
    if (layer) layer.classList.add("is-shown");
    meso.querySelectorAll(`.meso-token[data-tribe="${CSS.escape(id)}"]`).forEach((token) => token.classList.add("is-picked"));
    meso.querySelectorAll(".meso-camp").forEach((camp) => {
      camp.classList.toggle("is-picked", camp.dataset.tribes.split(" ").includes(id));
    });
    if (say) announce(`${panel.querySelector(".meso-pick-title").textContent} Escape lets it go.`);
    if (focus) (layer?.querySelector(".meso-dest") || panel.querySelector("button")).focus({ preventScroll: true });
    return true;
  }

  function drop() {
    const meso = board();
    if (!meso) return;
    meso.classList.remove("is-picking");
    meso.querySelectorAll(".meso-pick").forEach((panel) => { panel.hidden = true; });
    meso.querySelectorAll(".is-shown, .is-picked").forEach((element) => element.classList.remove("is-shown", "is-picked"));
    picked = null;
  }

  function letGo() {
    const was = picked;
    drop();
    const camp = was && [...board().querySelectorAll(".meso-camp")].find((c) => c.dataset.tribes.split(" ").includes(was));
    if (camp && board().contains(document.activeElement) && document.activeElement.closest(".meso-dests, .meso-pick")) {
      camp.focus({ preventScroll: true });
    }
    if (was) announce(`${was} let go: choose a tribe.`);
  }

  // The tribe under a mouse's pointer, on a hex of several: a finger's tap is too wide to tell them apart.
  function tribeUnder(camp, event) {
    if (pointer !== "mouse" || !event.detail) return null;
    return camp.dataset.tribes.split(" ").find((id) => {
      const box = board().querySelector(`.meso-token[data-tribe="${CSS.escape(id)}"]`)?.getBoundingClientRect();
      return box && event.clientX >= box.left && event.clientX <= box.right
        && event.clientY >= box.top && event.clientY <= box.bottom;
    }) || null;
  }

  function openChooser(id) {
    const chooser = document.getElementById(id);
    if (!chooser) return;
    chooser.showPopover();
    chooser.querySelector("button")?.focus();
  }

  document.addEventListener("pointerdown", (event) => { pointer = event.pointerType || "mouse"; }, true);
  document.addEventListener("click", (event) => {
    const meso = board();
    const target = event.target instanceof Element ? event.target : null;
    if (!meso || !target || !meso.contains(target)) return;
    const zoom = target.closest("[data-zoom]");
    if (zoom) {
      zoomTo(zoomAt + (zoom.dataset.zoom === "in" ? 1 : -1));
      return;
    }
    const option = target.closest(".meso-chooser [data-pick]");
    if (option) {
      option.closest("[popover]").hidePopover();
      pick(option.dataset.pick, { focus: true });
      return;
    }
    if (target.closest(".meso-unpick")) {
      letGo();
      return;
    }
    if (!target.closest(".meso-svg") || target.closest(".meso-dest, .meso-clickable")) return;  // a move: htmx sends it
    const camp = target.closest(".meso-camp");
    const id = camp && (tribeUnder(camp, event) || camp.dataset.pick);
    if (camp && id === picked) letGo();  // a second click on the chosen tribe lets it go
    else if (id) pick(id, { focus: event.detail === 0 });  // by keyboard: on to its first hex
    else if (camp || target.closest(".meso-ask")) openChooser((camp || target.closest(".meso-ask")).dataset.ask);
    else if (picked) letGo();  // a click beside the hexes it may go to
  });
  // Before site.js hears it: Escape there drops a move chosen to be confirmed, and that alone.
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && picked && !document.querySelector(".move-chosen, :popover-open")) letGo();
  }, true);

  // --- zoom ---

  function zoomTo(index, { keepCentre = true } = {}) {
    const meso = board();
    const frame = meso && meso.querySelector(".meso-frame");
    if (!frame) return;
    const fit = frame.querySelector(".meso-fit");
    zoomAt = Math.max(0, Math.min(ZOOMS.length - 1, index));
    const middle = [(frame.scrollLeft + frame.clientWidth / 2) / fit.offsetWidth,
      (frame.scrollTop + frame.clientHeight / 2) / fit.offsetHeight];
    fit.style.width = fit.style.height = "";
    frame.classList.toggle("is-zoomed", zoomAt > 0);
    if (zoomAt > 0) {
      const box = fit.getBoundingClientRect();  // the room at zoom 1, as the page's layout made it
      fit.style.width = `${box.width * ZOOMS[zoomAt]}px`;
      fit.style.height = `${box.height * ZOOMS[zoomAt]}px`;
    }
    if (keepCentre) {
      frame.scrollLeft = middle[0] * fit.offsetWidth - frame.clientWidth / 2;
      frame.scrollTop = middle[1] * fit.offsetHeight - frame.clientHeight / 2;
    }
    meso.querySelector('[data-zoom="out"]').disabled = zoomAt === 0;
    meso.querySelector('[data-zoom="in"]').disabled = zoomAt === ZOOMS.length - 1;
  }

  // --- each new board ---

  function setUp() {
    const meso = board();
    document.querySelectorAll(".meso").forEach(setOrders);
    if (!meso) return;
    const bar = meso.querySelector(".meso-zoom");
    if (bar && bar.hidden) {  // a board not seen yet: this page's zoom, where the map was, the chosen tribe
      bar.hidden = false;
      zoomTo(zoomAt, { keepCentre: false });
      const frame = meso.querySelector(".meso-frame");
      if (scrolledTo) [frame.scrollLeft, frame.scrollTop] = scrolledTo;
      scrolledTo = null;
      if (!(picked && pick(picked, { say: false }))) picked = null;
    }
  }

  // A board that came with the page, or first arrived by a redraw (the match started while the page was open).
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
  document.addEventListener("htmx:beforeSwap", (event) => {
    const frame = event.detail.target instanceof Element && event.detail.target.querySelector(".meso-frame");
    if (!frame) return;
    scrolledTo = [frame.scrollLeft, frame.scrollTop];
    focusOnMap = Boolean(document.activeElement && document.activeElement.closest(".meso-svg, .meso-pick"));
  });
  document.addEventListener("htmx:afterSwap", setUp);
  // After site.js put the focus back where it could: a step made from the map goes on from the map.
  document.addEventListener("htmx:afterSettle", () => {
    const meso = board();
    if (!focusOnMap || !meso) return;
    focusOnMap = false;
    const next = (picked && (layerOf(picked)?.querySelector(".meso-dest") || panelOf(picked)?.querySelector("button")))
      || meso.querySelector('.meso-svg [role="button"]');
    if (next) next.focus({ preventScroll: true });
  });
})();
