"""Every screen right at phone size (390 x 844): long words and names never widen a page, and the
defects a walkthrough found stay fixed."""
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import absent, found_now
from test_accounts import click, fill, log_in, wait_text
from test_family import api, midday_zone
from test_game import answer_current_question, next_question

LONG_WORD = "Supercalifragilistic" * 4  # 80 characters, no break opportunity
LONG_NAME = "Bartholomew" + "x" * 39  # 50 characters, the longest a name may be


def page_width(browser):
    return browser.execute_script(
        "return Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")


def assert_fits(browser, where):
    width = page_width(browser)
    assert width <= 390, f"{where} is {width}px wide at a 390px viewport"


def broken_words(browser, css):
    """The words of the elements matching css that break over two lines ("Readin/g"); a word
    longer than a line may hold (a person's 50-letter name) is allowed to break."""
    return browser.execute_script("""
        const broken = [];
        for (const element of document.querySelectorAll(arguments[0])) {
          const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
          while (walker.nextNode()) {
            const node = walker.currentNode;
            for (const match of node.textContent.matchAll(/\\S+/g)) {
              const range = document.createRange();
              range.setStart(node, match.index);
              range.setEnd(node, match.index + match[0].length);
              const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
              if (tops.size > 1 && match[0].length <= 20) broken.push(match[0]);
            }
          }
        }
        return broken;""", css)


def name_lines(browser, css):
    """How many lines of text the first element matching css shows (its visible line boxes)."""
    return browser.execute_script("""
        const element = document.querySelector(arguments[0]);
        if (!element) return -1;
        const box = element.getBoundingClientRect();
        const range = document.createRange();
        range.selectNodeContents(element);
        const tops = new Set([...range.getClientRects()]
          .filter(r => r.height > 0 && r.top < box.bottom - 1).map(r => Math.round(r.top)));
        return tops.size;""", css)


def long_family(server):
    """A guardian and a child with the longest names, apps and a quest with long words."""
    zone = midday_zone()
    email = f"long-{uuid.uuid4().hex[:8]}@example.com"
    token = api(server, "POST", "/api/v1/auth/signup",
                {"email": email, "password": "password123", "displayName": LONG_NAME, "timeZone": zone})["token"]
    household = api(server, "POST", "/api/v1/households", {"name": LONG_WORD[:60]}, token=token)
    username = f"kid{uuid.uuid4().hex[:6]}"
    kid = api(server, "POST", f"/api/v1/households/{household['id']}/children",
              {"username": username, "password": "kidpass123", "displayName": LONG_NAME[::-1]}, token=token)
    for app_token, role in [("learn", "learning"), ("play", "reward")]:
        api(server, "PUT", f"/api/v1/children/{kid['id']}/apps/{app_token}",
            {"name": LONG_WORD[:60], "role": role}, token=token)
    quest = api(server, "POST", f"/api/v1/children/{kid['id']}/quests",
                {"title": LONG_WORD[:80], "description": LONG_WORD, "goalType": "dailyMinutes", "target": 30,
                 "rewardApps": [{"appToken": "play", "minutes": 20}]}, token=token)
    return email, token, kid, username, quest


