// Small progressive enhancements; every page works without this file.

// The address this page keeps in the history (`PageAddress`): a refused form's own page, so
// Back and reload never ask to send the form again; a page without its one-time "saved" flag,
// so a reload does not say it again.
// Replacing the entry, even with the same address, also drops a posted form's data from it.
if (document.body.dataset.address) {
  history.replaceState(history.state, "", document.body.dataset.address + location.hash);
}

// Pre-fill an empty time-zone field with the browser's own zone.
for (const input of document.querySelectorAll("[data-detect-time-zone]")) {
  if (!input.value || input.value === "UTC") {
    try {
      const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      if (zone) input.value = zone;
    } catch (_) { /* keep the server's value */ }
  }
}

// The browser's zone, for the pages of a reader who is not signed in (a member's days follow
// the zone of their profile): the server reads it from this cookie, as the API reads
// X-Time-Zone.
try {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zone && /^[A-Za-z0-9_+\/-]+$/.test(zone)) document.cookie = `ql_zone=${zone}; path=/; max-age=34560000; samesite=lax`;
} catch (_) { /* UTC */ }

// Reports a page makes by itself (a GET never writes): `form[data-beacon]` is posted once the
// page is shown, with its hidden fields and form token; the answer, when there is one, replaces
// the element `data-beacon` names (the widget after an article's read). Without this file the
// form's own button sends it.
for (const form of document.querySelectorAll("form[data-beacon]")) {
  fetch(form.action, {
    method: "POST", credentials: "same-origin", keepalive: true,
    headers: { "X-Questline-Beacon": "1" },
    body: new URLSearchParams(new FormData(form)),
  }).then(async (response) => {
    if (response.ok && response.status !== 204 && form.dataset.beacon) {
      const target = document.querySelector(form.dataset.beacon);
      if (target) target.outerHTML = await response.text();
    }
    form.dataset.sent = response.ok ? "done" : "failed";
  }).catch(() => { form.dataset.sent = "failed"; });
}

// Move focus to the first invalid field so keyboard and screen-reader users land on it; a
// refusal of the whole form (no field of its own) is brought into view and focused instead.
const invalid = document.querySelector("[aria-invalid='true']");
if (invalid) {
  invalid.focus();
} else {
  const refusal = document.querySelector("main .form__error[role='alert'], main .field__error");
  if (refusal) {
    refusal.setAttribute("tabindex", "-1");
    refusal.focus();
    refusal.scrollIntoView({ block: "center" });
  }
}

// Images come from Wikimedia's image host; one that cannot load (offline) never shows as a
// broken image: card images and saved-article circles go, an article's picture gives way to
// its placeholder (the title's initial).
function imageFailed(image) {
  const holder = image.closest(".article-row__image");
  if (holder) holder.classList.add("is-broken");
  else if (image.matches(".game-card__image, .thumb")) image.remove();
  else image.classList.add("is-broken");
}
document.addEventListener("error", (event) => {
  if (event.target instanceof HTMLImageElement) imageFailed(event.target);
}, true);
for (const image of document.querySelectorAll("img")) {
  if (image.complete && image.naturalWidth === 0 && image.getAttribute("src")) imageFailed(image);
}

// Toasts: a short message over the page that does not take it away. `data-toast` on a link or
// button says its message instead of following it (a stub the seed asks for: the address it
// points to says the same without JavaScript); `data-toast-after` says it and follows (a
// download starting).
const toast = document.createElement("div");
toast.className = "toast";
toast.setAttribute("role", "status");
toast.hidden = true;
document.body.append(toast);
let toastTimer = null;
function showToast(text) {
  toast.textContent = text;
  toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { toast.hidden = true; }, 4000);
}
for (const element of document.querySelectorAll("[data-toast]")) {
  // Without a message the link is followed (its address says it without JavaScript).
  if (!element.dataset.toast.trim()) continue;
  element.addEventListener("click", (event) => { event.preventDefault(); showToast(element.dataset.toast); });
}
for (const element of document.querySelectorAll("[data-toast-after]")) {
  element.addEventListener("click", () => showToast(element.dataset.toastAfter));
}

// Reading time: an article page reports the time it was in view (while the tab is visible),
// when it is hidden or left, to the same API an app uses. Each interval has its own id, so a
// repeat counts once; an interval under a second is not sent.
const timer = document.querySelector("[data-reading-timer]");
if (timer) {
  let start = document.visibilityState === "visible" ? new Date() : null;
  const zone = (() => { try { return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC"; } catch (_) { return "UTC"; } })();
  const instant = (date) => date.toISOString().replace(/\.\d{3}Z$/, "Z");  // whole seconds, as the API reads them
  const report = () => {
    if (!start) return;
    const end = new Date();
    const from = start;
    start = null;
    if (end - from < 1000) return;
    const id = (crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2));
    fetch(timer.dataset.readingTimer, {
      method: "POST", credentials: "same-origin", keepalive: true,
      headers: { "Content-Type": "application/json", "Idempotency-Key": id },
      body: JSON.stringify({ intervals: [{ eventId: id, start: instant(from), end: instant(end), timeZone: zone }] }),
    }).catch(() => { /* reading time is best effort */ });
  };
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") start = start || new Date(); else report();
  });
  window.addEventListener("pagehide", report);
  window.addEventListener("pageshow", (event) => { if (event.persisted && document.visibilityState === "visible") start = new Date(); });
}
