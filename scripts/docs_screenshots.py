"""The built docs site in a real browser: screenshots, console errors and search.

Usage: .venv/bin/python scripts/docs_screenshots.py [--out DIR] [--site DIR]

Builds the site (``mkdocs build --strict``) unless ``--site`` names a built one, serves it on
127.0.0.1, opens the home page, one guide, one API page and the performance page (its plots)
in headless Chromium (Debian's ``chromium`` and ``chromium-driver`` packages), saves a
screenshot of each in ``--out`` (default ``.cache/docs-screenshots``), and fails (exit status 1)
on any console error, a page without its content, an image that does not load, or a search
for "install" that finds nothing.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
#: Page path in the site, screenshot name, a CSS selector the page must show.
PAGES = (
    ("", "home", "article h1"),
    ("guide/pipeline/", "guide-pipeline", "article h1"),
    ("reference/zarr-codecs/", "api-zarr-codecs", "article .doc-heading"),
    ("performance/", "performance", "article img"),
)


def build(site: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(site)],
        cwd=ROOT,
        check=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def browser() -> webdriver.Chrome:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chromium or not driver:
        raise SystemExit("needs Chromium and its driver: apt-get install chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--window-size=1280,900"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(driver))


def console_errors(driver: webdriver.Chrome, where: str, base: str) -> list[str]:
    """The page's console errors. A request to another host that fails for want of a network
    (the repository link's GitHub API call, on a machine offline) is printed, not counted."""
    errors = []
    for entry in driver.get_log("browser"):  # type: ignore[no-untyped-call]
        if entry["level"] != "SEVERE":
            continue
        message = entry["message"]
        if not message.startswith(base) and "net::ERR_NAME_NOT_RESOLVED" in message:
            print(f"note: {where}: offline: {message}")
            continue
        errors.append(f"{where}: console error: {message}")
    return errors


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / ".cache" / "docs-screenshots")
    parser.add_argument("--site", type=Path, help="a built site (default: build one)")
    arguments = parser.parse_args(argv)
    site = arguments.site or ROOT / ".cache" / "site"
    if arguments.site is None:
        build(site)
    arguments.out.mkdir(parents=True, exist_ok=True)
    server, base = serve(site)
    driver = browser()
    problems: list[str] = []
    try:
        for path, name, selector in PAGES:
            driver.get(base + path)
            wait = WebDriverWait(driver, 15)
            wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, selector)))
            time.sleep(0.5)  # fonts and the theme's scripts settle
            shot = arguments.out / f"{name}.png"
            driver.save_screenshot(str(shot))
            title = driver.title
            print(f"{base + path}: {title!r} -> {shot.relative_to(ROOT)}")
            problems += console_errors(driver, path or "/", base)
            broken = driver.execute_script(
                "return [...document.images].filter(i => !i.complete || !i.naturalWidth)"
                ".map(i => i.src)"
            )
            problems += [f"{path or '/'}: an image that does not load: {src}" for src in broken]
        driver.get(base)
        wait = WebDriverWait(driver, 15)
        search = wait.until(
            expected_conditions.element_to_be_clickable(
                (By.CSS_SELECTOR, "label.md-search__icon, .md-search__input")
            )
        )
        search.click()
        field = driver.find_element(By.CSS_SELECTOR, "input.md-search__input")
        field.send_keys("install")
        try:
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".md-search-result__item"))
            found = driver.find_elements(By.CSS_SELECTOR, ".md-search-result__item")
            print(f"search for 'install': {len(found)} results")
            driver.save_screenshot(str(arguments.out / "search.png"))
        except Exception:
            problems.append("search for 'install' showed no results")
        field.send_keys(Keys.ESCAPE)
        problems += console_errors(driver, "search", base)
    finally:
        driver.quit()
        server.shutdown()
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    print("screenshots in", arguments.out)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
