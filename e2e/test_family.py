"""Family quests: a guardian builds a quest with real apps, usage arrives through the API, and
both the child's board and the guardian's page show the completion and the unlock without a
reload."""
import datetime
import json
import urllib.request
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import SHOTS, absent, make_driver
from test_accounts import click, fill, log_in, sign_up, wait_text


def midday_zone():
    """A fixed-offset zone where it is the middle of the day now, so 20 minutes of usage
    never straddle a local midnight whenever the test runs."""
    hour = datetime.datetime.now(datetime.timezone.utc).hour
    offset = max(-12, min(14, 12 - hour))
    return "Etc/GMT" + ("-" if offset > 0 else "+") + str(abs(offset)) if offset else "UTC"


def api(server, method, path, body=None, token=None):
    request = urllib.request.Request(server.url(path), method=method, data=json.dumps(body).encode() if body is not None else None)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read() or b"null")


def api_family(server, prefix, guardian_name, child_name):
    """A guardian (signed up through the API, in a zone where it is midday), a household, a child
    and two apps (Khan Kids to learn, Minecraft as the reward)."""
    zone = midday_zone()
    email = f"{prefix}-{uuid.uuid4().hex[:8]}@example.com"
    token = api(server, "POST", "/api/v1/auth/signup", {"email": email, "password": "password123", "displayName": guardian_name, "timeZone": zone})["token"]
    household = api(server, "POST", "/api/v1/households", {"name": f"{guardian_name}'s family"}, token=token)
    username = f"kid{uuid.uuid4().hex[:6]}"
    kid = api(server, "POST", f"/api/v1/households/{household['id']}/children", {"username": username, "password": "kidpass123", "displayName": child_name}, token=token)
    for app_token, body in [("khan", {"name": "Khan Kids", "icon": "📘", "role": "learning"}), ("game", {"name": "Minecraft", "icon": "🎮", "role": "reward"})]:
        api(server, "PUT", f"/api/v1/children/{kid['id']}/apps/{app_token}", body, token=token)
    return zone, email, token, kid, username


