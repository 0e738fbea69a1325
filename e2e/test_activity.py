"""The Activity tab with and without data, and the Saved list."""
import time
import uuid

from selenium.webdriver.common.by import By

from conftest import absent
from test_accounts import click, sign_up, wait_text


def test_activity_empty_then_with_a_read_and_a_save(browser, server, shot):
    sign_up(browser, server, f"active-{uuid.uuid4().hex[:8]}@example.com", name="Avery Active", zone="UTC")
    browser.get(server.url("/activity"))
    saved = wait_text(browser, ".module--link", "Saved")
    assert saved.find_element(By.CSS_SELECTOR, ".module__figure").text == "0"    # the module stays, with 0
    wait_text(browser, "#timeline-title + p", "No reading or saving")
    wait_text(browser, "main", "No badges yet")
    shot("activity-empty")

    browser.get(server.url("/reading/search?q=Octopus"))
    browser.find_element(By.PARTIAL_LINK_TEXT, "Octopus").click()
    wait_text(browser, "article", "counts as today's read")
    time.sleep(1.5)  # reading: the page reports the time it was in view when it is left
    click(browser, "form[action='/activity/saved/add'] button")
    wait_text(browser, ".notice", "Saved.")
    assert absent(browser, By.CSS_SELECTOR, "form[action='/activity/saved/add']")  # saved: no Save again
    browser.get(browser.current_url.replace("&saved=1", "").replace("saved=1&", ""))  # reopened later
    wait_text(browser, "article", "In your saved articles")
    assert absent(browser, By.CSS_SELECTOR, "form[action='/activity/saved/add']")

    browser.get(server.url("/activity"))
    module = wait_text(browser, ".module--link", "Last saved")
    assert module.find_element(By.CSS_SELECTOR, ".module__figure").text == "1"
    figures = [element.text for element in browser.find_elements(By.CSS_SELECTOR, ".modules .module__figure")]
    assert figures[0] == "1" and figures[2] == "1"                              # one article read, a 1-day streak
    wait_text(browser, ".timeline", "1 read · 1 saved")  # one article, opened twice (saving re-opens it)
    # The time in view was reported: some reading, under a minute.
    for _ in range(10):
        spent = browser.find_element(By.XPATH, "//h2[text()='Time reading']/following-sibling::p").text
        if spent != "0 min":
            break
        time.sleep(0.5)
        browser.refresh()
    assert spent == "< 1 min", spent
    shot("activity-with-data")

    click(browser, ".module--link")                                            # tapping the module opens Saved
    wait_text(browser, ".saved-list", "Octopus")
    assert absent(browser, By.CSS_SELECTOR, ".notice")              # no empty notice bar
    shot("activity-saved-list")
    click(browser, ".saved-list button")
    wait_text(browser, ".notice", "Removed")
    wait_text(browser, ".empty-state", "No saved articles")


def test_the_month_and_year_in_review(browser, server, shot):
    """The recap page at phone size: slides from the member's reading, the picture to share,
    the neighbouring periods and the year (#39)."""
    from test_accounts import sign_up, unique_email, click, wait_text
    sign_up(browser, server, unique_email(), name="Ravi Recap With A Rather Long Name", zone="UTC")
    browser.get(server.url("/reading/random"))
    wait_text(browser, "article", "counts as today's read")
    browser.get(server.url("/activity"))
    click(browser, "a[href='/activity/recap']")
    wait_text(browser, "#recap-title", "in review")
    wait_text(browser, ".recap__slide", "You read")
    wait_text(browser, ".recap", "So far")
    shot("recap-month")
    # The picture downloads as an SVG that says the period.
    picture = browser.find_element(By.CSS_SELECTOR, "a[download='questline-recap.svg']").get_attribute("href")
    browser.get(picture)
    assert "in review" in browser.page_source
    browser.back()
    wait_text(browser, "#recap-title", "in review")
    # The year, and back to the month.
    year = next(link for link in browser.find_elements(By.CSS_SELECTOR, ".recap__periods a")
                if link.text.startswith("The year"))
    click(browser, f".recap__periods a[href='{year.get_attribute('href').split(server.url(''))[-1]}']")
    wait_text(browser, ".recap__slide", "You read")
    shot("recap-year")
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    browser.back()
    wait_text(browser, ".recap__periods", "The year")
