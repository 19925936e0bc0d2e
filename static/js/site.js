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