def test_guardian_builds_a_quest_and_usage_completes_it_live(browser, server, shot):
    zone = midday_zone()
    sign_up(browser, server, f"parent-{uuid.uuid4().hex[:8]}@example.com", name="Gail Guardian", zone=zone)
    browser.get(server.url("/quests/family"))
    wait_text(browser, ".empty-state", "Set up your family")
    browser.get(server.url("/profile"))
    fill(browser, "household-name", "Quest family")
    click(browser, "form[action='/household'] button")
    username = f"kid{uuid.uuid4().hex[:6]}"
    fill(browser, "child-displayName", "Kim")
    fill(browser, "child-username", username)
    fill(browser, "child-password", "kidpass123")
    click(browser, "form[action='/household/children'] button")
    wait_text(browser, ".list", "Kim")

    # The console lists the child; the child's page holds the app catalog.
    browser.get(server.url("/quests/family"))
    click(browser, ".child-card")
    wait_text(browser, "#apps-title", "Kim's apps")
    for name, token, icon, role, rate in [("Khan Kids", "e2e.khan", "📘", "learning", "2"), ("Minecraft", "e2e.minecraft", "🎮", "reward", "")]:
        fill(browser, "app-name", name)
        fill(browser, "app-token", token)
        browser.find_element(By.ID, "app-icon").clear()
        browser.execute_script("arguments[0].value = arguments[1]", browser.find_element(By.ID, "app-icon"), icon)
        click(browser, f"input[name=role][value={role}]")
        fill(browser, "app-rate", rate)
        click(browser, "form[action$='/apps'] button")
        wait_text(browser, ".list", name)
    shot("family-child-apps")

    # The builder shows the real apps and the fields the goal type needs.
    click(browser, "a[href$='/quests/new']")
    wait_text(browser, "form[data-builder]", "Khan Kids")
    goal = Select(browser.find_element(By.ID, "goalType"))
    assert len(goal.options) == 10
    goal.select_by_value("streak")
    assert browser.find_element(By.ID, "dailyMinimumMinutes").is_displayed()
    assert browser.find_element(By.CSS_SELECTOR, "[data-target-unit]").text == "days"
    goal.select_by_value("dailyMinutes")
    assert not browser.find_element(By.ID, "dailyMinimumMinutes").is_displayed()
    # A bad target first: the error names the field and keeps the values.
    fill(browser, "title", "Learn 20 minutes")
    fill(browser, "target", "5000")
    click(browser, "input[name=learningApps][value='e2e.khan']")
    click(browser, "input[name=rewardApps][value='e2e.minecraft']")
    browser.find_element(By.NAME, "unlock-e2e.minecraft").clear()
    browser.find_element(By.NAME, "unlock-e2e.minecraft").send_keys("15")
    Select(browser.find_element(By.ID, "bonusPercent")).select_by_value("20")
    click(browser, "form[data-builder] button[type=submit]")
    wait_text(browser, ".field--invalid", "Use a target from 1 to 1,440 minutes")
    assert browser.find_element(By.ID, "title").get_attribute("value") == "Learn 20 minutes"
    assert browser.find_element(By.CSS_SELECTOR, "input[name=rewardApps][value='e2e.minecraft']").is_selected()
    fill(browser, "target", "20")
    shot("family-builder")
    click(browser, "form[data-builder] button[type=submit]")
    wait_text(browser, ".notice", "Quest created")
    wait_text(browser, "#rewards-title + ul", "Minecraft")
    wait_text(browser, "[data-progress]", "0 / 20 minutes")
    shot("family-quest-detail")

    # The child signs in on another device and opens the quest board.
    child = make_driver()
    try:
        log_in(child, server, username, "kidpass123", "Kim")
        child.get(server.url("/quests"))
        wait_text(child, "[data-progress]", "0 / 20 minutes")
        wait_text(child, "#unlocks-title + p", "Finish a quest")
        for driver in (browser, child):
            WebDriverWait(driver, 10).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-live") == "connected")

        # Usage arrives from the child's device through the API.
        session = api(server, "POST", "/api/v1/auth/login", {"login": username, "password": "kidpass123"})
        start = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=22)
        result = api(server, "POST", f"/api/v1/children/{session['member']['id']}/usage", {"reports": [
            {"id": "e2e-1", "appToken": "e2e.khan", "startedAt": start.strftime("%Y-%m-%dT%H:%M:%SZ"), "durationSeconds": 21 * 60, "timeZone": zone},
        ]}, token=session["token"])
        assert result["accepted"] == 1 and len(result["completed"]) == 1

        # Both screens update without a reload.
        wait_text(child, ".quest-card__state", "Completed!")
        wait_text(child, "[data-progress]", "21 / 20 minutes")
        wait_text(child, ".grant", "Minecraft")
        wait_text(child, ".badge-tile:not(.badge-tile--locked)", "First Quest")
        assert child.find_element(By.TAG_NAME, "body").get_attribute("data-live-updates")
        child.save_screenshot(str(SHOTS / "family-child-board-completed.png"))
        wait_text(browser, ".quest-card__state", "Completed!")
        shot("family-quest-completed-live")

        # The child redeems points for more reward time: 42 earned + 20% bonus (8) = 50.
        wait_text(child, "[data-balance]", "50")
        fill(child, "redeem-minutes", "10")
        click(child, "form[action='/quests/redeem'] button")
        wait_text(child, ".notice", "Unlocked!")
        wait_text(child, "[data-balance]", "0")
        # With no points, Redeem is not offered: the card says what is missing.
        wait_text(child, "[data-redeem-missing]", "25 more to go")
        assert absent(child, By.ID, "redeem-minutes")
    finally:
        child.quit()



