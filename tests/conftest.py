"""Shared fixtures: ``database`` runs a storage test on SQLite and on PostgreSQL; ``store``
opens a Store there on ``clock`` (a FakeClock a file may override); ``race`` registers the
tiny test game (tests/fakegame.py) for the tests of a file that asks for it
(``pytestmark = pytest.mark.usefixtures("race")``); a test parametrized with
``kind="toy"`` gets the sixth game of tests/toy_game registered (engine and renderer)
for its duration, and ``toy`` registers it for any test that asks."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

import engine
from db import Store
from engine import Game
from tests import browser as browsers
from tests import databases, toy_game
from tests.clocks import T0, FakeClock
from tests.fakegame import GAME as RACE

BACKENDS = ("sqlite", "postgresql")
_skipped_postgres: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "sqlite_only: the test checks something only SQLite has (files, "
        "PRAGMAs, another process's lock); it runs on the SQLite backend only")
    config.addinivalue_line(
        "markers", "postgres_only: the test checks something only PostgreSQL has (row "
        "locks, its lock timeout); it runs on the PostgreSQL backend only")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A ``sqlite_only`` test is not collected for PostgreSQL at all, nor a
    ``postgres_only`` one for SQLite."""
    def wanted(item: pytest.Item) -> bool:
        callspec = getattr(item, "callspec", None)
        backend = None if callspec is None else callspec.params.get("database")
        if item.get_closest_marker("sqlite_only") and backend == "postgresql":
            return False
        return not (item.get_closest_marker("postgres_only") and backend == "sqlite")

    items[:] = [item for item in items if wanted(item)]


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Where a fresh, empty Warhost database lives: a SQLite path or a PostgreSQL URL."""
    if request.param == "sqlite":
        yield str(tmp_path / "warhost.db")
        return
    problem = databases.postgres_problem()
    if problem is not None:
        _skipped_postgres.append(request.node.nodeid)
        pytest.skip(f"PostgreSQL half skipped: {problem}")
    url, schema = databases.new_postgres_database()
    try:
        yield url
    finally:
        databases.drop_postgres_database(schema)


@pytest.fixture
def race(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Race test game, as ``engine.GAMES["race"]``, for this test only."""
    monkeypatch.setitem(engine.GAMES, "race", RACE)


@pytest.fixture(autouse=True)
def _sixth_game(request: pytest.FixtureRequest) -> Iterator[None]:
    """The toy game (tests/toy_game), registered for a test parametrized with kind "toy"
    (see ``toy_game.kinds()``): the generic suites run over it like over the real games."""
    callspec = getattr(request.node, "callspec", None)
    if callspec is None or callspec.params.get("kind") != toy_game.KIND:
        yield
        return
    with toy_game.registered():
        yield


@pytest.fixture
def toy() -> Iterator[Game[Any]]:
    """The toy game (tests/toy_game) registered, engine and renderer, for this test only."""
    with toy_game.registered() as game:
        yield game


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0)


@pytest.fixture
async def store(database: str, clock: FakeClock) -> AsyncIterator[Store]:
    """A store on a fresh database (both backends), going by ``clock``."""
    opened = await Store.open(database, clock=clock)
    try:
        yield opened
    finally:
        await opened.close()


# -- the browser tests (tests/browser.py, tests/test_web_browser.py) ----------------------
#: Browser tests skipped for want of Chromium, and the Chromium the others ran in.
_skipped_browser: list[str] = []
_browser_ran: list[str] = []


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium (a 390x844 phone) for a module's tests; use ``driver``."""
    problem = browsers.browser_problem()
    if problem is not None:
        pytest.skip(f"browser tests skipped: {problem}")
    made = browsers.new_driver()
    if not _browser_ran:
        _browser_ran.append(browsers.browser_version(made))
    try:
        yield made
    finally:
        made.quit()


@pytest.fixture
def driver(request: pytest.FixtureRequest) -> Any:
    """The module's browser on a blank page with an empty console; skips the test, and
    says so at the end of the run, when there is no browser here."""
    problem = browsers.browser_problem()
    if problem is not None:
        _skipped_browser.append(request.node.nodeid)
        pytest.skip(f"browser tests skipped: {problem}")
    made = request.getfixturevalue("browser")
    # The phone's screen again: a full-page screenshot widens the viewport for a moment,
    # and Chromium has been seen to keep that width for the next test's page.
    made.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": browsers.PHONE["width"], "height": browsers.PHONE["height"],
        "deviceScaleFactor": browsers.PHONE["pixelRatio"], "mobile": True})
    made.get("about:blank")
    made.get_log("browser")                    # what earlier tests left in the console
    return made
# -- end of the browser tests' block ------------------------------------------------------


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _skipped_postgres:
        terminalreporter.write_line(
            f"NOTE: {len(_skipped_postgres)} storage tests did not run on PostgreSQL "
            f"({databases.postgres_problem()}). Set {databases.POSTGRES_ENV} to a server "
            "(.ci/run starts one) to run them.", yellow=True, bold=True)
    elif databases.postgres_url():
        terminalreporter.write_line(
            f"PostgreSQL half ran against {databases.postgres_url()}.", green=True)
    if _skipped_browser:
        tests = ", ".join(nodeid.rpartition("::")[2] for nodeid in _skipped_browser)
        problem = browsers.browser_problem()
        fix = ("Install the dev dependencies (make does)" if problem and "selenium" in problem
               else "Install Debian's chromium and chromium-driver (.ci/run does)")
        terminalreporter.write_line(
            f"NOTE: {len(_skipped_browser)} browser tests did not run ({problem}): "
            f"{tests}. {fix} to run them.", yellow=True, bold=True)
    elif _browser_ran:
        terminalreporter.write_line(f"Browser tests ran in Chromium {_browser_ran[0]}.",
                                    green=True)
