"""Headless Chromium for the walk-through page's tests (Selenium + Debian's `chromium` and
`chromium-driver`); without them the calling test is skipped, with a reason naming chromium."""

import shutil
import tempfile

import pytest

#: Chromium's profiles, removed when the test process exits
_PROFILES: list[tempfile.TemporaryDirectory] = []


def chromium():
    """A headless Chromium WebDriver; the caller quits it."""
    webdriver = pytest.importorskip("selenium.webdriver")
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not binary or not driver_path:
        pytest.skip("chromium and chromedriver are not installed")
    from selenium.webdriver.chrome.service import Service

    _PROFILES.append(tempfile.TemporaryDirectory(prefix="srcdiff-chromium-", ignore_cleanup_errors=True))
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1400,1000", f"--user-data-dir={_PROFILES[-1].name}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver_path), options=options)


def severe_errors(driver) -> list:
    """The page's console errors."""
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