def test_the_device_page_reports_use_and_shows_the_shield_policy(browser, server, shot):
    zone, email, token, kid, username = api_family(server, "shield", "Gus", "Kai")
    api(server, "POST", f"/api/v1/children/{kid['id']}/quests", {
        "title": "Learn 20 minutes", "goalType": "dailyMinutes", "target": 20, "bonusPercent": 10,
        "rewardApps": [{"appToken": "game", "minutes": 15}], "weekdays": [1, 2, 3, 4, 5, 6, 7]}, token=token)

    # The child, on the device page, reports 21 minutes of learning: the reward app unlocks.
    log_in(browser, server, username, "kidpass123", "Kai")
    browser.get(server.url("/quests"))
    click(browser, f"a[href='/quests/children/{kid['id']}/device']")
    wait_text(browser, "#policy-title", "Reward apps now")
    wait_text(browser, ".shield", "Blocked: complete a quest")
    Select(browser.find_element(By.ID, "use-app")).select_by_value("khan")
    fill(browser, "use-minutes", "21")
    click(browser, "form[action$='/device/usage'] button")
    wait_text(browser, ".notice", "Use reported.")
    wait_text(browser, ".shield--open", "Unlocked until")
    assert "15 min left" in browser.find_element(By.CSS_SELECTOR, ".shield--open").text
    shot("family-device-unlocked")
    # Back returns to the board, which shows the unlock too.
    browser.back()
    browser.get(server.url("/quests"))
    wait_text(browser, ".grant", "Minecraft")

    # The guardian sets downtime covering now: the device shows the app blocked.
    from zoneinfo import ZoneInfo
    hour = datetime.datetime.now(ZoneInfo(zone)).hour
    rules = api(server, "PUT", f"/api/v1/children/{kid['id']}/shield-rules",
                {"rewardDays": [1, 2, 3, 4, 5, 6, 7], "downtime": {"start": hour, "end": (hour + 2) % 24}}, token=token)
    assert rules["downtime"]["start"] == hour
    browser.get(server.url(f"/quests/children/{kid['id']}/device"))
    wait_text(browser, ".shield--blocked", "Blocked: downtime")
    shot("family-device-downtime")
    api(server, "PUT", f"/api/v1/children/{kid['id']}/shield-rules", {"rewardDays": [1, 2, 3, 4, 5, 6, 7]}, token=token)

    # The child asks for 20 more minutes; the guardian approves in the web app.
    browser.get(server.url(f"/quests/children/{kid['id']}/device"))
    fill(browser, "ask-minutes", "20")
    fill(browser, "ask-note", "Finishing my build")
    click(browser, "form[action$='/time-requests'] button")
    wait_text(browser, ".notice", "Asked.")
    wait_text(browser, ".request", "Waiting for an answer")
    shot("family-device-asked")
    parent = make_driver()
    try:
        log_in(parent, server, email, "password123", "Gus")
        parent.get(server.url(f"/quests/children/{kid['id']}/device"))
        wait_text(parent, ".request", "Finishing my build")
        parent.save_screenshot(str(SHOTS / "family-device-guardian-request.png"))
        parent.find_element(By.CSS_SELECTOR, ".request form input[name=approve][value='1'] ~ button").click()
        wait_text(parent, ".notice", "Answered.")
        wait_text(parent, ".request", "Approved")
        # The week in charts: 21 minutes learned today, one quest, points earned.
        parent.get(server.url(f"/quests/children/{kid['id']}"))
        parent.find_element(By.CSS_SELECTOR, f"a[href='/quests/children/{kid['id']}/report']").click()
        wait_text(parent, ".report-totals", "21 minutes learned · 1 quest completed")
        assert len(parent.find_elements(By.CSS_SELECTOR, "svg.chart")) == 3
        parent.save_screenshot(str(SHOTS / "family-weekly-report.png"))
    finally:
        parent.quit()
    browser.get(server.url(f"/quests/children/{kid['id']}/device"))
    wait_text(browser, ".request", "Approved")
    wait_text(browser, ".shield--open", "35 min left")  # 15 from the quest, 20 approved