def test_long_words_and_names_never_widen_a_screen(browser, server, shot):
    email, token, kid, username, quest = long_family(server)
    api(server, "POST", "/api/v1/saved", {"language": "en", "title": LONG_WORD}, token=token)
    log_in(browser, server, email, "password123", LONG_NAME)
    child = kid["id"]
    for path in ["/", "/profile", "/quests/family", f"/quests/children/{child}", f"/quests/children/{child}/device",
                 f"/quests/children/{child}/report", f"/quests/{quest['id']}", f"/quests/{quest['id']}/edit",
                 "/activity", "/activity/saved", "/reading", "/game", "/stories/profile"]:
        browser.get(server.url(path))
        assert_fits(browser, path)
        # Controls and labels keep their words whole, whatever people typed beside them.
        broken = broken_words(browser, ".button, .chip, .pill, .bottom-nav a, .module h2, .tabs a")
        assert not broken, f"{path}: words broken inside: {broken}"
        if path == "/profile":
            # A 50-character name takes at most three lines, never a letter a line.
            lines = name_lines(browser, ".card .list .list__row > span:first-child")
            assert 1 <= lines <= 3, f"the household's name takes {lines} lines"
    shot("phone-long-names-device")
    # A comment with an 80-character word: the chapter page keeps its width, Delete stays on it.
    browser.get(server.url("/stories/read/daytona/0/0?comments=1"))
    if "/stories/welcome" in browser.current_url or "/stories/choose" in browser.current_url:
        api(server, "POST", "/api/v1/stories/onboarding", None, token=token)
        browser.get(server.url("/stories/read/daytona/0/0?comments=1"))
    fill(browser, "comment-text", LONG_WORD + " " + LONG_WORD)
    click(browser, "#comments form.form button[type=submit]")
    wait_text(browser, ".comments", LONG_WORD[:20])
    # Back at the new comment, in view (not at the top of the page).
    assert "#comment-" in browser.current_url, browser.current_url
    new = browser.find_element(By.CSS_SELECTOR, browser.current_url[browser.current_url.index("#"):])
    top = browser.execute_script("return arguments[0].getBoundingClientRect().top", new)
    assert 0 <= top < 844, f"the new comment is out of view ({top}px)"
    assert_fits(browser, "the chapter page with a long comment")
    delete = browser.find_element(By.CSS_SELECTOR, ".comments form button")
    right = browser.execute_script("return arguments[0].getBoundingClientRect().right", delete)
    assert right <= 390, f"the comment's Delete ends at {right}px"
    assert not broken_words(browser, ".comments form button"), "the comment's Delete breaks inside a word"
    shot("phone-long-comment")
    # The child sees the same names on their board and device.
    browser.delete_all_cookies()
    log_in(browser, server, username, "kidpass123", LONG_NAME[::-1])
    for path in ["/quests", f"/quests/children/{child}/device", "/profile"]:
        browser.get(server.url(path))
        assert_fits(browser, f"{path} (child)")


def test_the_share_picture_keeps_a_long_name_and_headline_on_the_card(browser, server, shot):
    email = f"share-{uuid.uuid4().hex[:8]}@example.com"
    api(server, "POST", "/api/v1/auth/signup",
        {"email": email, "password": "password123", "displayName": LONG_NAME, "timeZone": "UTC"})
    log_in(browser, server, email, "password123", LONG_NAME)
    browser.get(server.url("/reading/share.svg"))
    shot("share-card-long-name")
    boxes = browser.execute_script(
        "return [...document.querySelectorAll('text')].map(t => { const b = t.getBBox();"
        " return {x: b.x, y: b.y, right: b.x + b.width, bottom: b.y + b.height, text: t.textContent}; });")
    assert boxes, "the share picture has no text"
    for box in boxes:
        assert box["right"] <= 580 and box["bottom"] <= 305, f"{box['text']!r} runs off the card: {box}"
        if box["y"] < 180:  # beside the globe (x 436 to 564, y 46 to 174)
            assert box["right"] <= 430, f"{box['text']!r} runs into the art: {box}"


def test_the_game_badge_never_covers_a_cards_text(browser, server, shot):
    email = f"badge-{uuid.uuid4().hex[:8]}@example.com"
    api(server, "POST", "/api/v1/auth/signup",
        {"email": email, "password": "password123", "displayName": "Bea", "timeZone": "UTC"})
    log_in(browser, server, email, "password123", "Bea")
    browser.get(server.url("/game"))
    click(browser, ".game-hero button[type=submit]")
    for question in range(1, 6):
        wait_text(browser, ".game__progress", f"Question {question} of 5")
        overlaps = browser.execute_script("""
            const found = [];
            for (const card of document.querySelectorAll('.game-card')) {
              const badge = card.querySelector('.game-card__label').getBoundingClientRect();
              const range = document.createRange();
              range.selectNodeContents(card.querySelector('.game-card__text'));
              for (const line of range.getClientRects()) {
                if (line.right > badge.left && line.left < badge.right && line.bottom > badge.top && line.top < badge.bottom)
                  found.push(card.querySelector('.game-card__text').textContent.slice(0, 40));
              }
            }
            return found;""")
        assert not overlaps, f"question {question}: the badge covers {overlaps}"
        if question == 1:
            shot("game-question-badges")
        answer_current_question(browser, "first")
        next_question(browser)


