"""A call of the mind's, and the events that say what became of it.

The round (kernel.mind.reflect) and the night (kernel.mind.night) ask the
model the same way and write what it said the same way. This module owns
those shapes: the `VillagerCall` one villager's call at night is made of (who, when, its
seed, the rows its prompt shows, the prompt), the `Ask` of a call (the generation model, temperature,
decoding and context of the thought settings, with a token limit of the caller's), the
`Answered` event that records a call's answer, the `Rejection` that is a
check's verdict against an answer (its check and its reason, a value, never
a string to split apart) and the `events.Refusal` that writes one down. It
must not decide which calls are made or in which order, judge an answer
(the seam and the laws do) or write the log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kernel import events as ev
from kernel.laws.memory import Memory
from kernel.mind.settings import Settings
from kernel.oracle.base import Ask, Said
from kernel.seam import Rendered


@dataclass(slots=True)
class VillagerCall:
    """One villager's call: the villager and its name, the tick, the call's seed, the rows its
    prompt shows and the prompt. A night's calls (a basin update, a plan) add their schema and
    what became of the answer."""

    villager: int
    name: str
    now: int
    seed: int
    shown: tuple[Memory, ...]
    prompt: Rendered


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why an answer was refused whole: the check that refused it, and that check's reason.

    Shown, it is the text a refusal has always been shown as: `check: reason`."""

    check: str
    reason: str

    def __str__(self) -> str:
        return f"{self.check}: {self.reason}"


def ask(st: Settings, purpose: str, prompt: Rendered, schema: bytes, seed: int,
        limit: int | None = None) -> Ask:
    """The ask of one call: `prompt` for `schema`, with the settings' limit unless `limit`, and
    the settings' decoding, so every generation call samples the same way on every backend."""
    return Ask(purpose=purpose, model=st.generate_model, prompt=prompt.bytes, schema=schema,
               seed=seed, temperature=st.temperature, limit=st.limit if limit is None else limit,
               context=st.context, decoding=st.decoding, opening=prompt.opening)


def answered(villager: int, purpose: str, index: int, seed: int, prompt: Rendered,
             said: Said) -> ev.Answered:
    """The event recording what the model said to one call (`index` 0 for a call's whole)."""
    return ev.Answered(villager=villager, purpose=purpose, index=index, model=said.model,
                       digest=said.digest, seed=seed, prompt_sha256=prompt.sha256,
                       text=said.text, done_reason=said.done_reason)


def refusal(villager: int, purpose: str, index: int, refused: Rejection) -> ev.Refusal:
    """The event recording that an answer (or one part of it, by `index`) was refused."""
    return ev.Refusal(villager=villager, purpose=purpose, index=index, check=refused.check,
                      reason=refused.reason)


def generate_all(oracle, asks: Sequence[Ask]) -> list[Said]:
    """Independent asks answered in their order, through the oracle base's one road for many
    asks: together where the backend pools itself, else one by one. The answers, and so the
    events, are the same."""
    return list(oracle.generate_many(asks))
