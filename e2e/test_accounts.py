"""Sign-up, login, logout, profile and households through the real pages."""
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import absent


def wait_text(browser, css, text, timeout=10):
    """Waits until an element matching css shows text (pages load after a click)."""
    def shown(driver):
        for element in driver.find_elements(By.CSS_SELECTOR, css):
            try:
                if text in element.text:
                    return element
            except Exception:  # replaced by the next page while reading
                pass
        return False
    return WebDriverWait(browser, timeout).until(shown, f"no {css} showing {text!r}")


def unique_email():
    return f"reader-{uuid.uuid4().hex[:10]}@example.com"


def click(browser, css):
    element = browser.find_element(By.CSS_SELECTOR, css)
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def fill(browser, field_id, text):
    element = browser.find_element(By.ID, field_id)
    element.clear()
    element.send_keys(text)
    return element


def log_in(browser, server, login, password, name):
    """Logs in through the login page, from the keyboard, and waits for the home page."""
    browser.get(server.url("/login"))
    fill(browser, "login", login)
    fill(browser, "password", password).send_keys(Keys.ENTER)
    wait_text(browser, ".greeting", f"Hello, {name}")


def log_out(browser, server):
    browser.get(server.url("/profile"))
    click(browser, "form.logout button")
    wait_text(browser, ".notice", "You are signed out")


def sign_up(browser, server, email, name="Rita Reader", zone="Asia/Kolkata", password="password123"):
    browser.get(server.url("/signup"))
    fill(browser, "email", email)
    fill(browser, "password", password)
    fill(browser, "displayName", name)
    fill(browser, "timeZone", zone)
    click(browser, "form button[type=submit]")
    # Wait for the redirect to the home page, so the session cookie is set.
    wait_text(browser, ".greeting", "Hello")


def test_sign_up_lands_on_home_with_local_day_and_navigation(browser, server, shot):
    browser.get(server.url("/"))
    shot("landing")
    browser.find_element(By.LINK_TEXT, "Create an account").click()
    WebDriverWait(browser, 10).until(lambda d: "/signup" in d.current_url)
    # The page fills the time zone from the browser; it is an editable text field.
    assert browser.find_element(By.ID, "timeZone").get_attribute("value")
    shot("signup")
    sign_up(browser, server, unique_email())
    greeting = browser.find_element(By.CSS_SELECTOR, ".greeting")
    assert "Hello, Rita Reader" in greeting.text
    assert "Asia/Kolkata" in greeting.text
    nav = browser.find_element(By.CSS_SELECTOR, "nav[aria-label=Main]")
    for area in ("Reading", "Activity", "Game", "Quests", "Stories"):
        assert area in nav.text
    shot("home")
    click(browser, "a.tile[href='/stories']")
    wait_text(browser, "[data-slide='0']", "Stories from the track")  # first visit: the onboarding
    browser.get(server.url("/quests/family"))
    wait_text(browser, ".empty-state", "Set up your family")
    # An error page keeps the signed-in layout: the avatar and the navigation, no "Log in".
    browser.get(server.url("/quests/00000000-0000-0000-0000-000000000000"))
    wait_text(browser, "main", "Not found")
    assert browser.find_elements(By.CSS_SELECTOR, "nav[aria-label=Main]")
    assert browser.find_elements(By.CSS_SELECTOR, ".app-bar__avatar")
    assert browser.title == "Not found · Questline"
    browser.get(server.url("/"))
    assert browser.title == "Questline"  # the product's name once


def test_sign_up_errors_show_next_to_fields_and_keep_values(browser, server, shot):
    browser.get(server.url("/signup"))
    fill(browser, "email", "not-an-email")
    fill(browser, "password", "short")
    fill(browser, "displayName", "Rita")
    fill(browser, "timeZone", "Mars/Olympus")
    click(browser, "form button[type=submit]")
    wait_text(browser, "#email-error", "e-mail address")
    wait_text(browser, "#password-error", "8 characters")
    wait_text(browser, "#timeZone-error", "IANA")
    assert browser.find_element(By.ID, "displayName").get_attribute("value") == "Rita"
    assert browser.find_element(By.ID, "timeZone").get_attribute("value") == "Mars/Olympus"
    # Keyboard users land on the first invalid field.
    assert browser.switch_to.active_element.get_attribute("id") == "email"
    shot("signup-errors")


def test_log_out_then_log_in_again_with_keyboard_only(browser, server, shot):
    email = unique_email()
    sign_up(browser, server, email, name="Kay Board")
    log_out(browser, server)
    # Wrong password: a clear message, no session.
    fill(browser, "login", email)
    fill(browser, "password", "wrong-password").send_keys(Keys.ENTER)
    wait_text(browser, ".form__error", "do not match")
    shot("login-error")
    # Right password, typed and submitted from the keyboard.
    fill(browser, "password", "password123").send_keys(Keys.ENTER)
    wait_text(browser, ".greeting", "Hello, Kay Board")


def test_profile_changes_name_and_time_zone(browser, server, shot):
    sign_up(browser, server, unique_email(), name="Pat")
    browser.get(server.url("/profile"))
    assert absent(browser, By.CSS_SELECTOR, ".notice")  # no empty notice bar
    fill(browser, "displayName", "Pat Jones")
    fill(browser, "timeZone", "America/New_York")
    click(browser, "form[action='/profile'] button[type=submit]")
    wait_text(browser, ".notice", "Your profile is saved.")
    shot("profile")
    fill(browser, "timeZone", "GMT+5")
    click(browser, "form[action='/profile'] button[type=submit]")
    wait_text(browser, "#timeZone-error", "IANA")
    browser.get(server.url("/"))
    wait_text(browser, ".greeting", "America/New_York")


