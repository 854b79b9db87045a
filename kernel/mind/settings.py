"""What a reflection and a night run under, read from the config files and frozen.

This module owns turning configs/thought.json, configs/models.json,
configs/embedder.json, the importance table's thought row and the eight
prompt templates into one `Settings` value the driver reads (with the thought
file's attractor (the basins), plan and talk blocks, where it has them), the thought
file's night block into one `NightSettings` value, and the digests that
name them in a run's header. It does no reflecting and calls no model; a
scenario (kernel.engine.scenario) reads each file once and hands the
loaded configs here.

A digest covers what decides a prompt or an answer: every value of the
thought and importance files, the models and embedder files without what
only says where or how fast a model runs (the Ollama host, `timeout_s`,
`keep_alive`, thread counts, the Ollama set-up notes), and the bytes of
the eight templates (questions, statement, the night's plan, the basins'
view, update and keyword consolidation, the plan for tomorrow, an utterance; the last
only where the thought file has a talk block), which the
settings carry as they were read, so a round renders from them and never
opens a template file again. Moving a
server or giving a run more threads or sequences (asks the embedded
backend serves together, each the bytes it gives alone) leaves a recording's header as it
was; changing a model, a pin, a number the round reads or a word of a
template does not. A cap other than the thought file's own (`with_cap`)
changes the thought digest as the file's depth would.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

from kernel import config, laws
from kernel.laws.hours import Hours
from kernel.laws.importance import Importance
from kernel.laws.places import InWords
from kernel.oracle.base import Decoding
from kernel.seam import QUESTIONS, STATEMENT, TemplateFile, template_file
from kernel.seam.basins import BASINS_KEYWORDS, BASINS_UPDATE, BASINS_VIEW, PLAN
from kernel.seam.errors import TemplateError
from kernel.seam.plan import NIGHT
from kernel.seam.talk import TALK

TEMPLATES = (QUESTIONS, STATEMENT, NIGHT, BASINS_VIEW, BASINS_UPDATE, BASINS_KEYWORDS, PLAN, TALK)
"""The templates a run renders: a reflection's two, the night's consolidation plan, the
basins as shown, the basins update and a keyword consolidation, the plans for tomorrow,
and an utterance at a meeting. The last is in a run's digests only where the thought file has
a talk block, so a run that does not talk claims the config it always did."""

PATTERNED, BOUNDED = "patterned", "bounded"
REQUESTS = (PATTERNED, BOUNDED)
"""What a thought file's `requests` may say: `bounded`, a request bounds an answer's structure
only (keys, the ids shown, lengths, counts); `patterned`, the default where a file says
nothing, it also holds the words to a pattern tied to the first line cited, as every SmolLM2
recording was made, so a recording made under it still replays."""

# Where a model runs and how fast, never what it answers: left out of the digests.
MODELS_ASIDE = (("timeout_s",), ("keep_alive",), ("llamacpp", "threads"), ("llamacpp", "sequences"),
                ("ollama", "host"),
                ("ollama", "hosts"), ("ollama", "get"), ("openai",))
"""The openai block is aside whole: it says which server answers and by which names, and a
run through it proves each model's pin at pre-flight and names it in every call it records,
as the engine's own header does; so adding the block claimed no new config of any run."""
EMBEDDER_ASIDE = (("minilm", "threads"),)


def without(value: Any, aside: tuple[tuple[str, ...], ...]) -> dict:
    """A config's value (thawed) with the keys at the paths in `aside` left out."""
    v = config.thaw(value)
    for path in aside:
        at = v
        for k in path[:-1]:
            at = at.get(k, {}) if isinstance(at, dict) else {}
        if isinstance(at, dict):
            at.pop(path[-1], None)
    return v


