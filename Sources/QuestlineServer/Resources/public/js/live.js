// Live updates for family pages: listen to the household's server-sent events and, when
// something changes, fetch this page again and swap the parts marked data-live-part (forms
// being filled in are left alone). The page works without this file; it just needs a reload.
//
// A page's stream is closed when the page is hidden into the back/forward cache (`pagehide`)
// and opened again, after the last event it saw, when the page comes back (`pageshow`): a
// browser speaking HTTP/1.1 has six connections to a host, and six cached pages each holding
// a stream would leave none for the next page.
const root = document.querySelector("[data-live]");
if (root && root.dataset.live && "EventSource" in window) {
  let timer = null;
  let updates = 0;
  let source = null;
  let lastEventId = "";
  const refresh = async () => {
    try {
      const response = await fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } });
      if (!response.ok) return;
      const next = new DOMParser().parseFromString(await response.text(), "text/html");
      for (const part of document.querySelectorAll("[data-live-part]")) {
        // A part being filled in (its field has the focus) is left as it is.
        if (part.contains(document.activeElement) && document.activeElement !== document.body) continue;
        const fresh = next.querySelector(`[data-live-part="${part.dataset.livePart}"]`);
        if (fresh) part.replaceWith(fresh);
      }
      updates += 1;
      document.body.dataset.liveUpdates = String(updates);
    } catch (_) { /* try again on the next event */ }
  };
  const open = () => {
    const url = new URL(root.dataset.live, location.href);
    if (lastEventId) url.searchParams.set("lastEventId", lastEventId);
    source = new EventSource(url);
    source.addEventListener("open", () => { document.body.dataset.live = "connected"; });
    source.addEventListener("quests", (event) => {
      if (event.lastEventId) lastEventId = event.lastEventId;
      clearTimeout(timer);
      timer = setTimeout(refresh, 150);
    });
  };
  window.addEventListener("pagehide", () => {
    if (source) source.close();
    source = null;
    document.body.dataset.live = "closed";
  });
  window.addEventListener("pageshow", (event) => {
    if (!event.persisted || source) return;
    // Events missed while hidden come after the last one seen; with none seen yet, the page
    // is read again once.
    if (!lastEventId) refresh();
    open();
  });
  open();
}


// The builder: show the fields that fit the goal type, and its unit.
const builder = document.querySelector("[data-builder]");
if (builder) {
  const goal = builder.querySelector("[data-goal-select]");
  const sync = () => {
    const option = goal.selectedOptions[0];
    builder.querySelector("[data-target-unit]").textContent = option.dataset.unit;
    for (const field of builder.querySelectorAll("[data-for-goals]")) {
      field.hidden = !field.dataset.forGoals.split(" ").includes(goal.value);
    }
    const periods = option.dataset.periods.split(" ");
    const period = builder.querySelector("[data-period-select]");
    for (const choice of period.options) choice.hidden = choice.value !== "" && !periods.includes(choice.value);
    if (period.selectedOptions[0]?.hidden) period.value = "";
    const own = [...period.options].find((choice) => choice.value === periods[0]);
    const fallback = period.querySelector("[data-default-period]");
    // The words come with the page, in its language (each period's `data-default-label`).
    if (own && fallback) fallback.textContent = own.dataset.defaultLabel;
  };
  goal.addEventListener("change", sync);
  sync();
}

// A one-time announcement closes in place ("Not now"); it is not shown again.
for (const button of document.querySelectorAll("[data-dismiss]")) {
  button.addEventListener("click", () => { button.closest(`[data-${button.dataset.dismiss}]`)?.remove(); });
}

// Ask before destructive forms.
for (const form of document.querySelectorAll("form[data-confirm]")) {
  form.addEventListener("submit", (event) => { if (!confirm(form.dataset.confirm)) event.preventDefault(); });
}