def test_guardian_builds_a_milestone_chain_and_the_child_sees_each_step(browser, server, shot):
    zone, email, token, kid, username = api_family(server, "chain", "Cleo", "Cy")

    # The builder: choosing a milestone chain shows a field per step and hides the target.
    log_in(browser, server, email, "password123", "Cleo")
    browser.get(server.url(f"/quests/children/{kid['id']}/quests/new"))
    goal = Select(browser.find_element(By.ID, "goalType"))
    goal.select_by_value("milestones")
    assert not browser.find_element(By.ID, "target").is_displayed()
    steps = browser.find_elements(By.CSS_SELECTOR, "input[name=steps]")
    assert len(steps) == 7 and steps[0].is_displayed()
    # "Counts" says what its default means for the goal type chosen.
    assert Select(browser.find_element(By.ID, "period")).first_selected_option.text == "Each chain of steps (the goal type's own)"
    # Check boxes keep their size; fieldsets have no browser frame.
    box = browser.find_element(By.CSS_SELECTOR, "input[name=rewardApps]")
    assert box.size["width"] <= 24 and box.size["height"] <= 24
    assert browser.execute_script("return getComputedStyle(document.querySelector('fieldset.field')).borderTopStyle") == "none"
    goal.select_by_value("dailyMinutes")
    assert not steps[0].is_displayed()
    goal.select_by_value("milestones")
    # One step is not a chain: the error names the steps and keeps what was typed.
    fill(browser, "title", "Reading ladder")
    steps[0].send_keys("10")
    click(browser, "input[name=rewardApps][value='game']")
    click(browser, "form[data-builder] button[type=submit]")
    wait_text(browser, ".field--invalid", "Give the chain 2 to 7 steps")
    steps = browser.find_elements(By.CSS_SELECTOR, "input[name=steps]")
    assert steps[0].get_attribute("value") == "10"
    assert Select(browser.find_element(By.ID, "goalType")).first_selected_option.get_attribute("value") == "milestones"
    steps[1].send_keys("20")
    steps[2].send_keys("30")
    shot("family-builder-chain")
    click(browser, "form[data-builder] button[type=submit]")
    wait_text(browser, ".notice", "Quest created")
    wait_text(browser, "[data-progress]", "0 / 3 steps")
    assert [e.get_attribute("data-step") for e in browser.find_elements(By.CSS_SELECTOR, ".milestone")] == ["today", "upcoming", "upcoming"]

    # Editing keeps the steps.
    click(browser, "a[href$='/edit']")
    assert [e.get_attribute("value") for e in browser.find_elements(By.CSS_SELECTOR, "input[name=steps]")][:4] == ["10", "20", "30", ""]

    # 12 minutes of learning today meet the first step; the child's board shows each step.
    session = api(server, "POST", "/api/v1/auth/login", {"login": username, "password": "kidpass123"})
    start = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=13)
    api(server, "POST", f"/api/v1/children/{kid['id']}/usage", {"reports": [
        {"id": "chain-1", "appToken": "khan", "startedAt": start.strftime("%Y-%m-%dT%H:%M:%SZ"), "durationSeconds": 12 * 60, "timeZone": zone},
    ]}, token=session["token"])
    child = make_driver()
    try:
        log_in(child, server, username, "kidpass123", "Cy")
        child.get(server.url("/quests"))
        wait_text(child, "[data-progress]", "1 / 3 steps")
        states = [e.get_attribute("data-step") for e in child.find_elements(By.CSS_SELECTOR, ".milestone")]
        assert states == ["met", "upcoming", "upcoming"], states
        wait_text(child, ".milestone--met", "Done")
        child.save_screenshot(str(SHOTS / "family-child-chain.png"))
    finally:
        child.quit()


def test_household_members_cheer_each_other(browser, server, shot):
    """Cheers at phone size (#39): the guardian sends a preset, the child sees it on their
    cheers page and cheers back; only the guardian has the switch."""
    # 50-character names, one of them a single word: the page stays within the phone's width.
    guardian_name = "Carla " + "Cheerful" * 5 + "Joyfulness"[:4]
    child_name = "Cody" + "x" * 46
    zone, email, token, kid, username = api_family(server, "cheer", guardian_name, child_name)
    log_in(browser, server, email, "password123", guardian_name)
    browser.get(server.url("/quests/family"))
    click(browser, "a[href='/quests/family/cheers']")
    wait_text(browser, "#send-title", "Send a cheer")
    click(browser, "button[name=cheer][value=proud]")
    wait_text(browser, ".notice", "Sent:")
    wait_text(browser, ".cheer-list", "So proud of you!")
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    shot("cheers-guardian")
    browser.get(server.url("/profile"))
    click(browser, "form.logout button")
    log_in(browser, server, username, "kidpass123", child_name)
    browser.get(server.url("/quests"))
    click(browser, "a[href='/quests/family/cheers']")
    wait_text(browser, ".cheer--mine", "So proud of you!")
    click(browser, "button[name=cheer][value=thanks]")
    wait_text(browser, ".cheer-list", "Thank you!")
    assert absent(browser, By.CSS_SELECTOR, "form[action='/quests/family/cheers/settings']")
    shot("cheers-child")
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")


