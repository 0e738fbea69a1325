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