@dataclass(frozen=True, slots=True)
class Settings:
    every: int
    recent: int
    questions: int
    cap: int
    limit: int
    retrieval: laws.Retrieval
    thought: laws.ThoughtWeight
    generate_model: str
    embed_model: str
    context: int
    temperature: float
    decoding: Decoding                     # beside temperature and seed, on every generation ask
    digests: tuple[tuple[str, str], ...]   # the digest of each file read, by what it is
    templates: tuple[TemplateFile, ...]    # the TEMPLATES as read once, in that order
    basins: BasinsSettings | None = None         # the thought file's `attractor` block; None: no basins
    plan: PlanSettings | None = None             # its plan block; None: no plans for tomorrow
    talk: TalkSettings | None = None             # its talk block; None: nobody talks
    night: NightSettings | None = None           # its night block; None: no nights
    requests: str = PATTERNED                    # what a request holds an answer to (REQUESTS)
    grounded: bool = False                       # whether the seam refuses an ungrounded answer
    company: bool = False                        # whether a prompt folds sightings (`shown`)
    # the world in words (its places and day), where its config names places: a prompt tells
    # each lived row's time of day by it (`hours`); None: rows are shown as perception wrote
    # them. Not in the digests: the world's own digest covers its places.
    words: InWords | None = None

    def template(self, name: str) -> TemplateFile:
        """The template `name` (one of TEMPLATES) as these settings read it."""
        for tf in self.templates:
            if tf.name == name:
                return tf
        raise TemplateError(f"no template {name!r} among {', '.join(t.name for t in self.templates)}")

    def hours(self, now: int) -> Hours | None:
        """The clock a prompt asked at tick `now` tells its rows' times by (what
        `laws.collapse(rows, hours)` takes), or None where the world is not in words."""
        return None if self.words is None else self.words.hours(now)

    def shown(self, rows: Any, now: int) -> tuple[laws.Line, ...]:
        """What a prompt asked at tick `now` shows of `rows`: each line once (`laws.collapse`),
        with its time of day where the world is in words, and, where the thought file says
        `company`, a time of day's sightings as one line of whom the villager was near."""
        return laws.collapse(rows, self.hours(now), company=self.company)

    def worded(self, words: InWords | None) -> Settings:
        """These settings for a world in `words` (`WorldConfig.in_words`), or in none."""
        return self if words == self.words else replace(self, words=words)

    @property
    def bounded(self) -> bool:
        """Whether a request bounds an answer's structure only (`requests: bounded`)."""
        return self.requests == BOUNDED

    @property
    def models(self) -> tuple[str, str]:
        """Every model a run under these settings asks: the pre-flight asks each for its digest."""
        return (self.generate_model, self.embed_model)

    def with_cap(self, cap: int) -> Settings:
        """These settings under depth cap `cap`: the same settings where it is their own cap,
        else with the thought digest naming the cap too, so a run under it claims its config."""
        if cap == self.cap:
            return self
        digests = tuple((k, config.digest({"thought": d, "cap": cap}) if k == "thought" else d)
                        for k, d in self.digests)
        return Settings(**{**{f: getattr(self, f) for f in self.__slots__}, "cap": cap,
                           "digests": digests})


@dataclass(frozen=True, slots=True)
class BasinsSettings:
    """thought.json's `attractor` block: which update rule, how many of the day's rows the
    update shows, the characters the basins block may take in a prompt, the token limit."""

    rule: str
    shown: int
    budget: int
    limit: int


@dataclass(frozen=True, slots=True)
class PlanSettings:
    """thought.json's `plan` block: the most plans a villager makes for a day (`intentions`, the
    key's old word, as the field keeps it), the token limit, and whether the world carries plans
    out (false: the ablation, plans logged and ignored)."""

    intentions: int
    limit: int
    carry_out: bool


@dataclass(frozen=True, slots=True)
class TalkSettings:
    """thought.json's `talk` block: the utterances a villager may start and answer with in a
    day, the characters of one, how many rows about the other come to mind first, the most
    lines a talk prompt shows, and the token limit."""

    starts: int
    answers: int
    chars: int
    recall: int
    shown: int
    limit: int


@dataclass(frozen=True, slots=True)
class NightSettings:
    """thought.json's `night` block: rows shown, the plan's bounds, the token limit."""

    shown: int
    groups: int
    members: int
    limit: int