def test_the_family_streak_counts_a_day_everyone_met(browser, server, shot):
    """The family streak at phone size (#39): the guardian joins themselves and the child; a
    read and some learning make the day, and the page redraws live; the child's board shows it."""
    zone, email, token, kid, username = api_family(server, "streak", "Fran Family", "Finn")
    log_in(browser, server, email, "password123", "Fran Family")
    browser.get(server.url("/quests/family"))
    wait_text(browser, ".family-card", "Nobody is in the family streak yet")
    click(browser, ".family-card a[href='/quests/family/streak']")
    wait_text(browser, "#streak-title", "0-day family streak")
    for _ in range(2):
        click(browser, "form[action='/quests/family/streak'] button[value=on]")
        wait_text(browser, ".notice", "Joined")
    assert absent(browser, By.CSS_SELECTOR, "form[action='/quests/family/streak'] button[value=on]")
    wait_text(browser, ".family-members", "Needs a read today")
    wait_text(browser, ".family-members", "Needs learning today")
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-live") == "connected")

    now = datetime.datetime.now(datetime.timezone.utc)
    api(server, "POST", "/api/v1/reading/reads", {"eventId": "fs-read", "articleId": "Octopus", "title": "Octopus", "language": "en", "at": (now - datetime.timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ"), "timeZone": zone}, token=token)
    session = api(server, "POST", "/api/v1/auth/login", {"login": username, "password": "kidpass123"})
    api(server, "POST", f"/api/v1/children/{kid['id']}/usage", {"reports": [
        {"id": "fs-1", "appToken": "khan", "startedAt": (now - datetime.timedelta(minutes=12)).strftime("%Y-%m-%dT%H:%M:%SZ"), "durationSeconds": 600, "timeZone": zone},
    ]}, token=session["token"])
    # The child's learning announces progress: the page redraws without a reload.
    wait_text(browser, "#streak-title", "1-day family streak")
    assert len(browser.find_elements(By.CSS_SELECTOR, ".family-day--met")) == 1
    shot("family-streak-guardian")
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")

    browser.get(server.url("/profile"))
    click(browser, "form.logout button")
    log_in(browser, server, username, "kidpass123", "Finn")
    browser.get(server.url("/quests"))
    wait_text(browser, ".family-card", "1-day family streak")
    shot("family-streak-child")
    click(browser, ".family-card a[href='/quests/family/streak']")
    wait_text(browser, ".family-members", "Done for today")
    # The child may leave the streak for itself, never the guardian.
    assert len(browser.find_elements(By.CSS_SELECTOR, "form[action='/quests/family/streak']")) == 1
    browser.back()
    wait_text(browser, ".family-card", "1-day family streak")


def test_a_coop_quest_is_set_on_the_page_and_completes_live(browser, server, shot):
    """Co-op quests at phone size (#39): the guardian sets one target for two children on the
    page (a refusal keeps what was typed), both children's learning completes it while the page
    is open, everyone's share and bonus show, and the child's board shows the card."""
    long_name = "Wilhelmina" + "w" * 40
    zone, email, token, kid, username = api_family(server, "coop", "Cora Coop", long_name)
    second_name = f"kid{uuid.uuid4().hex[:6]}"
    second = api(server, "POST", f"/api/v1/households/{kid['householdId']}/children",
                 {"username": second_name, "password": "kidpass123", "displayName": "Milo"}, token=token)
    for app_token, body in [("khan", {"name": "Khan Kids", "icon": "📘", "role": "learning"}), ("game", {"name": "Minecraft", "icon": "🎮", "role": "reward"})]:
        api(server, "PUT", f"/api/v1/children/{second['id']}/apps/{app_token}", body, token=token)

    log_in(browser, server, email, "password123", "Cora Coop")
    browser.get(server.url("/quests/family"))
    click(browser, ".family-card a[href='/quests/family/coop']")
    wait_text(browser, "#coop-new-title", "Set a co-op quest")
    fill(browser, "coop-title-input", "Twenty minutes together")
    fill(browser, "coop-target", "20")
    # One child only: refused, and what was typed stays.
    click(browser, f"input[name=child][value='{kid['id']}']")
    click(browser, "form[action='/quests/family/coop'] button[type=submit]")
    wait_text(browser, ".form__error", "Choose 2 to 8 different children.")
    assert browser.find_element(By.ID, "coop-title-input").get_attribute("value") == "Twenty minutes together"
    assert browser.find_element(By.CSS_SELECTOR, f"input[name=child][value='{kid['id']}']").is_selected()
    click(browser, f"input[name=child][value='{second['id']}']")
    click(browser, "input[name=app][value=game]")
    click(browser, "form[action='/quests/family/coop'] button[type=submit]")
    wait_text(browser, ".notice", "Set: Twenty minutes together")
    wait_text(browser, ".coop-list", "0 of 20 minutes together")
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    WebDriverWait(browser, 10).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-live") == "connected")

    now = datetime.datetime.now(datetime.timezone.utc)
    for child, login, report in [(kid, username, "co-1"), (second, second_name, "co-2")]:
        session = api(server, "POST", "/api/v1/auth/login", {"login": login, "password": "kidpass123"})
        api(server, "POST", f"/api/v1/children/{child['id']}/usage", {"reports": [
            {"id": report, "appToken": "khan", "startedAt": (now - datetime.timedelta(minutes=12)).strftime("%Y-%m-%dT%H:%M:%SZ"), "durationSeconds": 600, "timeZone": zone},
        ]}, token=session["token"])
    # The second child's learning completes it: the page redraws without a reload.
    wait_text(browser, ".coop-list", "Done together!")
    wait_text(browser, ".coop-list", "20 of 20 minutes together")
    assert len(browser.find_elements(By.CSS_SELECTOR, ".coop-share__bonus")) == 2
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    shot("coop-guardian")

    browser.get(server.url("/profile"))
    click(browser, "form.logout button")
    log_in(browser, server, username, "kidpass123", long_name)
    browser.get(server.url("/quests"))
    wait_text(browser, ".family-card", "Twenty minutes together")
    wait_text(browser, ".family-card", "Done together!")
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    shot("coop-child-board")
    click(browser, ".family-card a[href='/quests/family/coop']")
    wait_text(browser, ".coop-list", "Milo")
    assert absent(browser, By.CSS_SELECTOR, "form[action='/quests/family/coop']")
    assert absent(browser, By.CSS_SELECTOR, ".coop form")
    shot("coop-child")
    browser.back()
    wait_text(browser, ".family-card", "Twenty minutes together")


def test_the_weekly_league_with_a_friend_group(browser, server, shot):
    """Leagues at phone size (#39): a guardian joins, starts a friend group and sees its code;
    another household's guardian joins with the code (typed loosely); both households' players
    share the friends board; the child plays with them and never sees a code."""
    long_name = "Leopold" + "l" * 43
    zone, email, token, kid, username = api_family(server, "league", "Lena League", long_name)
    other_email = f"other-{uuid.uuid4().hex[:8]}@example.com"
    other = api(server, "POST", "/api/v1/auth/signup", {"email": other_email, "password": "password123", "displayName": "Otto Other", "timeZone": zone})["token"]
    api(server, "POST", "/api/v1/households", {"name": "Other home"}, token=other)

    log_in(browser, server, email, "password123", "Lena League")
    browser.get(server.url("/reading"))
    click(browser, "a[href='/league']")
    wait_text(browser, "#league-title", "Weekly league")
    click(browser, "form[action='/league'] button[value=on]")
    wait_text(browser, ".notice", "You are in")
    fill(browser, "group-name", "Cousins")
    click(browser, "form[action='/league/friend-groups'] button[type=submit]")
    notice = wait_text(browser, ".notice", "give the code")
    code = notice.text.split("the code ")[1].split(" ")[0]
    # A wrong code is refused under its field.
    fill(browser, "group-code", "nope")
    click(browser, "form[action='/league/friend-groups/join'] button[type=submit]")
    wait_text(browser, ".form__error", "A code is eight letters and digits")
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")

    # The other guardian joins with the code in lower case; both join the league, and the child.
    api(server, "POST", "/api/v1/me/league/friend-groups/join", {"code": code.lower()}, token=other)
    api(server, "PUT", "/api/v1/me/league", {"joined": True}, token=other)
    api(server, "PUT", "/api/v1/me/league", {"joined": True, "memberId": kid["id"]}, token=token)
    browser.get(server.url("/league"))
    wait_text(browser, ".league-board", "Cousins")
    wait_text(browser, ".league-board", "Otto Other")
    wait_text(browser, ".league-groups", code)
    shot("league-guardian")

    browser.get(server.url("/profile"))
    click(browser, "form.logout button")
    log_in(browser, server, username, "kidpass123", long_name)
    browser.get(server.url("/league"))
    wait_text(browser, ".league-board", "Your household")
    wait_text(browser, ".league-board", "Otto Other")
    assert code not in browser.page_source
    assert absent(browser, By.CSS_SELECTOR, "form[action='/league/friend-groups']")
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    shot("league-child")
    browser.back()
