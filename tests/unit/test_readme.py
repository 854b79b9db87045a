"""The README's Python example runs as written, and prints what the README says it prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kernel import config

CHECKOUT = Path(__file__).resolve().parents[2]
README = CHECKOUT / "README.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```$", README.read_text(encoding="utf-8"),
                      flags=re.S | re.M)


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("VILLAGE_HOME", str(CHECKOUT))
    config.set_home(None)
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    config.set_home(None)


def test_the_readme_has_one_python_example_and_what_it_prints():
    assert len(_blocks("python")) == 1 and len(_blocks("text")) == 1


def test_the_readmes_python_example_prints_what_the_readme_shows(home, capsys):
    (code,), (shown,) = _blocks("python"), _blocks("text")
    exec(compile(code, str(README), "exec"), {"__name__": "readme"})
    assert capsys.readouterr().out == shown
    assert (home / "day-of-three.log").is_file()


def test_the_readme_is_at_most_200_lines_and_names_make_test_as_the_test_command():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    assert "The test command is `make test`" in text


def test_every_docs_page_the_readme_links_to_exists():
    links = re.findall(r"\]\((docs/[^)]+)\)", README.read_text(encoding="utf-8"))
    assert links and all((CHECKOUT / p).is_file() for p in links)
