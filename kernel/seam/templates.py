"""Prompt templates: the files in configs/ rendered to exact bytes with a sha256.

This module owns reading `configs/*.tmpl` and rendering them with jinja2. A
template is read once (`template_file`) and rendered from what was read: a
run's settings carry the three it renders, so no rendering opens a file. A
rendering is a function of the template file and the data handed in and of
nothing else, so two renderings of the same data are the same bytes and the
sha256 over them is what a recording is checked against. A memory reaches a
template as its identity, its line, whether it is a thought, and (for a
collapsed line) every id it stands for; weights, ticks and `about`
columns are stripped here, before jinja sees them, so no template can leak
them even by mistake. A template may mark where its prompt's opening ends (`{{ opening_ends }}`,
given by the renderer, never by a call): text other prompts begin with too, such as who a
villager is and its day, which a backend that keeps what it has read reads once; the mark
renders as nothing, and the rendering says how many bytes came before it. `pieces` gives a template's own text, the stretches between its
tags, for a measure that asks whether an answer says the template back. It must not call a
model, state a seam rule, or decide what goes into a prompt (the driver chooses the memories).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
import jinja2.meta

from kernel import config
from kernel.oracle.base import opening_fault
from kernel.seam.errors import TemplateError

QUESTIONS = "reflect-questions.tmpl"
STATEMENT = "reflect-statement.tmpl"
SHIPPED = (QUESTIONS, STATEMENT)

OPENING_ENDS = "opening_ends"
"""The variable a template writes where its opening ends; the renderer gives it."""
_MARK = "\x1e"
"""What the mark renders as before it is taken out: a byte no prompt holds (record separator)."""


class _Text:
    """Bytes that are UTF-8 text: their size and their text, for whatever holds `bytes`."""

    __slots__ = ()

    @property
    def size(self) -> int:
        return len(self.bytes)

    @property
    def text(self) -> str:
        return self.bytes.decode("utf-8")


@dataclass(frozen=True, slots=True)
class Rendered(_Text):
    """One rendered prompt: its exact bytes, their sha256, the template that made them, and
    how many of its first bytes are its opening (0: the template marks none)."""

    bytes: bytes
    sha256: str
    template: str
    template_sha256: str
    opening: int = 0


@dataclass(frozen=True, slots=True)
class TemplateFile(_Text):
    """A template as it sits on disk: name, bytes, size and sha256 (for a `settings` display)."""

    name: str
    path: Path
    bytes: bytes
    sha256: str


def _file_name(name: str) -> str:
    if not isinstance(name, str) or not name or "/" in name or "\\" in name:
        raise TemplateError(f"Expected a template name such as {QUESTIONS!r} but got name={name!r}")
    return name if name.endswith(".tmpl") else name + ".tmpl"


def template_file(name: str, folder: str | None = None) -> TemplateFile:
    """Read `configs/NAME` (the `.tmpl` suffix may be left off), or `configs/FOLDER/NAME` where a
    scenario names a folder of templates of its own, with its size and sha256."""
    fname = _file_name(name)
    if folder is not None and (not isinstance(folder, str) or not folder or "/" in folder
                               or "\\" in folder or folder.startswith(".")):
        raise TemplateError(f"Expected a folder of configs/ such as 'smollm2' but got "
                            f"folder={folder!r}")
    shown = fname if folder is None else f"{folder}/{fname}"
    path = config.config_file(shown)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise TemplateError(f"no template configs/{shown}") from None
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TemplateError(f"configs/{shown} is not UTF-8 (byte {e.start})") from None
    return TemplateFile(name=fname, path=path, bytes=raw, sha256=hashlib.sha256(raw).hexdigest())


def shipped_templates() -> tuple[TemplateFile, ...]:
    """The two templates a reflection renders, in the order it renders them."""
    return tuple(template_file(n) for n in SHIPPED)


# No autoescape: prompts are plain text and an escaped `&amp;` would be a
# different prompt. StrictUndefined: a missing key is an error, never "".
# keep_trailing_newline: the file's last newline is part of the prompt.
_ENV = jinja2.Environment(
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
    autoescape=False,
    auto_reload=False,
)


@lru_cache(maxsize=32)
def _compile(name: str, sha256: str, source: str) -> tuple[jinja2.Template, frozenset[str]]:
    # Keyed by the file's sha256 too, so an edited file is never served stale.
    try:
        ast = _ENV.parse(source, name=name)
        needs = frozenset(jinja2.meta.find_undeclared_variables(ast))
        return _ENV.from_string(source), needs
    except jinja2.TemplateSyntaxError as e:
        raise TemplateError(f"configs/{name} line {e.lineno}: {e.message}") from None


def _field(m: Any, key: str, i: int, default: Any = ...) -> Any:
    if isinstance(m, Mapping):
        if key in m:
            return m[key]
    elif hasattr(m, key):
        return getattr(m, key)
    if default is not ...:
        return default
    raise TemplateError(f"memories[{i}] has no {key!r}: a memory reaches a template as its id "
                        f"and its text, but got {m!r}")


def _ids(m: Any, mid: int, i: int) -> tuple[int, ...]:
    ids = _field(m, "ids", i, (mid,))
    if isinstance(ids, str | bytes) or not hasattr(ids, "__iter__"):
        raise TemplateError(f"memories[{i}].ids must be a list of integers but is {ids!r}")
    ids = tuple(ids)
    if not ids or ids[0] != mid or any(not isinstance(x, int) or isinstance(x, bool)
                                       for x in ids):
        raise TemplateError(f"memories[{i}].ids must be integers starting with its id {mid} "
                            f"but are {ids!r}")
    return ids


def _memories(ms: Iterable[Any]) -> list[dict[str, Any]]:
    """Project each memory to {id, ids, count, text, thought, given} and nothing else: `ids`
    every row a collapsed line (`laws.Line`) stands for (a row alone: its own), `count` how
    many times it happened (a line's `times`; a row alone: once), `thought`
    whether it is the villager's own thought rather than something it lived, `given` whether
    it was given at its founding (a backstory, a piece of news)."""
    if isinstance(ms, str | bytes | Mapping) or not isinstance(ms, Iterable):
        raise TemplateError(f"Expected memories to be a list of memories but got memories={ms!r:.80}")
    out = []
    for i, m in enumerate(ms):
        mid, text = _field(m, "id", i), _field(m, "text", i)
        if not isinstance(mid, int) or isinstance(mid, bool):
            raise TemplateError(f"memories[{i}].id must be an integer but is {mid!r}")
        if not isinstance(text, str):
            raise TemplateError(f"memories[{i}].text must be text but is {text!r}")
        ids = _ids(m, mid, i)
        thought = bool(_field(m, "thought", i, False) or _field(m, "is_thought", i, False))
        given = bool(_field(m, "given", i, False) or _field(m, "is_given", i, False))
        times = getattr(m, "times", None)     # a collapsed line's (`laws.Line.times`)
        out.append({"id": mid, "ids": ids, "text": text, "thought": thought, "given": given,
                    "count": times if isinstance(times, int) and not isinstance(times, bool)
                    else len(ids)})
    return out


def render(template: str | TemplateFile, **data: Any) -> Rendered:
    """Render a template with `data` to UTF-8 bytes and their sha256: `template` is one read
    already (a `TemplateFile`, as a run's settings carry it), or the name of one in configs/,
    read here.

    Variables: `name`, `memories` and `lived` (each memory reduced as `_memories` says),
    `count` (questions), `question` (statement); `opening_ends` is the renderer's own. A variable the template uses and the
    call does not give is a `TemplateError` naming the template and the key.
    """
    tf = template if isinstance(template, TemplateFile) else template_file(template)
    tmpl, needs = _compile(tf.name, tf.sha256, tf.text)
    marked = OPENING_ENDS in needs
    if OPENING_ENDS in data:
        raise TemplateError(f"configs/{tf.name}: {OPENING_ENDS!r} is the renderer's to give, "
                            f"and the call gave it")
    if marked:
        data = {**data, OPENING_ENDS: _MARK}
    missing = sorted(needs - data.keys())
    if missing:
        keys = ", ".join(repr(k) for k in missing)
        raise TemplateError(f"configs/{tf.name} needs {keys}, which the call did not give "
                            f"(it gave {sorted(data)!r})")
    for key in ("memories", "lived"):
        if key in data:
            data = {**data, key: _memories(data[key])}
    try:
        text = tmpl.render(**data)
    except jinja2.UndefinedError as e:
        raise TemplateError(f"configs/{tf.name}: {e.message}") from None
    except jinja2.TemplateError as e:
        raise TemplateError(f"configs/{tf.name}: {e}") from None
    try:
        out = text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise TemplateError(f"configs/{tf.name} rendered text that is not UTF-8 "
                            f"({e.reason} at character {e.start})") from None
    out, opening = _opening(tf.name, out, marked)
    return Rendered(bytes=out, sha256=hashlib.sha256(out).hexdigest(), template=tf.name,
                    template_sha256=tf.sha256, opening=opening)


def _opening(name: str, out: bytes, marked: bool) -> tuple[bytes, int]:
    """The rendering with its opening's mark taken out, and the bytes before the mark. The
    rule of an opening is the ask's own (`kernel.oracle.base.opening_fault`)."""
    mark = _MARK.encode("ascii")
    if not marked:
        return out, 0
    if out.count(mark) != 1:
        raise TemplateError(f"configs/{name} must render {{{{ {OPENING_ENDS} }}}} once, "
                            f"and rendered it {out.count(mark)} times")
    at = out.index(mark)
    out = out[:at] + out[at + 1:]
    fault = "an opening must end a line and a word must follow it" if at == 0 \
        else opening_fault(out, at)
    if fault is not None:
        raise TemplateError(f"configs/{name}: {fault}, but {{{{ {OPENING_ENDS} }}}} stands at "
                            f"{out[max(at - 8, 0):at + 8]!r}")
    return out, at


def pieces(template: str | TemplateFile) -> tuple[str, ...]:
    """A template's own text: each stretch of it between two tags, in order, as jinja reads
    it. What a variable or a block puts in (a name, a memory's line) is in none of them, so
    they are the words the template itself says to every villager."""
    tf = template if isinstance(template, TemplateFile) else template_file(template)
    _compile(tf.name, tf.sha256, tf.text)      # a template that does not parse says so here
    return tuple(value for _, kind, value in _ENV.lex(tf.text) if kind == "data")
