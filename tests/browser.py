"""A real headless Chromium for the web UI tests: Debian's ``chromium`` driven by Selenium through
Debian's ``chromedriver`` (the same version), both at fixed paths, so nothing ever downloads a
browser or a driver. ``scripts/test`` installs them (apt) when missing.

Without them the browser tests are skipped, except under CI (``CI`` set), where they fail.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest

from ogmemory.interfaces.rest.server import BackgroundServer

#: Where the screenshots the README shows are written.
SHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")

T = TypeVar("T")

# This machine's network is closed and a test must not depend on one: no QUIC, no background
# fetches (component updates, sync, safe browsing lists), a fresh profile every time.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--lang=en-US",
    "--force-device-scale-factor=1",
]


def require_browser() -> None:
    """Skip (or, under CI, fail) when Chromium, its driver or Selenium is missing."""
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium")
    if missing:
        message = (
            f"browser tests need {', '.join(missing)} (apt-get install chromium "
            "chromium-driver; pip install -e '.[test]')"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def require_cjk_font() -> None:
    """Skip (or, under CI, fail) when no installed font covers Chinese: the page uses system
    fonts only, so Chinese can render only where the system has such a font."""
    import subprocess

    try:
        found = subprocess.run(
            ["fc-list", ":lang=zh"], capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        found = ""
    if not found:
        message = "no CJK font installed (apt-get install fonts-wqy-microhei)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


@contextmanager
def chromium(width: int = 1400, height: int = 900) -> Iterator[Any]:
    """A headless Chromium with a fresh profile; quits and removes the profile afterwards."""
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager: never fetch anything
    profile = tempfile.mkdtemp(prefix="ogmem-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in [*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def wait(what: Callable[[], T], timeout: float = 30.0, message: str = "") -> T:
    """Poll ``what`` until it returns something truthy (exceptions count as not yet)."""
    deadline = time.monotonic() + timeout
    last: BaseException | None = None
    while time.monotonic() < deadline:
        try:
            value = what()
        except Exception as exc:
            last = exc
        else:
            if value:
                return value
        time.sleep(0.05)
    raise AssertionError(
        f"timed out waiting for {message or what}" + (f" (last error: {last!r})" if last else "")
    )


def wait_ready(driver: Any, view: str | None = None) -> None:
    """Wait until the current view finished rendering (``main#view[data-ready=true]``)."""

    def ready() -> bool:
        state = driver.execute_script(
            "const v = document.getElementById('view');"
            "return v ? [v.dataset.view, v.dataset.ready] : null;"
        )
        return bool(state) and state[1] == "true" and (view is None or state[0] == view)

    wait(ready, message=f"view {view or ''} to be ready")


def console_errors(driver: Any) -> list[str]:
    """Severe entries of the browser console since the last call (JS errors, CSP violations,
    failed loads)."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def distinct_colors(png: Path) -> tuple[int, float]:
    """How many colours a screenshot has, and the share of its most common one."""
    from PIL import Image

    with Image.open(png) as img:
        rgb = img.convert("RGB")
        colors = rgb.getcolors(maxcolors=1 << 24) or []
        total = rgb.width * rgb.height
    top = max((count for count, _ in colors), default=total)
    return len(colors), top / total


def assert_not_blank(png: Path) -> None:
    """A page that rendered content: many colours (text is anti-aliased), no single colour
    covering nearly everything."""
    count, share = distinct_colors(png)
    assert count >= 200, f"{png.name}: only {count} colours; the page looks blank"
    assert share < 0.95, f"{png.name}: one colour covers {share:.0%} of it"


# ====================================================================== the page


def sign_in(driver: Any, key: str) -> None:
    field = wait(lambda: visible(driver, "#key-input"), message="the key dialog")
    field.clear()
    field.send_keys(key)
    driver.find_element("css selector", "#key-form button[type=submit]").click()


def visible(driver: Any, selector: str) -> Any:
    found = [e for e in driver.find_elements("css selector", selector) if e.is_displayed()]
    return found[0] if found else None


def go(driver: Any, server: BackgroundServer, where: str) -> None:
    """Navigate inside the page, as its links do (the key stays in the tab), and wait for the
    view to be rendered anew."""
    view = where.split("/")[0].split("?")[0]
    if not driver.current_url.startswith(server.url + "/#"):
        driver.get(f"{server.url}/#/{where}")
        wait_ready(driver, view)
        return
    driver.execute_script(
        """
        document.getElementById('view').dataset.ready = 'stale';
        const hash = '#/' + arguments[0];
        if (location.hash === hash) window.dispatchEvent(new HashChangeEvent('hashchange'));
        else location.hash = hash;""",
        where,
    )
    wait_ready(driver, view)


def text(driver: Any) -> str:
    return str(driver.execute_script("return document.body.innerText"))


def contains(driver: Any, fragment: str) -> bool:
    return fragment in text(driver)


def css(driver: Any, selector: str) -> list[Any]:
    return list(driver.find_elements("css selector", selector))


def click(driver: Any, selector: str) -> None:
    wait(lambda: visible(driver, selector), message=selector).click()


def confirm(driver: Any, ok: bool = True) -> None:
    wait(lambda: visible(driver, "#confirm-dialog"), message="the confirmation dialog")
    click(driver, "#confirm-ok" if ok else "#confirm-dialog button[value=cancel]")


def shot(driver: Any, name: str, *, notice: bool = False) -> Path:
    """Screenshot the page into docs/screenshots (without a passing notice unless asked)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    driver.execute_script(
        "window.scrollTo(0, 0);"
        "const n = document.getElementById('notice');"
        "if (n && !arguments[0]) n.hidden = true;",
        notice,
    )
    driver.save_screenshot(str(path))
    assert_not_blank(path)
    return path


def same_origin(driver: Any, server: BackgroundServer) -> None:
    urls = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert urls, "no resource was loaded"
    foreign = [u for u in urls if not u.startswith(server.url + "/")]
    assert not foreign, f"loaded from elsewhere: {foreign}"
