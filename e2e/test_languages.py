"""Every screen in the reader's language: the pseudo-locales mark every catalog message, so any
visible word left in code shows unmarked (qps-ploc), and mirror every page (qps-plocm); German
(long words) and Arabic (right to left) at 390 x 844, each screen fitting, axe-core clean, with a
screenshot."""
import re

import pytest
from selenium.webdriver.common.by import By

from conftest import SHOTS, check_axe, make_driver
from test_accounts import log_in
from test_walkthrough import family_with_request
from test_family import api

WIDTH, HEIGHT = 390, 844


def screens(server):
    """Every screen, as (who, path): a visitor's, a guardian's and a child's (with a quest, a
    request for time, a story opened)."""
    email, token, kid, username, child = family_with_request(server, "lang")
    quest = api(server, "POST", f"/api/v1/children/{kid['id']}/quests",
                {"title": "Learn a little", "goalType": "dailyMinutes", "target": 20,
                 "rewardApps": [{"appToken": "game", "minutes": 10}]}, token=token)
    visitor = ["/", "/login", "/signup", "/game", "/reading", "/reading/search?q=moon",
               "/reading/preview?campaign=demo"]
    guardian = ["/", "/profile", "/quests/family", f"/quests/children/{kid['id']}",
                f"/quests/children/{kid['id']}/device", f"/quests/children/{kid['id']}/report",
                f"/quests/{quest['id']}", f"/quests/{quest['id']}/edit",
                f"/quests/children/{kid['id']}/quests/new", "/quests/family/cheers", "/quests/family/streak",
                "/quests/family/coop", "/league", "/activity", "/activity/saved", "/activity/recap", "/reading",
                "/reading/streak", "/reading/search", "/game", "/game/archive", "/game/stats", "/stories",
                "/stories/points", "/stories/shop", "/stories/profile", "/stories/help", "/stories/bookmarks",
                "/stories/welcome", "/stories/choose", "/stories/read/indianapolis",
                "/stories/read/indianapolis/0/0", "/stories/read/indianapolis/selfie",
                "/stories/read/indianapolis/rewards"]
    child_screens = ["/quests", f"/quests/children/{kid['id']}/device", "/quests/family/cheers", "/league",
                     "/profile"]
    return (email, username), [("visitor", p) for p in visitor] + [("guardian", p) for p in guardian] + [
        ("child", p) for p in child_screens]


def with_language(path, code):
    return path + ("&" if "?" in path else "?") + f"uselang={code}"


def walk(server, code, visit):
    """Opens every screen in `code` as its reader, calling visit(driver, who, path) on each."""
    (email, username), all_screens = screens(server)
    # The pseudo-locales are checked for words; axe checks the real languages (their own walk).
    driver = make_driver(WIDTH, HEIGHT, axe=False)
    try:
        signed_in = None
        for who, path in all_screens:
            if who != signed_in:
                driver.delete_all_cookies()
                if who == "guardian":
                    log_in(driver, server, email, "password123", "Gwen")
                elif who == "child":
                    log_in(driver, server, username, "kidpass123", "Kit")
                signed_in = who
            driver.get(server.url(with_language(path, code)))
            assert driver.execute_script("return document.documentElement.lang") == code, \
                f"{path} ({who}) is not in {code}"
            visit(driver, who, path)
    finally:
        driver.quit()


def page_width(driver):
    return driver.execute_script("return Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")


# Visible text that is not the catalog's: content (names, titles, articles, events: in <bdi>, or
# marked with a lang of their own), machine words (<code>), days and times (<time>), and what is
# only digits, signs and spaces.
UNMARKED = """
const marked = /\\[!!|!!\\]/;
const out = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
const pageLang = document.documentElement.lang;
while (walker.nextNode()) {
  const node = walker.currentNode;
  const text = node.textContent.trim();
  if (!text || /^[\\p{N}\\p{P}\\p{S}\\s\\u2068\\u2069]*$/u.test(text)) continue;
  const element = node.parentElement;
  if (!element || element.closest("script, style, noscript, svg, code, time, bdi, option, [aria-hidden=true]")) continue;
  const lang = element.closest("[lang]");
  if (lang && lang.lang !== pageLang) continue;
  const box = element.getBoundingClientRect();
  if (box.width === 0 && box.height === 0 && !element.closest(".visually-hidden")) continue;
  if (marked.test(text)) continue;
  out.push(element.tagName.toLowerCase() + (element.className ? "." + String(element.className).split(" ")[0] : "") + ": " + text.slice(0, 80));
}
// Attributes people hear or see: labels, placeholders, titles.
for (const element of document.querySelectorAll("[aria-label], [placeholder], [title], [alt]")) {
  if (element.closest("svg, bdi")) continue;
  for (const name of ["aria-label", "placeholder", "title", "alt"]) {
    const value = (element.getAttribute(name) || "").trim();
    if (!value || /^[\\p{N}\\p{P}\\p{S}\\s]*$/u.test(value) || marked.test(value)) continue;
    if (name === "alt" && element.closest("[lang]") && element.closest("[lang]").lang !== pageLang) continue;
    out.push(element.tagName.toLowerCase() + "[" + name + "]: " + value.slice(0, 80));
  }
}
return out;
"""

