// Small progressive enhancements; every page works without this file.

// Pre-fill an empty time-zone field with the browser's own zone.
for (const input of document.querySelectorAll("[data-detect-time-zone]")) {
  if (!input.value || input.value === "UTC") {
    try {
      const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      if (zone) input.value = zone;
    } catch (_) { /* keep the server's value */ }
  }
}

// Move focus to the first invalid field so keyboard and screen-reader users land on it.
const invalid = document.querySelector("[aria-invalid='true']");
if (invalid) invalid.focus();

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
