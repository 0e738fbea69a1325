// Track stories: progressive enhancements. Every page works without this file except the
// camera/photo upload, which needs it to send the picture's bytes.

// Every word this script shows comes from the page, in the page's language: the layout's
// (`<body data-loading>`), and data attributes where they are used.
const words = document.body.dataset;

// A spinner while a slow page loads (after 300 ms).
const spinner = document.createElement("div");
spinner.className = "spinner";
spinner.setAttribute("role", "status");
if (words.loading) spinner.setAttribute("aria-label", words.loading);
spinner.hidden = true;
document.body.append(spinner);
let spinnerTimer = null;
const showSpinnerSoon = () => { clearTimeout(spinnerTimer); spinnerTimer = setTimeout(() => { spinner.hidden = false; }, 300); };
window.addEventListener("pageshow", () => { clearTimeout(spinnerTimer); spinner.hidden = true; });
// Only for a click that loads another page: not a jump within this one (Comments (0) is
// "#comments" on the page already open), a new tab, or a click the page handles itself.
const loadsAPage = (link, event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return false;
  if (link.target === "_blank" || link.hasAttribute("download")) return false;
  const url = new URL(link.href, location.href);
  return !(url.pathname === location.pathname && url.search === location.search && url.hash !== "");
};
for (const link of document.querySelectorAll("main a[href^='/stories'], .story-nav a")) {
  // Judged once every handler has run: one that opens something in place prevents the default.
  link.addEventListener("click", (event) => setTimeout(() => { if (loadsAPage(link, event)) showSpinnerSoon(); }));
}
window.addEventListener("hashchange", () => { clearTimeout(spinnerTimer); spinner.hidden = true; });
for (const form of document.querySelectorAll("main form[method='post'], main form[method='get']")) form.addEventListener("submit", showSpinnerSoon);

// The welcome carousel: dots and swipes.
const carousel = document.querySelector("[data-carousel]");
if (carousel) {
  const slides = [...carousel.querySelectorAll("[data-slide]")];
  const dots = [...carousel.querySelectorAll("[data-dot]")];
  let current = 0;
  const show = (index) => {
    current = Math.max(0, Math.min(slides.length - 1, index));
    slides.forEach((slide, i) => { slide.hidden = i !== current; });
    dots.forEach((dot, i) => { dot.classList.toggle("dot--on", i === current); dot.toggleAttribute("aria-current", i === current); });
    carousel.dataset.current = String(current);
  };
  dots.forEach((dot, i) => dot.addEventListener("click", () => show(i)));
  const forward = () => (getComputedStyle(carousel).direction === "rtl" ? -1 : 1);
  let startX = null;
  carousel.addEventListener("pointerdown", (event) => { startX = event.clientX; });
  carousel.addEventListener("pointercancel", () => { startX = null; });
  carousel.addEventListener("pointerup", (event) => {
    if (startX === null) return;
    const dx = event.clientX - startX;
    // Right to left the next slide comes from the left: the swipe goes the other way.
    if (Math.abs(dx) > 40) show(current + (dx < 0 ? forward() : -forward()));
    startX = null;
  });
  carousel.addEventListener("keydown", (event) => {
    if (event.key === "ArrowRight") show(current + forward());
    if (event.key === "ArrowLeft") show(current - forward());
  });
}