# Content the demo and these tests type, which is neither a message nor marked by the page.
CONTENT = re.compile(r"^(Gwen|Kit|Kiri|Learn a little|Nearly done|Minecraft|Questline|Q|G|K"
                     r"|[A-Z]{4}-[A-Z]{4})$")


@pytest.mark.parametrize("code", ["qps-ploc", "qps-plocm"])
def test_every_word_on_every_screen_comes_from_the_catalog(server, code):
    problems = []

    def visit(driver, who, path):
        for item in driver.execute_script(UNMARKED):
            if not CONTENT.match(item.split(": ", 1)[1]):
                problems.append(f"{who} {path}: {item}")
        width = page_width(driver)
        if width > WIDTH:
            problems.append(f"{who} {path}: {width}px wide at {WIDTH}px")
        if code == "qps-plocm":
            assert driver.execute_script("return document.documentElement.dir") == "rtl"
    walk(server, code, visit)
    assert not problems, f"{len(problems)} words not from the catalog or pages too wide in {code}:\n" + "\n".join(
        problems[:80])


@pytest.mark.parametrize("code", ["de", "ar"])
def test_every_screen_in_german_and_arabic_fits_and_passes_axe(server, code):
    problems = []

    def visit(driver, who, path):
        name = re.sub(r"[^a-z0-9]+", "-", path.split("?")[0].lower()).strip("-") or "home"
        name = re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27,}", "id", name)
        driver.save_screenshot(str(SHOTS / f"lang-{code}-{who}-{name}.png"))
        check_axe(driver, f"{path} in {code}", key=f"{code}:{who}:{name}")
        width = page_width(driver)
        if width > WIDTH:
            problems.append(f"{who} {path}: {width}px wide")
        if code == "ar":
            assert driver.execute_script("return document.documentElement.dir") == "rtl"
            # The app bar runs from the right (a story's own title inside it keeps its direction).
            bar = driver.find_element(By.CSS_SELECTOR, ".app-bar")
            assert driver.execute_script("return getComputedStyle(arguments[0]).direction", bar) == "rtl"
    walk(server, code, visit)
    assert not problems, "\n".join(problems)


def test_the_welcome_carousel_turns_the_other_way_right_to_left(server):
    """In Arabic the next slide comes from the left: a swipe to the right and the left arrow key
    move forward."""
    email, *_ = family_with_request(server, "rtl")
    driver = make_driver(WIDTH, HEIGHT)
    try:
        log_in(driver, server, email, "password123", "Gwen")
        driver.get(server.url("/stories/welcome?uselang=ar"))
        carousel = driver.find_element(By.CSS_SELECTOR, "[data-carousel]")
        assert driver.execute_script("return getComputedStyle(arguments[0]).direction", carousel) == "rtl"
        driver.execute_script(
            "arguments[0].dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowLeft', bubbles: true}))", carousel)
        assert carousel.get_attribute("data-current") == "1"
        driver.execute_script("""
            const c = arguments[0];
            c.dispatchEvent(new PointerEvent('pointerdown', {clientX: 100, bubbles: true}));
            c.dispatchEvent(new PointerEvent('pointerup', {clientX: 260, bubbles: true}));""", carousel)
        assert carousel.get_attribute("data-current") == "2"
        driver.execute_script(
            "arguments[0].dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}))", carousel)
        assert carousel.get_attribute("data-current") == "1"
    finally:
        driver.quit()
