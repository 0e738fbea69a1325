"""What the walkthrough of #48 found, as a new user and a family on a phone would meet it: live
pages that froze after six in a row, requests for more time nobody saw, a goal out of reach,
refused forms that Back could not leave, and every screen at 320 px."""
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import found_now, make_driver
from test_accounts import click, fill, log_in, sign_up, unique_email, wait_text
from test_family import api, api_family

SMALL = 320


def family_with_request(server, prefix):
    zone, email, token, kid, username = api_family(server, prefix, "Gwen", "Kit")
    child = api(server, "POST", "/api/v1/auth/login", {"login": username, "password": "kidpass123"})["token"]
    api(server, "POST", f"/api/v1/children/{kid['id']}/time-requests",
        {"appToken": "game", "minutes": 15, "note": "Nearly done"}, token=child)
    return email, token, kid, username, child


def test_six_family_pages_in_a_row_leave_room_for_the_next(browser, server, shot):
    """Each family page holds a live stream; a page left closes its stream, so the seventh and
    eighth pages load (over HTTP/1.1 six open streams used up the browser's connections)."""
    email, token, kid, username, child = family_with_request(server, "six")
    log_in(browser, server, email, "password123", "Gwen")
    pages = ["/quests/family", "/quests/family/cheers", "/quests/family/streak", "/quests/family/coop",
             "/quests/family", "/quests/family/cheers", "/quests/family/streak", "/quests/family/coop"]
    for index, path in enumerate(pages):
        link = found_now(browser, By.CSS_SELECTOR, f"a[href='{path}']")
        if link:
            click(browser, f"a[href='{path}']")
        else:
            browser.get(server.url(path))
        WebDriverWait(browser, 8).until(
            lambda d: d.execute_script("return location.pathname") == path
            and d.execute_script("return document.body.dataset.live") == "connected",
            f"page {index + 1} ({path}) did not load and connect")
    # Back through the cache: each page comes back connected again.
    for _ in range(3):
        browser.back()
        WebDriverWait(browser, 8).until(
            lambda d: d.execute_script("return document.body.dataset.live") == "connected",
            "a page back from the cache did not reconnect")
    shot("family-pages-in-a-row")


def test_a_childs_request_waits_on_the_guardians_home_and_console(browser, server, shot):
    email, token, kid, username, child = family_with_request(server, "ask")
    log_in(browser, server, email, "password123", "Gwen")
    wait_text(browser, ".waiting-requests", "Kit asks for 15 more minutes of Minecraft")
    assert browser.find_element(By.CSS_SELECTOR, "[data-waiting-count]").text == "1"
    shot("home-waiting-requests")
    browser.get(server.url("/quests/family"))
    wait_text(browser, ".child-card", "1 waiting for you")
    # A new request appears without a reload.
    api(server, "POST", f"/api/v1/children/{kid['id']}/time-requests", {"appToken": "game", "minutes": 5},
        token=child)
    wait_text(browser, "[data-waiting-count]", "2")
    shot("family-console-waiting-requests")
    click(browser, ".waiting-requests form button.button--primary")
    wait_text(browser, ".notice", "Approved")
    assert browser.current_url.endswith("/quests/family")
    wait_text(browser, "[data-waiting-count]", "1")


def test_a_goal_out_of_reach_is_said_and_joining_still_offered(browser, server, shot):
    browser.get(server.url("/reading/preview?campaign=2026&timeZone=Europe/Paris&now=2026-05-12T10:00:00Z"))
    widget = browser.find_element(By.CSS_SELECTOR, ".widget--medium")
    assert widget.get_attribute("data-state") == "notEnrolledOutOfReach"
    wait_text(browser, ".widget--medium", "20-day streak")
    shot("widget-notEnrolledOutOfReach")


