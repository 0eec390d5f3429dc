"""The ``ginrummy serve`` page in headless Chromium: screenshots for the docs, and the driver the
browser tests use.

``python -m train.play.screenshots docs/images`` serves a seeded game against ``greedy``, plays
the person's side by clicking the hint's most likely move (what ``ppo`` would do), and saves
:data:`SHOTS`: the table at desktop width and at 390 px (a phone), a hand's end and the score
sheet at the game's end.  It needs selenium (the ``web`` extra) and Debian's ``chromium`` and
``chromium-driver``.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Optional, Sequence

from train.play.serve import make_server

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars", "--window-size=1200,900")
DESKTOP = (1200, 900)
PHONE = (390, 844)
"""An iPhone 12-15's viewport in CSS pixels."""
SHOTS = {"table": "web_table.png", "phone": "web_phone.png", "hand_end": "web_hand_end.png",
         "game_end": "web_game_end.png"}
"""The files :func:`main` writes, by what they show."""
MAX_MOVES = 2000
"""More of the person's moves than a game takes: a page that stops answering fails."""


def chromium(profile: Path) -> Any:
    """Headless Chromium through chromedriver with its profile in ``profile``; a RuntimeError
    where either is not installed."""
    browser, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (browser and driver):
        raise RuntimeError("chromium and chromedriver are not installed (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in CHROMIUM_FLAGS + (f"--user-data-dir={profile}",):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(driver), options=options)


def set_viewport(driver: Any, width: int, height: int, scale: float = 1.0) -> None:
    """Make the page's viewport ``width`` x ``height`` CSS pixels (a phone's below 600 wide)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": width < 600})


class Page:
    """The page in the browser: clicks that wait for the server's answers to be shown (the
    page counts them in its body's ``data-answers``, and the positions its hint was asked for
    in ``data-hints``)."""

    def __init__(self, driver: Any, url: str, answers: int = 2) -> None:
        """Open ``url`` and wait for its first ``answers`` (the setup and the new game, and a
        replay file's first hand)."""
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver, self.by, self.wait = driver, By, WebDriverWait(driver, 60)
        self.answers = 0
        driver.get(url)
        self.settle(answers)

    def find(self, css: str) -> Any:
        return self.driver.find_element(self.by.CSS_SELECTOR, css)

    def all(self, css: str) -> list:
        return self.driver.find_elements(self.by.CSS_SELECTOR, css)

    def counted(self, name: str) -> int:
        """The page's count of ``name`` (``answers`` or ``hints``)."""
        return int(self.find("body").get_attribute(f"data-{name}") or 0)

    def settle(self, answers: int = 1) -> None:
        """Wait until ``answers`` more answers of the server are on the page."""
        self.answers += answers
        self.wait.until(lambda _: self.counted("answers") >= self.answers)

    def click(self, css: str, answers: int = 1) -> None:
        self.find(css).click()
        self.settle(answers)

    def click_for_hint(self, css: str, answers: int = 1) -> None:
        """Click ``css`` and wait for its ``answers`` and then for the hint of the position it leads to."""
        hints = self.counted("hints")
        self.click(css, answers)
        self.wait.until(lambda _: self.counted("hints") > hints)

    def overflow(self) -> int:
        """How many CSS pixels the page is wider than its viewport (0: no sideways scrolling)."""
        return int(self.driver.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth"))

    def screenshot(self, path: Path) -> None:
        """Save the whole page (not only the viewport) as a PNG."""
        width, height = self.driver.execute_script("return [window.innerWidth, window.innerHeight]")
        full = self.driver.execute_script("return document.documentElement.scrollHeight")
        scale = self.driver.execute_script("return window.devicePixelRatio")
        set_viewport(self.driver, width, full, scale)
        self.driver.save_screenshot(str(path))
        set_viewport(self.driver, width, height, scale)


def follow_hint(page: Page) -> str:
    """Play the hint's most likely move by clicking it (the hint must be on); its command."""
    button = page.find("#hint .hint-move")
    command = button.get_attribute("data-command")
    page.click_for_hint("#hint .hint-move")
    return command


def hint_on(page: Page) -> None:
    """Switch the hint on and wait for it."""
    page.click_for_hint("#hint-on", answers=0)


def _playing(page: Page) -> bool:
    return page.find("#board").is_displayed()


def _shoot(page: Page, out: Path, shot: str) -> None:
    page.screenshot(out / SHOTS[shot])
    print(f"wrote {out / SHOTS[shot]}")


def table_shot(page: Page, out: Path, shot: str, moves: int) -> None:
    """Follow the hint for at least ``moves`` moves, until the person has just drawn from the
    stock and the opponent holds a card it took from the pile; save the table as ``shot``."""
    for done in range(MAX_MOVES):
        if (done >= moves and page.all("#hand .card.drawn") and not page.find("#note").text
                and page.all("#opponent-hand .card.known")):
            _shoot(page, out, shot)
            return
        if _playing(page):
            follow_hint(page)
        else:
            page.click_for_hint("#next")
    raise RuntimeError("the page never showed a card drawn from the stock beside a known card of the opponent")


def game_shots(page: Page, out: Path) -> None:
    """Follow the hint to the game's end: the first hand's end with layoffs (else the first hand's
    end) and the game's end with its score sheet."""
    laid_shown: Optional[bool] = None
    for _ in range(MAX_MOVES):
        if _playing(page):
            follow_hint(page)
            continue
        laid = bool(page.all("#summary .card.laid"))
        if laid_shown is None or laid and not laid_shown:
            _shoot(page, out, "hand_end")
            laid_shown = laid
        if not page.find("#next").is_displayed():
            _shoot(page, out, "game_end")
            return
        page.click_for_hint("#next")
    raise RuntimeError(f"the game did not end within {MAX_MOVES} moves")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Write the screenshots into the folder given."""
    parser = argparse.ArgumentParser(prog="python -m train.play.screenshots", description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder for the PNG files")
    parser.add_argument("--opponent", default="greedy", help="the agent the person plays (default greedy)")
    parser.add_argument("--seed", type=int, default=7, help="the first game's seed (default 7)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    server = make_server(port=0, opponent=args.opponent, episode="game", seed=args.seed)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    with tempfile.TemporaryDirectory() as profile:
        driver = chromium(Path(profile))
        try:
            set_viewport(driver, *DESKTOP)
            page = Page(driver, server.url)
            hint_on(page)
            table_shot(page, args.out, "table", moves=6)
            game_shots(page, args.out)
            set_viewport(driver, *PHONE, scale=2)
            page = Page(driver, server.url)
            hint_on(page)
            table_shot(page, args.out, "phone", moves=4)
        finally:
            driver.quit()
            server.shutdown()
            server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