// The pre-story choice: two steps with < > and dots; Finish needs a state and a track.
const choose = document.querySelector("[data-choose]");
if (choose) {
  const steps = [...choose.querySelectorAll("[data-step]")];
  const dots = [...choose.querySelectorAll("[data-step-dot]")];
  const hasErrors = choose.querySelector(".field__error");
  const finish = choose.querySelector("[data-finish]");
  const tracks = [...choose.querySelectorAll("input[name=tracks]")];
  let step = 0;
  // The tracks step lists the tracks of the states chosen (all when none is), and any track
  // already chosen; Finish comes on the last step.
  const narrow = () => {
    const states = new Set([...choose.querySelectorAll("input[name=states]:checked")].map((box) => box.value));
    for (const box of tracks) box.closest("label").hidden = states.size > 0 && !states.has(box.dataset.state) && !box.checked;
  };
  const show = (index) => {
    step = Math.max(0, Math.min(steps.length - 1, index));
    steps.forEach((section, i) => { section.hidden = i !== step && !hasErrors; });
    dots.forEach((dot, i) => dot.classList.toggle("dot--on", i === step));
    finish.hidden = step !== steps.length - 1 && !hasErrors;
    narrow();
  };
  choose.addEventListener("change", narrow);
  choose.querySelector("[data-step-prev]").addEventListener("click", () => show(step - 1));
  choose.querySelector("[data-step-next]").addEventListener("click", () => show(step + 1));
  show(0);
}

// The stories map: a pin shows its track's stories and is highlighted. With Leaflet (served
// from the system's libjs-leaflet) the map is drawn offline from the bundled outline of the US
// states, no tile server: the pins sit at the tracks' real coordinates. Without it, the
// server-drawn picture stays and works the same way.
const map = document.querySelector("[data-story-map]");
if (map) {
  const tiles = [...map.querySelectorAll("[data-track]")];
  let pins = [...map.querySelectorAll("[data-pin]")];
  const select = (pin) => {
    pins.forEach((other) => other.classList.toggle("pin--active", other === pin));
    tiles.forEach((tile) => { tile.hidden = tile.dataset.track !== pin.dataset.pin; });
  };
  const wire = (pin) => {
    pin.addEventListener("click", () => select(pin));
    pin.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); select(pin); } });
  };
  const drawn = map.querySelector("svg");
  const holder = map.querySelector("[data-leaflet]");
  const L = window.L;
  if (L && holder && pins.length) {
    holder.hidden = false;
    const world = L.map(holder, { zoomSnap: 0.25, attributionControl: true, scrollWheelZoom: false });
    world.attributionControl.setPrefix(false).addAttribution(map.dataset.attribution);
    const points = pins.map((pin) => [Number(pin.dataset.lat), Number(pin.dataset.lon)]);
    const fit = () => {
      if (points.length === 1) world.setView(points[0], 6);
      else world.fitBounds(L.latLngBounds(points), { padding: [28, 28], maxZoom: 7 });
    };
    fit();
    const markers = [];
    pins = pins.map((old, i) => {
      const marker = L.marker(points[i], {
        title: old.dataset.name, alt: old.dataset.name, keyboard: true,
        icon: L.divIcon({ className: "map-pin", html: `<span class="map-pin__count">${old.dataset.count}</span>`, iconSize: [26, 26] }),
      }).addTo(world);
      markers.push(marker);
      const pin = marker.getElement();
      pin.dataset.pin = old.dataset.pin;
      pin.setAttribute("role", "button");
      pin.setAttribute("aria-label", old.getAttribute("aria-label"));
      marker.on("click", () => { select(pin); world.panTo(marker.getLatLng()); });
      pin.addEventListener("keydown", (event) => { if (event.key === " ") { event.preventDefault(); select(pin); } });
      return pin;
    });
    // Pins of nearby tracks (Sonoma and Laguna Seca) would sit on each other at the zooms that
    // show the whole country: at each zoom, a bubble within 28 px of one placed before it moves
    // aside (the dot stays at the track), so every pin can be seen and tapped.
    const declutter = () => {
      const placed = [];
      for (const marker of markers) {
        const at = world.latLngToLayerPoint(marker.getLatLng());
        let dx = 0;
        let dy = 0;
        for (let tries = 0; tries < 8; tries++) {
          const clash = placed.find((p) => Math.hypot(p.x - (at.x + dx), p.y - (at.y + dy)) < 28);
          if (!clash) break;
          const angle = (tries * Math.PI) / 4;
          dx = Math.round(Math.cos(angle) * 30);
          dy = Math.round(Math.sin(angle) * 30);
        }
        placed.push({ x: at.x + dx, y: at.y + dy });
        const element = marker.getElement();
        element.style.setProperty("--dx", `${dx}px`);
        element.style.setProperty("--dy", `${dy}px`);
      }
    };
    world.on("zoomend viewreset", declutter);
    declutter();
    drawn.remove();
    fetch(map.dataset.geography).then((response) => response.ok ? response.json() : Promise.reject(response.status)).then((states) => {
      L.geoJSON(states, {
        interactive: false,
        style: { className: "map-state", color: "#fff", weight: 1, fillColor: "#cfdcc4", fillOpacity: 1 },
        onEachFeature: (feature, layer) => layer.options.className = `map-state map-state--${feature.properties.postal}`,
      }).addTo(world).bringToBack();
      map.dataset.map = "leaflet";
    }).catch(() => { map.dataset.map = "pins"; });
    // The page's layout may still move (a scroll bar appearing narrows it): fit again.
    new ResizeObserver(() => { world.invalidateSize({ pan: false }); fit(); }).observe(holder);
  } else {
    pins.forEach(wire);
  }
  if (pins.length) select(pins[0]);
}