def test_an_archive_game_left_mid_play_is_offered_to_continue(browser, server, shot):
    import datetime
    email = f"resume-{uuid.uuid4().hex[:8]}@example.com"
    api(server, "POST", "/api/v1/auth/signup",
        {"email": email, "password": "password123", "displayName": "Rhea", "timeZone": "UTC"})
    log_in(browser, server, email, "password123", "Rhea")
    today = datetime.datetime.now(datetime.timezone.utc).date()
    bundled = datetime.date(today.year, 10, 30)  # the feed that ships with the product
    if bundled >= today:
        bundled = datetime.date(today.year - 1, 10, 30)
    browser.get(server.url(f"/game/archive?language=en&month={bundled:%Y-%m}"))
    # The calendar's marks are explained.
    legend = browser.find_element(By.CSS_SELECTOR, ".calendar-legend").text
    assert "continue playing" in legend and "needs a connection" in legend
    click(browser, f"form[action='/game/start'] input[value='{bundled:%Y-%m-%d}'] ~ button")
    answer_current_question(browser, "first")
    # Leave mid-play; coming back to the game offers the archive game, not a dead end.
    browser.get(server.url("/game"))
    label = f"{bundled.day} {bundled:%B %Y}"
    wait_text(browser, ".continue-games", label)
    assert "Continue playing" in browser.find_element(By.CSS_SELECTOR, ".continue-games").text
    shot("game-splash-continue")
    click(browser, ".continue-games a")
    wait_text(browser, ".verdict, .game__progress", "")
    if found_now(browser, By.CSS_SELECTOR, ".game__next"):
        next_question(browser)
    wait_text(browser, ".game__progress", "Question 2 of 5")


def test_the_device_pages_two_forms_keep_their_errors_apart(browser, server, shot):
    from test_family import api_family
    zone, email, token, kid, username = api_family(server, "forms", "Fern", "Finn")
    log_in(browser, server, username, "kidpass123", "Finn")
    browser.get(server.url(f"/quests/children/{kid['id']}/device"))
    fill(browser, "use-minutes", "0")
    click(browser, "form[action$='/device/usage'] button[type=submit]")
    wait_text(browser, "#use-minutes-error", "Use 1 to 720 minutes")
    ask = browser.find_element(By.ID, "ask-minutes")
    assert ask.get_attribute("aria-invalid") is None, "the report's error marked the ask form's field"
    errors = [e.text for e in found_now(browser, By.CSS_SELECTOR, "form[action$='/time-requests'] .field__error")]
    assert errors == [], f"the ask form shows {errors}"
    shot("device-report-error")


def test_after_a_failed_login_the_secondary_buttons_say_something(browser, server, shot):
    browser.get(server.url("/login"))
    fill(browser, "login", "nobody@example.com")
    fill(browser, "password", "wrong-password")
    click(browser, "form[action='/login'] button[type=submit]")
    wait_text(browser, ".form__error", "do not match")
    for link, words in [("Forgot your password?", "Password reset"), ("Sign in using Facebook", "Facebook")]:
        browser.find_element(By.LINK_TEXT, link).click()
        toast = wait_text(browser, ".toast", words)
        assert toast.text.strip(), f"{link}: an empty toast"
    shot("login-failed-toast")


def swipe(browser, element, dx):
    """A finger's swipe across `element` (touch events, as a phone sends them)."""
    box = browser.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + r.height / 2};",
        element)
    x, y = box["x"] - dx / 2, box["y"]
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
    browser.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 11):
        browser.execute_cdp_cmd("Input.dispatchTouchEvent",
                                {"type": "touchMove", "touchPoints": [{"x": x + dx * step / 10, "y": y}]})
    browser.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_the_stories_welcome_swipes_on_touch(browser, server, shot):
    email = f"swipe-{uuid.uuid4().hex[:8]}@example.com"
    api(server, "POST", "/api/v1/auth/signup",
        {"email": email, "password": "password123", "displayName": "Sam", "timeZone": "UTC"})
    log_in(browser, server, email, "password123", "Sam")
    browser.get(server.url("/stories/welcome"))
    carousel = browser.find_element(By.CSS_SELECTOR, "[data-carousel]")
    assert carousel.get_attribute("data-current") in (None, "0")
    swipe(browser, carousel, -200)
    WebDriverWait(browser, 3).until(lambda d: carousel.get_attribute("data-current") == "1",
                                    "a swipe to the left did not show the next slide")
    swipe(browser, carousel, 200)
    WebDriverWait(browser, 3).until(lambda d: carousel.get_attribute("data-current") == "0",
                                    "a swipe to the right did not go back")
    shot("stories-welcome-swiped")


