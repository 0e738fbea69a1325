"""'Which came first?': a whole game from the splash, leaving at question 3 and coming back."""
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import absent
from test_accounts import click, fill, sign_up, wait_text


def answer_current_question(browser, side="first"):
    """Keyboard only: Space selects the focused card, Enter submits the form."""
    wait_text(browser, ".game__progress", "Question")
    radio = browser.find_element(By.CSS_SELECTOR, f".game-card--{side} .game-card__input")
    # Submit shows only once a card is chosen.
    assert not browser.find_element(By.CSS_SELECTOR, ".game__submit").is_displayed()
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", radio)
    radio.send_keys(Keys.SPACE)
    assert radio.is_selected()
    assert browser.find_element(By.CSS_SELECTOR, ".game__submit").is_displayed()
    radio.send_keys(Keys.ENTER)
    return wait_text(browser, ".verdict", "!")


def next_question(browser):
    """Keyboard only: Enter on the Next (or Finish) link."""
    browser.find_element(By.CSS_SELECTOR, ".game__next").send_keys(Keys.ENTER)


def test_play_leave_resume_and_finish(browser, server, shot):
    sign_up(browser, server, f"gamer-{uuid.uuid4().hex[:8]}@example.com", name="Gail Gamer", zone="UTC")
    browser.get(server.url("/game"))
    wait_text(browser, ".game-hero", "Which came first?")
    assert browser.find_element(By.LINK_TEXT, "About this game").get_attribute("href").startswith("https://www.mediawiki.org/")
    shot("game-splash")
    click(browser, ".game-hero button[type=submit]")  # Play today's game

    # Question 1: the title and both cards are there; long text scrolls inside its card.
    wait_text(browser, ".game__progress", "Question 1 of 5")
    cards = browser.find_elements(By.CSS_SELECTOR, ".game-card")
    assert len(cards) == 2
    overflow = browser.execute_script("return getComputedStyle(document.querySelector('.game-card__text')).overflowY")
    assert overflow == "auto"
    shot("game-question")
    verdict = answer_current_question(browser, "first")
    assert verdict.text.strip() in ("Correct!", "Incorrect!")
    years = browser.find_elements(By.CSS_SELECTOR, ".game-card__year strong")
    assert len(years) == 2 and all(y.get_attribute("textContent").strip() for y in years)  # both dates shown
    bubble = browser.find_element(By.CSS_SELECTOR, ".bubbles li:first-child")
    assert "bubble--correct" in bubble.get_attribute("class") or "bubble--incorrect" in bubble.get_attribute("class")
    wait_text(browser, ".game-card--chosen", "Your answer")  # the selected state stays
    shot("game-reveal")
    # "Read about …" opens the event's article in the app, in this tab; Back returns to the verdict.
    link = browser.find_element(By.CSS_SELECTOR, ".game-card__link")
    assert "/reading/article?" in link.get_attribute("href") and not link.get_attribute("target")
    about = link.text.removeprefix("Read about ").strip()
    link.click()
    wait_text(browser, ".app-bar__title", about)
    browser.back()
    wait_text(browser, ".verdict", "!")
    next_question(browser)

    # Back from question 2: question 1's verdict, its cards whole (the exit is undone); Back again
    # shows where the game stands (question 2), never question 1 unanswered or an error page.
    wait_text(browser, ".game__progress", "Question 2 of 5")
    browser.back()
    wait_text(browser, ".verdict", "!")
    WebDriverWait(browser, 5).until(lambda d: absent(d, By.CSS_SELECTOR, ".game--leaving"))
    WebDriverWait(browser, 5).until(lambda d: len([
        card for card in d.find_elements(By.CSS_SELECTOR, ".game-card")
        if card.is_displayed() and card.size["height"] > 40]) == 2)  # after their entrance animation
    browser.back()
    wait_text(browser, ".game__progress", "Question 2 of 5")
    # An old copy of question 1 answered again (a second tab, whose form carries the page's
    # form token): its verdict, not "Conflict".
    play = browser.current_url.split("?")[0]
    browser.execute_script(
        "const f = document.createElement('form'); f.method = 'post'; f.action = arguments[0] + '/answer';"
        "const token = document.querySelector('meta[name=csrf-token]').content;"
        "for (const [k, v] of [['questionIndex', '0'], ['choice', 'second'], ['_csrf', token]]) {"
        " const i = document.createElement('input'); i.name = k; i.value = v; f.append(i); }"
        "document.body.append(f); f.submit();", play)
    wait_text(browser, ".verdict", "!")
    assert "reveal=0" in browser.current_url
    browser.get(play)
    wait_text(browser, ".game__progress", "Question 2 of 5")
    answer_current_question(browser, "second")
    next_question(browser)
    wait_text(browser, ".game__progress", "Question 3 of 5")
    browser.get(server.url("/"))
    browser.get(server.url("/game"))
    wait_text(browser, ".game-hero", "question 3 of 5")
    shot("game-continue")
    browser.find_element(By.LINK_TEXT, "Continue playing").click()
    wait_text(browser, ".game__progress", "Question 3 of 5")
    for number in (3, 4, 5):
        wait_text(browser, ".game__progress", f"Question {number} of 5")
        answer_current_question(browser, "first")
        next_question(browser)

    # Results, stats and where past games are.
    wait_text(browser, ".game-results h2", "of 5 right")
    wait_text(browser, ".snackbar", "Past games are in the archive")
    played = browser.find_element(By.XPATH, "//dt[text()='Played']/following-sibling::dd")
    assert played.text == "1"
    shot("game-results")
    browser.find_element(By.LINK_TEXT, "Open the archive").click()
    wait_text(browser, ".calendar", "/5")  # today, played, with its score
    shot("game-archive")