// Photo uploads (a selfie at the track, the profile photo): the bytes go to the API.
// `said` is the element whose data attributes hold the words for a failure.
async function upload(input, url, errorBox, done, said) {
  const file = input.files[0];
  if (!file) return;
  errorBox.hidden = true;
  showSpinnerSoon();
  try {
    const response = await fetch(url, { method: "PUT", credentials: "same-origin", headers: { "Content-Type": "application/octet-stream" }, body: file });
    if (response.ok) { location.href = done; return; }
    const problem = await response.json().catch(() => ({}));
    // The field's own message, in words for a person (the detail names the API's field first).
    const issue = Array.isArray(problem.errors) && problem.errors.length ? problem.errors[0].message : null;
    errorBox.textContent = issue || problem.detail || said.dataset.uploadFailed;
  } catch (_) {
    errorBox.textContent = said.dataset.uploadOffline;
  }
  clearTimeout(spinnerTimer);
  spinner.hidden = true;
  errorBox.hidden = false;
}
const selfieForm = document.querySelector("[data-selfie-form]");
if (selfieForm) {
  // From the camera or the gallery: either picture goes the same way.
  for (const input of selfieForm.querySelectorAll("[data-selfie-input]")) {
    input.addEventListener("change", () => upload(input, selfieForm.dataset.upload, selfieForm.querySelector("[data-selfie-error]"), selfieForm.dataset.done, selfieForm));
  }
}
const photoInput = document.querySelector("[data-photo-input]");
if (photoInput) {
  photoInput.addEventListener("change", () => upload(photoInput, photoInput.dataset.upload, document.querySelector("[data-photo-error]"), "/stories/profile?saved=1", photoInput));
}

// The progress slider: moving it names the chapter and marks it in the list; Open goes there.
const slider = document.querySelector("[data-progress-slider]");
if (slider) {
  const range = slider.querySelector("input[type=range]");
  const chosen = slider.querySelector("[data-slider-chosen]");
  const links = [...document.querySelectorAll(".chapter-link")];
  const sync = () => {
    const index = Number(range.value) - 1;
    const link = links[index];
    // The chapter list names every chapter ("Chapter 2: …", in the page's language).
    if (link) {
      const title = link.firstChild.textContent.trim();
      chosen.textContent = title;
      range.setAttribute("aria-valuetext", title);
    }
    links.forEach((other, i) => other.classList.toggle("chapter-link--chosen", i === index));
  };
  range.addEventListener("input", sync);
  sync();
}

// Badge and card popups.
for (const button of document.querySelectorAll("[data-popup]")) {
  button.addEventListener("click", () => document.getElementById(button.dataset.popup)?.showModal());
}

// The comments overlay opens in place.
const comments = document.querySelector("[data-comments]");
const opener = document.querySelector("[data-open-comments]");
if (comments && opener) {
  opener.addEventListener("click", (event) => {
    event.preventDefault();
    comments.classList.remove("comments--closed");
    comments.querySelector("textarea")?.focus();
  });
}
