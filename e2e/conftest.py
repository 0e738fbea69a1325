"""Browser tests: the real `questline serve` binary on a fresh SQLite file, driven by
headless Chromium through Selenium and the system's chromedriver.

Screenshots of each screen go to e2e/screenshots/; a failing test also saves one there
(named after the test) with the page's HTML beside it.
"""
import importlib.util
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

import wikipedia_standin

ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path(__file__).resolve().parent / "screenshots"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, base_url, process, log_path, demo_accounts):
        self.base_url = base_url
        self.process = process
        self.log_path = log_path
        self.demo_accounts = demo_accounts

    def url(self, path="/"):
        return self.base_url + path


@pytest.fixture(scope="session")
def server():
    binary = Path(os.environ.get("QUESTLINE_BIN", ROOT / ".build" / "debug" / "questline"))
    if not binary.exists():
        pytest.fail(f"questline binary not found at {binary}: build it first (swift build)")
    workdir = Path(tempfile.mkdtemp(prefix="questline-e2e-"))
    port = _free_port()
    log_path = workdir / "server.log"
    log = open(log_path, "w")
    env = dict(os.environ)
    env.pop("DATABASE_URL", None)
    database = str(workdir / "e2e.sqlite")
    # The game's feed for today and tomorrow (UTC), imported: the tests run without network.
    feed = ROOT / "Tests" / "QuestlineCoreTests" / "Fixtures" / "onthisday-10-30-trimmed.json"
    for offset in (0, 1):
        day = time.gmtime(time.time() + offset * 86400)
        subprocess.run([str(binary), "game-import", "--database", database, "--feed", str(feed),
                        "--date", f"{day.tm_mon:02d}-{day.tm_mday:02d}"], check=True, env=env, cwd=workdir)
    # Wikipedia's search, random and summaries from a local stand-in with recorded answers.
    wikipedia, wiki_url = wikipedia_standin.start()
    process = subprocess.Popen(
        [str(binary), "serve", "--database", database, "--port", str(port), "--hostname", "127.0.0.1",
         "--feed-url", "none", "--wiki-url", wiki_url],
        stdout=log, stderr=subprocess.STDOUT, cwd=workdir, env=env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while True:
        try:
            with urllib.request.urlopen(base + "/health", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            pass
        if process.poll() is not None or time.time() > deadline:
            log.flush()
            pytest.fail("server did not start:\n" + log_path.read_text())
        time.sleep(0.3)
    log.flush()
    demo = dict(re.findall(r"login: (\S+)\s+password: (\S+)", log_path.read_text()))
    yield Server(base, process, log_path, demo)
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
    log.close()
    wikipedia.shutdown()
    shutil.rmtree(workdir, ignore_errors=True)


def _axe_source():
    """axe-core 4.12 as PyPI's axe-playwright-python wheel carries it (scripts/test.sh installs
    the wheel without its dependencies: selenium injects the script itself)."""
    spec = importlib.util.find_spec("axe_playwright_python")
    if spec is None or spec.origin is None:
        pytest.fail("axe-core is missing: python3 -m pip install --no-deps axe-playwright-python")
    return (Path(spec.origin).parent / "axe.min.js").read_text()


AXE = None
# Screens already checked this session (an address's shape, or a screenshot's name).
AXE_SEEN = set()


def _screen_key(url):
    """/quests/3f2c…/edit?x=1 and /quests/9a1b…/edit?x=2 are one screen."""
    path, _, query = url.partition("?")
    path = re.sub(r"^https?://[^/]+", "", path)
    path = re.sub(r"/[0-9a-f]{8}-[0-9a-f-]{27,}", "/{id}", path)
    path = re.sub(r"/\d+(?=/|$)", "/{n}", path)
    keys = sorted({pair.split("=")[0] for pair in query.split("&") if pair})
    return path + ("?" + "&".join(keys) if keys else "")


def check_axe(driver, where, key=None):
    """Runs axe-core on the page as it is and fails on any violation (every rule axe runs by
    default: WCAG 2 A and AA, and the best practices). Each screen is checked once a session."""
    global AXE
    # A screen is checked once at each width it is shown at.
    key = f"{driver.execute_script('return innerWidth')}:" + (key or _screen_key(driver.current_url))
    if key in AXE_SEEN:
        return
    if driver.execute_script("return document.contentType") != "text/html":
        return
    AXE_SEEN.add(key)
    if AXE is None:
        AXE = _axe_source()
    if not driver.execute_script("return !!window.axe"):
        driver.execute_script(AXE)
    found = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        // Colours are measured once animations have ended (a card fading in is not yet its colour).
        Promise.all(document.getAnimations().map(a => a.finished.catch(() => null)))
          .then(() => axe.run(document, {resultTypes: ["violations"]}))
          .then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                 nodes: v.nodes.slice(0, 4).map(n => n.target.join(" ") + " :: " + (n.failureSummary || "").split("\\n").slice(1, 3).join(" "))}))))
          .catch(e => done([{id: "axe-error", impact: "error", help: String(e), nodes: []}]));""")
    if found:
        lines = [f"axe-core {len(found)} violation(s) on {where} ({driver.current_url}):"]
        for violation in found:
            lines.append(f"  [{violation['impact']}] {violation['id']}: {violation['help']}")
            lines += [f"      {node}" for node in violation["nodes"]]
        collect = os.environ.get("QUESTLINE_AXE_COLLECT")
        if collect:  # a survey of every screen at once (the suite itself never sets it)
            with open(collect, "a") as report:
                report.write("\n".join(lines) + "\n")
            return
        raise AssertionError("\n".join(lines))


def make_driver(width=390, height=844, axe=True):
    """A headless Chromium the size of a phone; every page it opens is checked with axe-core
    (unless `axe` is False: the pseudo-locales' `lang` is no language axe knows)."""
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={width},{height}"):
        options.add_argument(arg)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium:
        options.binary_location = chromium
    driver_path = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_window_size(width, height)
    driver.implicitly_wait(IMPLICIT_WAIT)
    driver.set_script_timeout(60)
    opened = driver.get
    if not axe:
        return driver

    def get(url):
        opened(url)
        check_axe(driver, url)
    driver.get = get
    return driver


IMPLICIT_WAIT = 3


def found_now(driver, by, selector, within=None):
    """What matches `selector` on the page as it is now (inside the element `within` when
    given), without waiting: a search that finds nothing would otherwise sit out the whole
    implicit wait (3 s) before answering. For a page already loaded."""
    driver.implicitly_wait(0)
    try:
        return (within or driver).find_elements(by, selector)
    finally:
        driver.implicitly_wait(IMPLICIT_WAIT)


def absent(driver, by, selector, within=None):
    """True when nothing matches `selector` on the page as it is now (see `found_now`)."""
    return not found_now(driver, by, selector, within)


@pytest.fixture
def browser():
    driver = make_driver()
    yield driver
    driver.quit()


@pytest.fixture
def shot(browser):
    """shot("name") saves a screenshot of the current screen to e2e/screenshots/name.png."""
    SHOTS.mkdir(exist_ok=True)

    def take(name):
        browser.save_screenshot(str(SHOTS / f"{name}.png"))
        check_axe(browser, f"the screen {name}", key=f"shot:{name}")
    return take


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed and "browser" in item.funcargs:
        driver = item.funcargs["browser"]
        SHOTS.mkdir(exist_ok=True)
        name = "FAILED-" + re.sub(r"[^A-Za-z0-9_.-]", "_", item.nodeid)
        try:
            driver.save_screenshot(str(SHOTS / f"{name}.png"))
            (SHOTS / f"{name}.html").write_text(driver.page_source)
        except Exception as error:  # the browser may be gone
            print(f"could not save failure screenshot: {error}")