def test_language_choice_is_remembered_and_the_archive_offers_only_days_it_can_serve(browser, server, shot):
    from selenium.webdriver.support.ui import Select
    sign_up(browser, server, f"polyglot-{uuid.uuid4().hex[:8]}@example.com", name="Paul Polyglot", zone="UTC")
    browser.get(server.url("/game"))
    picker = Select(browser.find_element(By.ID, "language"))
    assert picker.first_selected_option.text == "English"
    picker.select_by_visible_text("German")
    click(browser, "form[action='/game/language'] button")
    # The member's language is the game's: the pages are in German now.
    wait_text(browser, ".game-hero", "Was war zuerst?")
    assert browser.execute_script("return document.documentElement.lang") == "de"
    assert Select(browser.find_element(By.ID, "language")).first_selected_option.get_attribute("value") == "de"
    # German has no feed kept offline and Wikipedia is off here: the splash says so, without a command.
    wait_text(browser, ".empty-state", "Wikipedia")
    assert "questline" not in browser.find_element(By.CSS_SELECTOR, ".empty-state").text
    shot("game-splash-offline")
    browser.get(server.url("/profile"))
    assert Select(browser.find_element(By.ID, "language")).first_selected_option.get_attribute("value") == "de"
    # Back in English: the archive offers only the days whose feed is at hand.
    browser.get(server.url("/game"))
    Select(browser.find_element(By.ID, "language")).select_by_value("en")
    click(browser, "form[action='/game/language'] button")
    wait_text(browser, ".game-hero", "Which came first?")
    import datetime
    today = datetime.datetime.now(datetime.timezone.utc).date()
    bundled = datetime.date(today.year, 10, 30)
    if bundled >= today:
        bundled = datetime.date(today.year - 1, 10, 30)
    browser.get(server.url(f"/game/archive?language=en&month={bundled:%Y-%m}"))
    wait_text(browser, ".calendar", "")
    blocked = browser.find_elements(By.CSS_SELECTOR, "[aria-label$='needs a connection to Wikipedia']")
    assert blocked, "with Wikipedia off, days without a feed are not offered"
    offered = [b.get_attribute("aria-label") for b in browser.find_elements(By.CSS_SELECTOR, ".day--open")]
    assert any("30 October" in label for label in offered), offered
    shot("game-archive-offline")
    # The day whose feed ships with the product can be played.
    button = browser.find_element(By.CSS_SELECTOR, f"form[action='/game/start'] input[value='{bundled:%Y-%m-%d}'] ~ button")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    wait_text(browser, ".game__progress", "Question 1")
