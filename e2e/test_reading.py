"""The reading challenge widget through the real pages, in at least five states."""
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import absent, found_now
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
    # The page reported the read by POST and redrew its widget in place, without a reload.
    WebDriverWait(browser, 10).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "form[data-beacon][data-sent=done]"))
    assert widget_state(browser) == "streakReadToday"
    browser.get(server.url("/"))
    assert widget_state(browser) == "streakReadToday"
    wait_text(browser, ".widget", "Today's read is done")
    shot("widget-read-today")
    # The streak calendar: today read, nothing missed before the first read; last month reachable
    # only when there is something there (there is not), and no month to come.
    browser.get(server.url("/reading"))
    wait_text(browser, "#calendar-title", "Your streak")
    read = browser.find_elements(By.CSS_SELECTOR, "#calendar [data-mark=read]")
    assert len(read) == 1 and absent(browser, By.CSS_SELECTOR, "#calendar [data-mark=missed]")
    assert absent(browser, By.CSS_SELECTOR, "#calendar a[aria-label='Previous month']")
    assert absent(browser, By.CSS_SELECTOR, "#calendar a[aria-label='Next month']")
    browser.execute_script("document.getElementById('calendar').scrollIntoView()")
    shot("reading-streak-calendar")
    browser.get(server.url("/activity"))
    assert len(browser.find_elements(By.CSS_SELECTOR, "#calendar [data-mark=read]")) == 1
    browser.get(server.url("/reading?month=May"))
    wait_text(browser, "main", "YYYY-MM")
    browser.get(server.url("/reading/search?q=zzz-nothing"))
    wait_text(browser, "main", "matches \u201czzz-nothing\u201d")


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


def test_search_napoleon_open_save_and_see_its_image_in_activity(browser, server, shot):
    from test_accounts import sign_up, unique_email
    sign_up(browser, server, unique_email(), name="Nina Napoleon", zone="UTC")
    browser.get(server.url("/reading/search"))
    fill(browser, "q", "Napoleon")
    click(browser, "form[role=search] button[type=submit]")
    wait_text(browser, "#results-title", "Napoleon")
    rows = browser.find_elements(By.CSS_SELECTOR, ".article-row")
    assert [row.find_element(By.CSS_SELECTOR, "strong").text for row in rows] == ["Napoleon", "Napoleon III", "Napoleonic Wars"]
    images = [found_now(browser, By.CSS_SELECTOR, "img", within=row) for row in rows]
    assert images[0] and images[0][0].get_attribute("src").startswith("https://upload.wikimedia.org/")
    assert not images[2]  # Wikipedia has no image for it: the initial stands in
    assert "French emperor" in rows[0].text
    shot("reading-search-napoleon")
    rows[0].click()
    wait_text(browser, "article h2", "Napoleon")
    article = browser.find_element(By.CSS_SELECTOR, "article")
    assert "French general and statesman" in article.text
    assert article.find_element(By.CSS_SELECTOR, "img.article__image").get_attribute("alt") == "Napoleon"
    assert article.find_element(By.LINK_TEXT, "Read on Wikipedia").get_attribute("href") == "https://en.wikipedia.org/wiki/Napoleon"
    shot("reading-article")
    click(browser, "form[action='/activity/saved/add'] button")
    wait_text(browser, ".notice", "Saved.")
    browser.get(server.url("/activity"))
    wait_text(browser, ".module--link", "Last saved")
    # The circle's image is the summary's (offline it cannot load, and the page drops it, so
    # the page as served is read).
    html = browser.execute_async_script(
        "const done = arguments[0]; fetch('/activity').then(r => r.text()).then(done, e => done(String(e)));")
    assert '<img class="thumb" src="https://upload.wikimedia.org/wikipedia/commons/thumb/5/50/Jacques-Louis_David' in html.replace("&#x2F;", "/").replace("&#47;", "/"), html[:2000]
    shot("activity-saved-circle")
    # Back returns to the article.
    browser.back()
    wait_text(browser, "article h2", "Napoleon")


def test_the_join_announcement_shows_once_and_joining_agrees_with_the_widget(browser, server, shot):
    from test_accounts import sign_up
    sign_up(browser, server, f"announce-{uuid.uuid4().hex[:8]}@example.com", name="Ann Nounce", zone="UTC")
    # Not enrolled while the challenge is live: announced on the first home page, once.
    wait_text(browser, "[data-announcement]", "Join the challenge")
    shot("reading-join-announcement")
    click(browser, "[data-dismiss=announcement]")
    assert absent(browser, By.CSS_SELECTOR, "[data-announcement]")
    browser.get(server.url("/"))
    assert absent(browser, By.CSS_SELECTOR, "[data-announcement]")
    assert widget_state(browser) == "notEnrolled"
    # Read first, then join: the notice says what the widget says.
    browser.get(server.url("/reading/random"))
    wait_text(browser, "article", "counts as today's read")
    browser.get(server.url("/reading"))
    click(browser, ".widget [data-cta=join]")
    wait_text(browser, ".notice", "Today's read is done")
    assert widget_state(browser) == "streakReadToday"