def test_the_reading_search_says_what_it_searches(browser, server):
    browser.get(server.url("/reading"))
    assert browser.find_element(By.ID, "q").get_attribute("placeholder") == "Search Wikipedia"


def visible_text(browser):
    return browser.find_element(By.TAG_NAME, "main").text if browser.find_elements(By.TAG_NAME, "main") \
        else browser.find_element(By.TAG_NAME, "body").text


def test_copy_reads_right_and_nothing_is_offered_twice(browser, server, shot):
    import datetime
    import re
    email = f"copy-{uuid.uuid4().hex[:8]}@example.com"
    token = api(server, "POST", "/api/v1/auth/signup",
                {"email": email, "password": "password123", "displayName": "Cora", "timeZone": "UTC"})["token"]
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    api(server, "POST", "/api/v1/reading/reads",
        {"eventId": "copy-1", "articleId": "Octopus", "title": "Octopus", "language": "en",
         "at": (now - datetime.timedelta(minutes=1)).isoformat().replace("+00:00", "Z"), "timeZone": "UTC"},
        token=token)
    log_in(browser, server, email, "password123", "Cora")
    # Home: one Join, whatever offers it; every area's tile says what it is.
    joins = [b for b in browser.find_elements(By.CSS_SELECTOR, "button, a") if b.text.strip() == "Join the challenge"]
    assert len(joins) <= 1, f"{len(joins)} Join buttons on the home page"
    for tile in browser.find_elements(By.CSS_SELECTOR, ".tile"):
        assert tile.find_element(By.CSS_SELECTOR, ".tile__what").text.strip(), f"{tile.text!r} has no description"
    iso = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
    assert not iso.search(visible_text(browser)), "an ISO date in a sentence on the home page"
    # Reading: one Random; no ISO dates in sentences.
    browser.get(server.url("/reading"))
    randoms = [b for b in browser.find_elements(By.CSS_SELECTOR, "button, a") if b.text.strip() == "Random article"]
    assert len(randoms) == 1, f"{len(randoms)} Random buttons on the reading page"
    assert not iso.search(visible_text(browser)), "an ISO date in a sentence on the reading page"
    # Activity: one day in a row, not "1 days".
    browser.get(server.url("/activity"))
    text = visible_text(browser)
    assert "1 days" not in text and "day in a row" in text, text
    # The card shop: a card beyond the balance says what is missing and offers no Buy.
    browser.get(server.url("/stories/shop"))
    if "/stories/welcome" in browser.current_url or "/stories/choose" in browser.current_url:
        api(server, "POST", "/api/v1/stories/onboarding", None, token=token)
        browser.get(server.url("/stories/shop"))
    balance = int(browser.find_element(By.CSS_SELECTOR, "[data-balance]").text)
    for card in browser.find_elements(By.CSS_SELECTOR, ".shop-card"):
        price = int(re.search(r"(\d+) points", card.text).group(1))
        if price > balance:
            assert absent(browser, By.CSS_SELECTOR, "form button", within=card), card.text
            assert f"{price - balance} more points needed" in card.text, card.text
    shot("stories-shop-short")


def test_unlocked_time_reads_the_same_on_every_screen(browser, server, shot):
    from test_family import api_family
    zone, email, token, kid, username = api_family(server, "until", "Uma", "Ugo")
    api(server, "POST", f"/api/v1/children/{kid['id']}/adjustments", {"points": 200, "reason": "Start"}, token=token)
    log_in(browser, server, username, "kidpass123", "Ugo")
    browser.get(server.url("/quests"))
    click(browser, "form[action='/quests/redeem'] button[type=submit]")
    wait_text(browser, ".grant-list", "min left")
    board = browser.find_element(By.CSS_SELECTOR, ".grant-list").text
    browser.get(server.url(f"/quests/children/{kid['id']}/device"))
    device = browser.find_element(By.CSS_SELECTOR, "[data-live-part=policy]").text
    for text in (board, device):
        assert "until midnight" in text and "23:59" not in text and "00:00" not in text, text
    shot("device-until-midnight")