def load(thought: str | os.PathLike = "thought", models: str | os.PathLike = "models",
         importance: str | os.PathLike = "importance",
         embedder: str | os.PathLike = "embedder") -> Settings:
    """The settings of the four files, each read once."""
    return of(thought=config.load(thought, schema="thought"),
              models=config.load(models, schema="models"),
              importance=config.load(importance, schema="importance"),
              embedder=config.load(embedder, schema="embedder"))


def read_templates() -> tuple[TemplateFile, ...]:
    """The TEMPLATES, each read once, in order."""
    return tuple(template_file(n) for n in TEMPLATES)


def of(*, thought: config.Config, models: config.Config, importance: config.Config,
       embedder: config.Config, templates: tuple[TemplateFile, ...] | None = None) -> Settings:
    """The settings of four configs already loaded and checked (a scenario's, read once) and
    the templates already read (`read_templates`; read here when None)."""
    t, m, e, imp = thought, models, embedder, importance
    tfs = read_templates() if templates is None else tuple(templates)
    if tuple(tf.name for tf in tfs) != TEMPLATES:
        raise TemplateError(f"Expected the templates {TEMPLATES!r} in that order but got "
                         f"{tuple(tf.name for tf in tfs)!r}")
    by = {tf.name: tf for tf in tfs}
    r = t.value.reflection
    raw = config.thaw(t.value)
    table = Importance.from_value(imp.value)
    return Settings(
        every=r.every, recent=r.recent, questions=r.questions, cap=r.depth, limit=r.limit,
        retrieval=laws.Retrieval.of(config.thaw(t.value.retrieval)),
        thought=laws.ThoughtWeight(base=dict(table.base)[("thought", "reflection")],
                                   first_bonus=table.first_bonus),
        generate_model=m.value.generate, embed_model=m.value.embed, context=m.value.context,
        temperature=0.0,
        decoding=decoding_of(t),
        digests=(("basins-keywords", by[BASINS_KEYWORDS].sha256),
                 ("basins-update", by[BASINS_UPDATE].sha256),
                 ("basins-view", by[BASINS_VIEW].sha256),
                 ("embedder", config.digest(without(e.value, EMBEDDER_ASIDE))),
                 ("importance", imp.digest),
                 ("models", config.digest(without(m.value, MODELS_ASIDE))),
                 ("night", by[NIGHT].sha256),
                 ("plan", by[PLAN].sha256),
                 ("questions", by[QUESTIONS].sha256),
                 ("statement", by[STATEMENT].sha256),
                 *((("talk", by[TALK].sha256),) if "talk" in raw else ()),
                 ("thought", t.digest)),
        templates=tfs,
        basins=BasinsSettings(**raw["attractor"]) if "attractor" in raw else None,
        plan=PlanSettings(**raw["plan"]) if "plan" in raw else None,
        talk=TalkSettings(**raw["talk"]) if "talk" in raw else None,
        night=night_of(t),
        requests=raw.get("requests", PATTERNED), grounded=bool(raw.get("grounded", False)),
        company=bool(raw.get("company", False)),
    )


def decoding_of(thought: config.Config) -> Decoding:
    """The thought file's decoding block, each value it leaves out at `Decoding`'s default
    (llama-cpp-python's own, so a file with no block decodes as an embedded run always did)."""
    return Decoding(**config.thaw(thought.value).get("decoding", {}))


def night_of(thought: config.Config) -> NightSettings | None:
    """The night block of a loaded thought config, or None where it has none (no nights)."""
    n = config.thaw(thought.value).get("night")
    if n is None:
        return None
    return NightSettings(shown=n["shown"], groups=n["groups"], members=n["members"],
                         limit=n["limit"])


def load_night(thought: str | os.PathLike = "thought") -> NightSettings | None:
    """The night block of a thought file, or None where it has none (no nights)."""
    return night_of(config.load(thought, schema="thought"))
