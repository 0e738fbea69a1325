// "Which came first?": the cards leave before the next question comes in. The page works
// without this file; it only adds the outgoing transition and keeps focus where it belongs.
const reduceMotion = window.matchMedia("(prefers-reduced-motion: reduce)").matches;

for (const link of document.querySelectorAll("[data-leave]")) {
  link.addEventListener("click", (event) => {
    if (reduceMotion || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    document.querySelector(".game")?.classList.add("game--leaving");
    setTimeout(() => { window.location.href = link.href; }, 250);
  });
}

// Back and Forward can restore a page from the browser's cache as it was left: mid-exit, or
// a question answered since. The exit is undone; a question page is fetched again, so it shows
// where the game stands now.
window.addEventListener("pageshow", (event) => {
  document.querySelector(".game")?.classList.remove("game--leaving");
  if (event.persisted && document.querySelector("[data-game-question]")) window.location.reload();
});

// Say the verdict (or the score) first: focus it so screen readers read it and Tab goes on from there.
document.querySelector("[data-autofocus]")?.focus({ preventScroll: false });

// Card images that cannot load are handled by app.js (no broken images anywhere).