def test_notification_settings_are_saved_and_shown_again(browser, server, shot):
    sign_up(browser, server, unique_email(), name="Noa", zone="Europe/Berlin")
    browser.get(server.url("/profile"))
    form = browser.find_element(By.CSS_SELECTOR, "form[action='/profile/notifications']")
    boxes = {name: form.find_element(By.NAME, name) for name in ("streakReminders", "questUpdates", "quiet")}
    # An adult's defaults: everything on, no quiet hours.
    assert boxes["streakReminders"].is_selected() and boxes["questUpdates"].is_selected()
    assert not boxes["quiet"].is_selected()
    click(browser, "form[action='/profile/notifications'] input[name=streakReminders]")
    click(browser, "form[action='/profile/notifications'] input[name=quiet]")
    Select(browser.find_element(By.ID, "quietStart")).select_by_visible_text("22:00")
    Select(browser.find_element(By.ID, "quietEnd")).select_by_visible_text("06:00")
    click(browser, "form[action='/profile/notifications'] button[type=submit]")
    wait_text(browser, ".notice", "Your notification settings are saved.")
    shot("profile-notifications")
    form = browser.find_element(By.CSS_SELECTOR, "form[action='/profile/notifications']")
    assert not form.find_element(By.NAME, "streakReminders").is_selected()
    assert form.find_element(By.NAME, "questUpdates").is_selected()
    assert form.find_element(By.NAME, "quiet").is_selected()
    assert Select(browser.find_element(By.ID, "quietStart")).first_selected_option.text == "22:00"
    assert Select(browser.find_element(By.ID, "quietEnd")).first_selected_option.text == "06:00"
    # The API reads the same settings.
    settings = browser.execute_async_script(
        "const done = arguments[0]; fetch('/api/v1/me/notifications').then(r => r.json()).then(done, e => done(String(e)));")
    assert settings == {"streakReminders": False, "questUpdates": True, "quietHours": {"start": 22, "end": 6}}, settings


def test_demo_guardian_sees_the_household_and_adds_a_child(browser, server, shot):
    assert "demo.guardian@questline.example" in server.demo_accounts, "serve did not print the demo accounts"
    log_in(browser, server, "demo.guardian@questline.example", server.demo_accounts["demo.guardian@questline.example"], "Demo Guardian")
    browser.get(server.url("/profile"))
    household = browser.find_element(By.CSS_SELECTOR, "section[aria-labelledby=household-title]")
    assert "Demo family" in household.text
    assert "Demo Kid" in household.text
    fill(browser, "child-displayName", "Second Kid")
    fill(browser, "child-username", f"kid-{uuid.uuid4().hex[:6]}")
    fill(browser, "child-password", "kidpass123")
    click(browser, "form[action='/household/children'] button")
    wait_text(browser, "section[aria-labelledby=household-title]", "Second Kid")
    shot("household")


def test_demo_child_can_log_in_with_a_username(browser, server):
    log_in(browser, server, "demo-kid", server.demo_accounts["demo-kid"], "Demo Kid")


def test_download_my_data_delete_a_child_then_my_account(browser, server, shot):
    email = unique_email()
    sign_up(browser, server, email, name="Dana")
    browser.get(server.url("/profile"))
    fill(browser, "household-name", "Dana's home")
    click(browser, "form[action='/household'] button")
    wait_text(browser, "section[aria-labelledby=household-title]", "Dana's home")
    fill(browser, "child-displayName", "Kit")
    fill(browser, "child-username", f"kit-{uuid.uuid4().hex[:6]}")
    fill(browser, "child-password", "kidpass123")
    click(browser, "form[action='/household/children'] button")
    wait_text(browser, "section[aria-labelledby=household-title]", "Kit")
    # The data download is a readable JSON file, grouped by feature.
    archive = browser.execute_async_script(
        "const done = arguments[0]; fetch('/profile/export').then(r => r.json()).then(done, e => done(String(e)));")
    account = archive["profile"]["account"][0]
    assert account["email"] == email and account["createdAt"].endswith("Z")
    assert "passwordHash" not in account and "password_hash" not in account
    assert set(archive) >= {"profile", "reading", "saved", "game", "quests", "points", "stories", "notifications"}
    shot("profile-your-data")
    # Deleting the account while a child has no other guardian is refused, saying why.
    click(browser, "form[action='/profile/delete'] button")
    WebDriverWait(browser, 5).until(lambda d: d.switch_to.alert).accept()
    wait_text(browser, "[role=alert]", "delete the children's accounts first")
    # The child goes first, then the account.
    click(browser, "form[action^='/household/children/'][action$='/delete'] button")
    WebDriverWait(browser, 5).until(lambda d: d.switch_to.alert).accept()
    wait_text(browser, ".notice", "The child's account is deleted.")
    assert "Kit" not in browser.find_element(By.CSS_SELECTOR, "section[aria-labelledby=household-title]").text
    click(browser, "form[action='/profile/delete'] button")
    WebDriverWait(browser, 5).until(lambda d: d.switch_to.alert).accept()
    wait_text(browser, ".notice", "Your account and everything held about it are deleted.")
    shot("account-deleted")
    fill(browser, "login", email)
    fill(browser, "password", "password123").send_keys(Keys.ENTER)
    wait_text(browser, "[role=alert]", "do not match")
