"""A real browser for the web pages' tests: Debian's Chromium, headless, through Selenium.

The browser and its driver are the distribution's (``apt-get install chromium
chromium-driver``; ``.ci/chromium`` does it): ``WARHOST_CHROMIUM`` and
``WARHOST_CHROMEDRIVER`` name them, else ``/usr/bin/chromium`` and
``/usr/bin/chromedriver``, else whatever ``chromium`` and ``chromedriver`` are on the PATH.
The driver is always given by path, so Selenium Manager never runs and nothing is ever
downloaded: these tests touch no network but 127.0.0.1. Without a browser,
:func:`browser_problem` says why, and the ``driver`` fixture (tests/conftest.py) skips
the tests and the run's summary says so.

Screenshots go to ``tests/artifacts/web/`` (kept out of git) for a person to look at.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

CHROMIUM_ENV = "WARHOST_CHROMIUM"
CHROMEDRIVER_ENV = "WARHOST_CHROMEDRIVER"
#: Where screenshots are saved for people to look at (ignored by git).
ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "web"
#: The phone the pages are laid out for first (an iPhone 12-15's viewport, CSS pixels).
PHONE = {"width": 390, "height": 844, "pixelRatio": 3}
PHONE_AGENT = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like "
               "Gecko) Chrome/150.0.0.0 Mobile Safari/537.36")
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--disable-background-networking", "--disable-extensions", "--no-first-run",
         "--hide-scrollbars", "--disable-default-apps", "--disable-sync",
         "--disable-component-update", "--no-default-browser-check")
#: Browser features the tests turn off: chatter with Google's services, and (unless asked
#: for) the back/forward cache, so a page left is a page closed.
OFF = ("Translate", "OptimizationHints", "MediaRouter")


def _find(env: str, default: str, name: str) -> tuple[str | None, str | None]:
    """(the program's path, None) or (None, why there is none)."""
    given = os.environ.get(env)
    if given:
        if os.path.isfile(given) and os.access(given, os.X_OK):
            return given, None
        return None, f"{env}={given} is not a program"
    if os.path.isfile(default) and os.access(default, os.X_OK):
        return default, None
    found = shutil.which(name)
    if found:
        return found, None
    return None, f"no {name} at {default} or on the PATH (nor {env})"


def chromium_path() -> str | None:
    return _find(CHROMIUM_ENV, "/usr/bin/chromium", "chromium")[0]


def chromedriver_path() -> str | None:
    return _find(CHROMEDRIVER_ENV, "/usr/bin/chromedriver", "chromedriver")[0]


def browser_problem() -> str | None:
    """Why the browser tests cannot run here (None: they can)."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    for env, default, name in ((CHROMIUM_ENV, "/usr/bin/chromium", "chromium"),
                               (CHROMEDRIVER_ENV, "/usr/bin/chromedriver", "chromedriver")):
        problem = _find(env, default, name)[1]
        if problem is not None:
            return problem
    return None


def new_driver(*, phone: bool = True, width: int = 1280, height: int = 900,
               back_forward_cache: bool = False) -> WebDriver:
    """A headless Chromium: on a 390x844 phone (touch, 3x pixels) unless ``phone`` is
    False, then a ``width`` x ``height`` window. The browser's console is kept for
    ``driver.get_log("browser")``. Without ``back_forward_cache`` a page navigated away
    from is closed at once (its event stream too), as the tests' servers expect."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = chromium_path(), chromedriver_path()
    if browser is None or driver is None:
        raise RuntimeError(f"no browser: {browser_problem()}")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in FLAGS:
        options.add_argument(flag)
    off = OFF if back_forward_cache else (*OFF, "BackForwardCache")
    options.add_argument(f"--disable-features={','.join(off)}")
    if phone:
        options.add_argument(f"--window-size={PHONE['width']},{PHONE['height']}")
        options.add_experimental_option("mobileEmulation", {
            "deviceMetrics": dict(PHONE, touch=True, mobile=True), "userAgent": PHONE_AGENT})
    else:
        options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=driver, log_output=subprocess.DEVNULL)
    made = webdriver.Chrome(service=service, options=options)
    made.set_page_load_timeout(20)
    made.set_script_timeout(10)
    return made


def browser_version(driver: WebDriver) -> str:
    caps: dict[str, Any] = driver.capabilities
    return str(caps.get("browserVersion") or caps.get("version") or "?")


def save_screenshot(driver: WebDriver, name: str, *, full_page: bool = True,
                    max_height: int = 4000) -> Path:
    """Save what the browser shows as ``tests/artifacts/web/<name>.png`` and print where:
    the whole page (up to ``max_height`` CSS pixels tall) or just the viewport."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    if full_page:
        import base64

        size = driver.execute_script(
            "return [document.documentElement.scrollWidth, "
            "Math.max(document.documentElement.scrollHeight, document.body.scrollHeight)]")
        width, height = int(size[0]), min(int(size[1]), max_height)
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}})
        path.write_bytes(base64.b64decode(shot["data"]))
    else:
        driver.save_screenshot(str(path))
    print(f"screenshot: {path}")
    return path
