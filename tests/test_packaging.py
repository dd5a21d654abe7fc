"""Warhost as an installed package: what it ships, its console commands and its lock.

``make`` installs the project (``pip install -c requirements.lock -e '.[dev]'``), so the
commands in ``[project.scripts]`` work from any folder and every version comes from the
lock. These tests hold that: the packages and data files a wheel would carry, the
commands run from a folder that is not the repository, and the lock pins every
dependency inside pyproject's ranges (and is what this environment was installed from).
"""

from __future__ import annotations

import fnmatch
import importlib
import importlib.metadata
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from setuptools import find_namespace_packages

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
LOCK = ROOT / "requirements.lock"


def lock_pins() -> dict[str, tuple[str, Marker | None]]:
    """The lock's ``name==version`` lines that apply to this interpreter, by name."""
    pins: dict[str, tuple[str, Marker | None]] = {}
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        requirement = Requirement(line)
        (spec,) = requirement.specifier
        assert spec.operator == "==", f"the lock pins exact versions: {line!r}"
        if requirement.marker is None or requirement.marker.evaluate():
            pins[canonicalize_name(requirement.name)] = (spec.version, requirement.marker)
    return pins


def declared_requirements() -> list[Requirement]:
    project = PYPROJECT["project"]
    out = [Requirement(r) for r in project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        out += [Requirement(r) for r in extra]
    return out


# --- what a wheel carries -------------------------------------------------------------------


CODE = ("engine", "render", "db", "cogs", "web")


def shipped_packages() -> set[str]:
    """The packages a wheel would carry (setuptools' own discovery, as configured)."""
    config = PYPROJECT["tool"]["setuptools"]["packages"]["find"]
    return set(find_namespace_packages(str(ROOT), include=config["include"],
                                       exclude=config["exclude"]))


def data_files() -> list[Path]:
    return [path for top in CODE for path in (ROOT / top).rglob("*")
            if path.is_file() and path.suffix not in (".py", ".pyc")
            and "__pycache__" not in path.parts]


def test_every_package_of_the_code_is_shipped() -> None:
    found = shipped_packages()
    code = {".".join(p.relative_to(ROOT).parts[:-1])
            for top in CODE for p in (ROOT / top).rglob("__init__.py")}
    assert code and code <= found
    assert PYPROJECT["tool"]["setuptools"]["py-modules"] == ["bot"]
    assert not any(p.startswith("tests") or "__pycache__" in p for p in found)


def test_every_data_file_the_code_reads_is_shipped() -> None:
    found = shipped_packages()
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["*"]
    files = data_files()
    missed = [str(path.relative_to(ROOT)) for path in files
              if ".".join(path.parent.relative_to(ROOT).parts) not in found
              or not any(fnmatch.fnmatch(path.name, p) for p in patterns)]
    assert len(files) >= 15            # game data, fonts, palettes, the web assets
    assert not missed, f"a wheel would leave these out: {missed}"


def test_the_licence_is_mit_and_declared() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    assert "WITHOUT WARRANTY OF ANY KIND" in text
    assert PYPROJECT["project"]["license"] == "MIT"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]


# --- console commands ---------------------------------------------------------------------


def test_each_console_command_names_a_callable() -> None:
    scripts = PYPROJECT["project"]["scripts"]
    assert set(scripts) == {"warhost", "warhost-db", "warhost-web", "warhost-verify"}
    for target in scripts.values():
        module, _, attr = target.partition(":")
        assert callable(getattr(importlib.import_module(module), attr)), target


def installed_script(name: str) -> Path:
    script = Path(sys.executable).parent / name
    if not script.exists():
        pytest.skip(f"{name} is not installed next to {sys.executable} (install with make)")
    return script


@pytest.mark.parametrize(("command", "usage"), [
    (["warhost-db", "--help"], "backup"),
    (["warhost-verify", "--help"], "record"),
    ([sys.executable, "-m", "db", "--help"], "backup"),
    ([sys.executable, "-m", "engine.verify", "--help"], "record"),
])
def test_commands_work_from_any_folder(tmp_path: Path, command: list[str], usage: str) -> None:
    if not command[0].startswith("/"):
        command = [str(installed_script(command[0])), *command[1:]]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout and usage in done.stdout.lower()


def test_the_bot_command_explains_a_missing_token(tmp_path: Path) -> None:
    # from an empty folder (no .env) and no token: a clear message, exit 2, no traceback
    script = installed_script("warhost")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "DISCORD_TOKEN")}
    done = subprocess.run([str(script)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2
    assert "DISCORD_TOKEN" in done.stderr and "Traceback" not in done.stderr


# --- the lock -----------------------------------------------------------------------------


def test_the_lock_pins_every_dependency_inside_its_range() -> None:
    pins = lock_pins()
    for requirement in declared_requirements():
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is declared but not in requirements.lock"
        version = pins[name][0]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"the lock's {name}=={version} is outside pyproject's {requirement}")


def test_every_checker_has_an_upper_bound() -> None:
    # a new major release of a tool must not break `make test` before someone looks
    for spec in PYPROJECT["project"]["optional-dependencies"]["dev"]:
        requirement = Requirement(spec)
        assert any(s.operator in ("<", "<=", "==", "~=") for s in requirement.specifier), spec


def test_this_environment_was_installed_from_the_lock() -> None:
    pins = lock_pins()
    installed = {canonicalize_name(d.metadata["Name"]): d.version
                 for d in importlib.metadata.distributions()}
    checked = 0
    for name, (version, _) in pins.items():
        if name in installed:
            checked += 1
            assert installed[name] == version, (
                f"{name} {installed[name]} is installed but the lock says {version}: "
                "run make (it installs with the lock)")
    assert checked >= 20


def test_the_database_driver_is_an_extra() -> None:
    project = PYPROJECT["project"]
    assert not any(re.match(r"asyncpg\b", d) for d in project["dependencies"])
    assert any(re.match(r"asyncpg\b", d) for d in project["optional-dependencies"]["postgres"])
    # and everything the code imports from outside is declared: aiohttp (web/) too
    assert any(re.match(r"aiohttp\b", d) for d in project["dependencies"])


async def test_postgresql_without_its_driver_is_refused_in_words(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from db import Store, StoreError

    monkeypatch.setitem(sys.modules, "asyncpg", None)     # as an install without the extra
    with pytest.raises(StoreError) as refused:
        await Store.open("postgresql://warhost:hunter2@127.0.0.1:9/games")
    text = str(refused.value)
    assert "asyncpg" in text and "postgres extra" in text and "EXTRAS=dev,postgres" in text
    assert "hunter2" not in text