def test_an_administrator_sees_the_challenge_funnel_as_a_chart(browser, server, shot):
    from test_accounts import log_in, sign_up
    guardian = "demo.guardian@questline.example"
    log_in(browser, server, guardian, server.demo_accounts[guardian], "Demo Guardian")  # an administrator
    browser.get(server.url("/reading"))
    click(browser, "a[href='/admin/funnel']")
    wait_text(browser, "#funnel-title", "Demo challenge")
    chart = browser.find_element(By.CSS_SELECTOR, "svg.chart")
    labels = [label.text for label in chart.find_elements(By.CSS_SELECTOR, ".bar__label")]
    assert labels == ["Widget impressions", "Joins", "First read", "7-day streak", "Completions", "Prize claims"], labels
    assert len(chart.find_elements(By.CSS_SELECTOR, "rect.bar")) == 6
    shot("reading-admin-funnel")
    # Anyone else is refused, and offered no link.
    browser.delete_all_cookies()
    sign_up(browser, server, f"nosy-{uuid.uuid4().hex[:8]}@example.com", name="Nosy Reader", zone="UTC")
    browser.get(server.url("/reading"))
    assert absent(browser, By.CSS_SELECTOR, "a[href='/admin/funnel']")
    browser.get(server.url("/admin/funnel"))
    wait_text(browser, "main", "for administrators")


def test_forgiving_streaks_rest_days_pause_and_the_widget_states(browser, server, shot):
    """Rest days and a pause chosen on /reading/streak at phone size, and the widget's
    repairable, paused, rest-day states and perfect tier (#39)."""
    from test_accounts import sign_up, unique_email
    # The widget's new states, as the QA preview draws them.
    cases = [
        ("repairable", {"now": "2026-05-06T10:00:00Z", "joined": "2026-05-01",
                        "reads": "2026-05-01,2026-05-02,2026-05-03,2026-05-04"}),
        ("paused", {"now": "2026-05-06T10:00:00Z", "joined": "2026-05-01", "reads": "2026-05-01,2026-05-02,2026-05-03",
                    "pause": "2026-05-04/2026-05-08"}),
        ("restDay", {"now": "2026-05-09T10:00:00Z", "joined": "2026-05-01", "rest": "6,7",
                     "reads": "2026-05-04,2026-05-05,2026-05-06,2026-05-07,2026-05-08"}),
    ]
    for state, params in cases:
        assert preview(browser, server, **params) == state
        shot(f"widget-{state}")
    wait_text(browser, ".widget--medium[data-state=restDay]", "streak")
    preview(browser, server, now="2026-05-05T10:00:00Z", joined="2026-05-01",
            reads="2026-05-01,2026-05-02,2026-05-03,2026-05-04,2026-05-05")
    wait_text(browser, ".widget--medium .tier-badge", "Perfect streak")
    shot("widget-perfect-tier")
    # A repair: three reads on the 6th saved the 5th.
    preview(browser, server, now="2026-05-06T10:00:00Z", joined="2026-05-01",
            reads="2026-05-01,2026-05-02,2026-05-03,2026-05-04", repairs="2026-05-06")
    assert browser.find_element(By.CSS_SELECTOR, ".widget--medium").get_attribute("data-state") == "streakReadToday"
    browser.get(server.url("/reading/preview?campaign=2026&rest=1,2,3"))
    wait_text(browser, "main", "at most 2 rest days")
    # The live rule's cap holds in the preview too (#48): 15 paused days in a year are refused.
    browser.get(server.url("/reading/preview?campaign=2026&pause=2026-05-01/2026-05-15"))
    wait_text(browser, "main", "At most 14 paused days in 2026")
    # An unknown parameter is refused, naming it.
    browser.get(server.url("/reading/preview?campaign=2026&pauseStart=2026-05-04"))
    wait_text(browser, "main", "Unknown parameter")

    # The settings page, reached from the reading page.
    sign_up(browser, server, unique_email(), name="Rosa Rest", zone="UTC")
    browser.get(server.url("/reading"))
    click(browser, "a[href='/reading/streak']")
    wait_text(browser, "h1", "Rest days and pauses")
    wait_text(browser, "main", "14 days left this year")
    shot("streak-settings")
    click(browser, "input[name=restDay][value='6']")
    click(browser, "input[name=restDay][value='7']")
    click(browser, "form[action='/reading/streak/rest-days'] button[type=submit]")
    wait_text(browser, ".notice", "Your rest days are saved.")
    # Said once: the address lost its flag, so a reload does not say it again.
    assert "rest=1" not in browser.current_url, browser.current_url
    wait_text(browser, "main", "Saturday and Sunday")
    assert browser.find_element(By.CSS_SELECTOR, "input[name=restDay][value='6']").is_selected()
    # Three rest days are refused, the error under the field, the choice kept.
    for value in ("1", "2", "3"):
        click(browser, f"input[name=restDay][value='{value}']")
    click(browser, "input[name=restDay][value='6']")
    click(browser, "input[name=restDay][value='7']")
    click(browser, "form[action='/reading/streak/rest-days'] button[type=submit]")
    wait_text(browser, "#restDays-error", "at most 2 rest days")
    shot("streak-settings-refused")
    # A refused form: Back and reload ask for the page, never to send the form again.
    assert browser.current_url.endswith("/reading/streak"), browser.current_url
    browser.refresh()
    wait_text(browser, "h1", "Rest days and pauses")
    assert absent(browser, By.ID, "restDays-error")
    # A pause of a few days from the first day begun nowhere (the form's defaults), then cancelled.
    browser.get(server.url("/reading/streak"))
    click(browser, "form[action='/reading/streak/pause'] button[type=submit]")
    wait_text(browser, ".notice", "Your pause is planned:")
    wait_text(browser, "main", "Planned:")
    assert "<strong>14</strong> left this year" not in browser.page_source
    shot("streak-settings-paused")
    click(browser, "form[action='/reading/streak/pause/end'] button[type=submit]")
    wait_text(browser, ".notice", "The pause has ended.")
    wait_text(browser, "main", "14 days left this year")
    # The page fits the phone's width: nothing scrolls sideways.
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    browser.back()
    wait_text(browser, "h1", "Rest days and pauses")