def test_forms_say_what_they_refuse_keep_what_was_typed_and_confirm(browser, server, shot):
    from test_family import api_family
    zone, email, token, kid, username = api_family(server, "forms", "Gwen", "Gus")
    log_in(browser, server, email, "password123", "Gwen")
    # A name over 50 characters is not cut without a word: it is refused, saying why, and the
    # add-child form keeps what was typed.
    browser.get(server.url("/profile"))
    too_long = "Maximilianus" * 5  # 60 characters
    fill(browser, "child-displayName", too_long)
    fill(browser, "child-username", "g")
    fill(browser, "child-password", "kidpass123")
    click(browser, "form[action='/household/children'] button[type=submit]")
    wait_text(browser, "#child-displayName-error", "at most 50")
    assert browser.find_element(By.ID, "child-displayName").get_attribute("value") == too_long
    assert browser.find_element(By.ID, "child-username").get_attribute("value") == "g"
    assert absent(browser, By.ID, "displayName-error"), "the error also showed on the profile form"
    shot("profile-add-child-error")
    # Then it is added, and the page says so.
    fill(browser, "child-displayName", "Gemma")
    fill(browser, "child-username", f"gemma{uuid.uuid4().hex[:5]}")
    fill(browser, "child-password", "kidpass123")
    click(browser, "form[action='/household/children'] button[type=submit]")
    wait_text(browser, ".notice", "Gemma is added")
    # Quiet hours from 21:00 to 21:00 are refused, not saved as none.
    browser.execute_script("document.querySelector('input[name=quiet]').checked = true;"
                           "document.querySelector('select[name=quietStart]').value = '21';"
                           "document.querySelector('select[name=quietEnd]').value = '21';")
    click(browser, "form[action='/profile/notifications'] button[type=submit]")
    wait_text(browser, "form[action='/profile/notifications'] .form__error", "two different hours")
    # An app added by hand is confirmed.
    browser.get(server.url(f"/quests/children/{kid['id']}"))
    fill(browser, "app-name", "Chess Kids")
    fill(browser, "app-token", "chess.kids")
    click(browser, "form[action$='/apps'] button[type=submit]")
    wait_text(browser, ".notice", "Chess Kids is added as a learning app")
    # The comment box is in the page's type, not monospace.
    browser.get(server.url("/stories/read/daytona/0/0?comments=1"))
    if "/stories/welcome" in browser.current_url or "/stories/choose" in browser.current_url:
        api(server, "POST", "/api/v1/stories/onboarding", None, token=token)
        browser.get(server.url("/stories/read/daytona/0/0?comments=1"))
    family = browser.execute_script("return getComputedStyle(document.getElementById('comment-text')).fontFamily")
    assert "monospace" not in family, family


def test_map_pins_never_cover_each_other(browser, server, shot):
    email = f"map-{uuid.uuid4().hex[:8]}@example.com"
    token = api(server, "POST", "/api/v1/auth/signup",
                {"email": email, "password": "password123", "displayName": "Mo", "timeZone": "UTC"})["token"]
    api(server, "POST", "/api/v1/stories/onboarding", None, token=token)
    api(server, "PUT", "/api/v1/stories/preferences", {"skip": True}, token=token)
    log_in(browser, server, email, "password123", "Mo")
    browser.get(server.url("/stories?view=map"))
    WebDriverWait(browser, 10).until(
        lambda d: d.find_element(By.CSS_SELECTOR, "[data-story-map]").get_attribute("data-map") == "leaflet")
    overlaps = browser.execute_script("""
        const boxes = [...document.querySelectorAll('.map-pin__count')].map((b) => [b.closest('[data-pin]').dataset.pin, b.getBoundingClientRect()]);
        const found = [];
        for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
          const [a, p] = boxes[i], [b, q] = boxes[j];
          if (p.left < q.right - 2 && q.left < p.right - 2 && p.top < q.bottom - 2 && q.top < p.bottom - 2) found.push(a + '/' + b);
        }
        return found;""")
    assert not overlaps, f"pins cover each other: {overlaps}"
    shot("stories-map-pins")