def test_refused_forms_leave_back_and_reload_alone(browser, server, shot):
    """A refused form keeps its page's address: reload asks for the page, Back leaves it, and
    no "Confirm Form Resubmission" stands in the way."""
    browser.get(server.url("/signup"))
    fill(browser, "email", "not-an-email")
    fill(browser, "password", "short")
    click(browser, "form button[type=submit]")
    wait_text(browser, "main", "e-mail address")
    assert browser.current_url.endswith("/signup"), browser.current_url
    assert browser.switch_to.active_element.get_attribute("aria-invalid") == "true"  # focus on the first error
    browser.refresh()
    wait_text(browser, "h1", "Create your account")
    browser.get(server.url("/login"))
    browser.back()
    wait_text(browser, "h1", "Create your account")
    # A guardian's add-child form and a co-op form, refused.
    email, token, kid, username, child = family_with_request(server, "refuse")
    log_in(browser, server, email, "password123", "Gwen")
    browser.get(server.url("/profile"))
    fill(browser, "child-displayName", "X")
    fill(browser, "child-username", "a")
    fill(browser, "child-password", "kidpass123")
    click(browser, "form[action='/household/children'] button")
    wait_text(browser, "main", "3 to 32")
    assert browser.current_url.endswith("/profile")
    household = api(server, "GET", "/api/v1/me", token=token)["householdId"]
    api(server, "POST", f"/api/v1/households/{household}/children",
        {"username": f"kid{uuid.uuid4().hex[:6]}", "password": "kidpass123", "displayName": "Kai"}, token=token)
    browser.get(server.url("/quests/family/coop"))
    fill(browser, "coop-target", "0")
    click(browser, "form[action='/quests/family/coop'] button[type=submit]")
    def refusal_focused(driver):
        try:
            focused = driver.switch_to.active_element
            classes = focused.get_attribute("class") or ""
            return focused.get_attribute("aria-invalid") == "true" or "field__error" in classes or "form__error" in classes
        except Exception:  # the page is being replaced
            return False
    WebDriverWait(browser, 8).until(refusal_focused, "the refused co-op form's error does not have the focus")
    assert browser.current_url.endswith("/quests/family/coop")
    shot("coop-refused-focus")


def test_the_league_page_takes_children_in_and_says_the_name_limit(browser, server, shot):
    email, token, kid, username, child = family_with_request(server, "league")
    log_in(browser, server, email, "password123", "Gwen")
    browser.get(server.url("/league"))
    wait_text(browser, "#children-title", "Your children")
    click(browser, f"form input[value='{kid['id']}'] ~ button")
    wait_text(browser, ".notice", "Kit plays")
    wait_text(browser, "main", "Take out of the league")
    hint = browser.find_element(By.ID, "group-name-hint")
    assert "40" in hint.text
    assert browser.find_element(By.ID, "group-name").get_attribute("aria-describedby") == "group-name-hint"
    shot("league-children")


def assert_fits(browser, where, width=SMALL):
    wide = browser.execute_script("return Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
    assert wide <= width, f"{where} is {wide}px wide at a {width}px viewport"


def test_every_screen_fits_a_small_phone_and_passes_axe(server):
    """Every screen at 320 x 640: nothing wider than the screen, no control broken inside a word,
    axe-core clean (each screen is checked again at this width)."""
    email, token, kid, username, child = family_with_request(server, "small")
    quest = api(server, "POST", f"/api/v1/children/{kid['id']}/quests",
                {"title": "Learn a little", "goalType": "dailyMinutes", "target": 20,
                 "rewardApps": [{"appToken": "game", "minutes": 10}]}, token=token)
    small = make_driver(SMALL, 640)
    try:
        for path in ["/", "/login", "/signup", "/game", "/reading", "/reading/search?q=moon"]:
            small.get(server.url(path))
            assert_fits(small, f"{path} (visitor)")
        log_in(small, server, email, "password123", "Gwen")
        guardian = ["/", "/profile", "/quests/family", f"/quests/children/{kid['id']}",
                    f"/quests/children/{kid['id']}/device", f"/quests/children/{kid['id']}/report",
                    f"/quests/{quest['id']}", f"/quests/{quest['id']}/edit", f"/quests/children/{kid['id']}/quests/new",
                    "/quests/family/cheers", "/quests/family/streak", "/quests/family/coop", "/league",
                    "/activity", "/activity/saved", "/activity/recap", "/reading", "/reading/streak", "/game",
                    "/game/archive", "/stories", "/stories/points", "/stories/shop",
                    "/stories/profile", "/stories/help"]
        for path in guardian:
            small.get(server.url(path))
            assert_fits(small, path)
        # The bottom navigation's labels keep their words whole.
        for label in small.find_elements(By.CSS_SELECTOR, ".bottom-nav a > span:last-child"):
            lines = small.execute_script(
                "const r = document.createRange(); r.selectNodeContents(arguments[0]);"
                " return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size", label)
            assert lines == 1, f"the bottom navigation's {label.text!r} breaks over {lines} lines at 320 px"
        small.delete_all_cookies()
        log_in(small, server, username, "kidpass123", "Kit")
        for path in ["/quests", f"/quests/children/{kid['id']}/device", "/quests/family/cheers", "/league",
                     "/profile"]:
            small.get(server.url(path))
            assert_fits(small, f"{path} (child)")
        small.save_screenshot(f"{__import__('conftest').SHOTS}/small-phone-child-board.png")
    finally:
        small.quit()
