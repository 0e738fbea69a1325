"""The reading challenge widget through the real pages, in at least five states."""
import uuid

from selenium.webdriver.common.by import By

from test_accounts import click, fill, wait_text


def widget_state(browser):
    return wait_text(browser, ".widget", "").get_attribute("data-state")


def test_logged_out_join_sign_up_and_read(browser, server, shot):
    browser.get(server.url("/"))
    assert widget_state(browser) == "notEnrolled"
    wait_text(browser, ".widget", "Log in to join")
    shot("widget-logged-out")
    click(browser, ".widget [data-cta=login]")                    # remembered for this browser
    wait_text(browser, "h1", "Log in")
    browser.find_element(By.LINK_TEXT, "Sign Up").click()
    wait_text(browser, "h1", "Create your account")
    fill(browser, "email", f"widget-{uuid.uuid4().hex[:8]}@example.com")
    fill(browser, "password", "password123")
    fill(browser, "displayName", "Wendy Widget")
    fill(browser, "timeZone", "UTC")
    click(browser, "form button[type=submit]")
    wait_text(browser, ".greeting", "Hello, Wendy Widget")
    # Enrolled after signing up, without being asked again.
    assert widget_state(browser) == "enrolledNotStarted"
    shot("widget-enrolled-not-started")
    click(browser, ".widget [data-cta=random]")
    wait_text(browser, "article", "counts as today's read")
    browser.get(server.url("/"))
    assert widget_state(browser) == "streakReadToday"
    wait_text(browser, ".widget", "Today's read is done")
    shot("widget-read-today")
    browser.get(server.url("/reading/search?q=zzz-nothing"))
    wait_text(browser, "main", "Nothing matches")


def preview(browser, server, **params):
    query = "&".join(f"{key}={value}" for key, value in params.items())
    browser.get(server.url(f"/reading/preview?campaign=2026&timeZone=Europe/Paris&{query}"))
    return wait_text(browser, "[data-preview-state]", "").text


def test_preview_shows_any_state_for_any_date(browser, server, shot):
    cases = [
        ("notLiveYet", {"now": "2026-04-20T10:00:00Z"}),
        ("notEnrolledWithStreak", {"now": "2026-05-04T10:00:00Z", "reads": "2026-05-01,2026-05-02,2026-05-03"}),
        ("streakNotReadToday", {"now": "2026-05-04T10:00:00Z", "joined": "2026-05-01", "reads": "2026-05-02,2026-05-03"}),
        ("completed", {"now": "2026-06-02T10:00:00Z", "joined": "2026-05-01", "completed": "2026-05-25"}),
        ("concludedIncomplete", {"now": "2026-06-02T10:00:00Z", "joined": "2026-05-01", "reads": "2026-05-10,2026-05-11"}),
        ("removed", {"now": "2026-07-11T10:00:00Z", "joined": "2026-05-01", "completed": "2026-05-25"}),
    ]
    for state, params in cases:
        assert preview(browser, server, **params) == state
        assert browser.find_element(By.CSS_SELECTOR, ".widget--medium").get_attribute("data-state") == state
        shot(f"widget-{state}")
    # The completed widget shows its count and the claim CTA is not offered in a preview.
    preview(browser, server, now="2026-06-02T10:00:00Z", joined="2026-05-01", completed="2026-05-25")
    wait_text(browser, ".widget--medium", "25")
    # Bad parameters get a readable error, naming the field.
    browser.get(server.url("/reading/preview?campaign=2026&now=yesterday"))
    wait_text(browser, "main", "now")
