"""Filling what the grammar forces: the embedded backend writes an answer's fixed text itself.

Under a JSON grammar much of an answer is not the model's to choose: the
braces, the keys, the colons, the quote that opens a string. Left to the
model, each of those is a sampled token (a statement of 36 tokens out spent 13
of them so), and a key it would not write of itself is spelled a piece at a
time. With `decoding.fill` the embedded backend asks the grammar, before every
token, which text it forces next, and feeds that text to the model as it feeds
a prompt, in one batch: the model samples only where the grammar leaves it a
choice. A filled token is counted in (read, as a prompt's tokens are), never
out (chosen).

This module owns the decode loop of a filled answer and the rule for what
may be filled. It must not import `llama_cpp` at module level (the backend
hands it the module) and must not parse answers.

Choices, and why:
- What the grammar forces is found a byte at a time: a copy of the grammar's
  state is offered every single-byte token of the vocabulary, and the ends of
  text (EOG); where exactly one byte token survives and no end does, that byte
  is forced. Every string a byte-level vocabulary can write starts with a
  single-byte token, so one survivor is proof. SmolLM2's vocabulary has 235
  of the 256 bytes; the others are control bytes and bytes that never stand
  in UTF-8 or only in code points no schema here names (`_NEVER`), so none of
  them can be the one byte a grammar allows.
- The forced text is cut back to its last punctuation (`trimmed`): never to
  the middle of a word, a space or a character past ASCII. The vocabulary's
  tokens carry their leading space and run across word ends, so a filled
  `"Wh` left the model `y` and a filled space left it `is` without one, and
  it wrote "Why ia Ander?"; cut back, the model writes the word as one token,
  as it would have.
- Filled text is JSON's compact layout (`compact`): the grammar's optional
  space is taken away, so the layout is fixed and a key and its colon are
  forced whole. Left optional, the model chose a space after a filled key
  (`"questions" :`).
- The ask's seed and sampler chain (penalties, grammar, then greedy at
  temperature 0) exactly as llama-cpp-python builds it for `create_chat_completion`, the
  prompt rendered by the GGUF's chat template and tokenized as that function
  does; every filled token is accepted by the chain's grammar and penalty as
  a sampled one is. With nothing filled the loop gives that function's bytes
  (a test holds it), so filling is the only difference. The loop reads the
  binding's own sampler chain, context and model (`_init_sampler`, `_ctx`,
  `_model`, as of llama-cpp-python 0.3, pinned below 0.4 in pyproject.toml);
  a release that changes them fails that test.
- The limit counts every token of the answer, filled or chosen: it bounds the
  answer's length, whoever wrote it.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kernel.oracle.base import Decoding

OPTIONAL_SPACE = 'space ::= " "?'
"""The rule `json_schema_to_gbnf` writes for the whitespace JSON allows between tokens."""

_NEVER = frozenset(range(0x20)) | {0x7F, 0xC0, 0xC1} | frozenset(range(0xF1, 0x100))
"""Bytes no answer's grammar can force: control bytes (a JSON string holds none raw), bytes
that never stand in UTF-8, and the lead bytes of planes past U+3FFFF."""

MOST_FORCED = 64
"""The most bytes one look ahead fills; the next token's look carries on from there."""


def trimmed(forced: bytes) -> bytes:
    """`forced` cut back so it ends on ASCII punctuation: nothing of a word, a space or past ASCII."""
    end = len(forced)
    while end and (forced[end - 1] >= 0x80 or chr(forced[end - 1]).isalnum()
                   or chr(forced[end - 1]).isspace()):
        end -= 1
    return forced[:end]


def compact(gbnf: str) -> str:
    """The grammar with JSON's optional whitespace taken away: one layout, so keys are forced whole."""
    if OPTIONAL_SPACE not in gbnf:
        raise ValueError(f"the grammar has no rule {OPTIONAL_SPACE!r} to make compact")
    return gbnf.replace(OPTIONAL_SPACE, 'space ::= ""')


@dataclass
class Filled:
    """What one filled decode gave: its text, why it stopped, and its tokens by who wrote them."""

    text: str
    done_reason: str
    prompt_tokens: int
    chosen: int
    filled: int


class Filler:
    """The vocabulary's single-byte tokens and ends of text, for one loaded model."""

    def __init__(self, llama_cpp: Any, llm: Any):
        self.lc = llama_cpp
        self.llm = llm
        self.vocab = llm._model.vocab
        n = llama_cpp.llama_vocab_n_tokens(self.vocab)
        self.eog = [t for t in range(n) if llama_cpp.llama_vocab_is_eog(self.vocab, t)]
        byte_token: dict[int, int] = {}
        buf = ctypes.create_string_buffer(64)
        ends = set(self.eog)
        for t in range(n):
            if t in ends:
                continue
            k = llama_cpp.llama_token_to_piece(self.vocab, t, buf, 64, 0, False)
            if k == 1 and buf[0][0] not in byte_token:
                byte_token[buf[0][0]] = t
        missing = set(range(256)) - set(byte_token) - _NEVER
        if missing:
            raise ValueError(f"the vocabulary has no single-byte token for bytes "
                             f"{sorted(missing)[:8]}, so what a grammar forces cannot be proven")
        self.byte_of = {t: b for b, t in byte_token.items()}
        self.probe = [*byte_token.values(), *self.eog]
        self._cells = (llama_cpp.llama_token_data * len(self.probe))()

    def _survivors(self, grammar: Any) -> list[int]:
        cells = self._cells
        for i, t in enumerate(self.probe):
            cells[i].id, cells[i].logit, cells[i].p = t, 0.0, 0.0
        arr = self.lc.llama_token_data_array(data=cells, size=len(self.probe), selected=-1,
                                             sorted=False)
        self.lc.llama_sampler_apply(grammar, ctypes.byref(arr))
        return [cells[i].id for i in range(arr.size) if cells[i].logit != float("-inf")]

    def forced(self, grammar: Any) -> tuple[bytes, bool]:
        """The text `grammar`'s state forces next (trimmed), and whether it then forces the end."""
        look = self.lc.llama_sampler_clone(grammar)
        out = bytearray()
        ended = False
        try:
            while len(out) < MOST_FORCED:
                alive = self._survivors(look)
                if len(alive) != 1:
                    break
                if alive[0] in self.eog:
                    ended = True
                    break
                out.append(self.byte_of[alive[0]])
                self.lc.llama_sampler_accept(look, alive[0])
        finally:
            self.lc.llama_sampler_free(look)
        cut = trimmed(bytes(out))
        return cut, ended and len(cut) == len(out)

    def prompt_tokens(self, prompt: str) -> list[int]:
        """The user message rendered and tokenized as `create_chat_completion` does on this GGUF."""
        return self.opened(prompt, 0)[0]

    def opened(self, prompt: str, opening: int) -> tuple[list[int], int]:
        """The prompt's tokens (as `prompt_tokens`), and how many of them are its opening: as
        many as the whole rendering's tokens and those of its head alone (the chat template's
        opening and the prompt's first `opening` bytes) have in common from the start. A
        tokenizer may join the line's end to what follows it (SmolLM2's splits a blank line
        before a word as two tokens, alone as one), so the opening is the tokens both agree
        on, which the prompts of one head share where it ends a line before a word."""
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter
        llm = self.llm
        eos, bos = llm.token_eos(), llm.token_bos()
        formatter = Jinja2ChatFormatter(
            template=llm.metadata["tokenizer.chat_template"],
            eos_token=llm._model.token_get_text(eos) if eos != -1 else "",
            bos_token=llm._model.token_get_text(bos) if bos != -1 else "",
            stop_token_ids=[eos])
        r = formatter(messages=[{"role": "user", "content": prompt}])
        add_bos = not r.added_special
        tokens = llm.tokenize(r.prompt.encode("utf-8"), add_bos=add_bos, special=True)
        at = r.prompt.find(prompt)
        if opening <= 0 or at < 0:
            return tokens, 0
        head = r.prompt[:at] + prompt.encode("utf-8")[:opening].decode("utf-8")
        first = llm.tokenize(head.encode("utf-8"), add_bos=add_bos, special=True)
        k = 0
        while k < min(len(first), len(tokens) - 1) and tokens[k] == first[k]:
            k += 1
        return tokens, k

    def chain(self, gbnf: str, *, seed: int, temperature: float, repeat_penalty: float,
              repeat_last_n: int, top_k: int, top_p: float, min_p: float) -> Any:
        """The sampler chain `create_chat_completion` builds for these settings under `gbnf`
        (penalties, grammar, then greedy at temperature 0), seeded."""
        llm = self.llm
        llm.last_n_tokens_size = repeat_last_n
        llm.set_seed(seed)
        return llm._init_sampler(top_k=top_k, top_p=top_p, min_p=min_p, temp=temperature,
                                 repeat_penalty=repeat_penalty,
                                 grammar=self.lc.LlamaGrammar.from_string(gbnf, verbose=False))

    def decode(self, prompt: str, gbnf: str, *, limit: int, seed: int, temperature: float,
               decoding: Decoding, opening: int = 0) -> Filled:
        """One answer under `gbnf`, sampled as `decoding` says, the forced text filled (unless
        `decoding.fill` is false). The prompt's opening (`opened`), where it has one, is read
        first and apart from the rest, as a server that keeps openings reads it: so the bytes
        are the same both ways."""
        lc, llm = self.lc, self.llm
        fill = decoding.fill
        tokens, cut = self.opened(prompt, opening)
        llm.reset()
        chain = self.chain(gbnf, seed=seed, temperature=temperature,
                           repeat_penalty=float(decoding.repeat_penalty),
                           repeat_last_n=decoding.repeat_last_n, top_k=decoding.top_k,
                           top_p=float(decoding.top_p), min_p=float(decoding.min_p))
        track = lc.llama_sampler_init_grammar(self.vocab, gbnf.encode("utf-8"), b"root")
        out: list[int] = []
        chosen = filled = 0
        reason = "length"
        try:
            if cut:
                llm.eval(tokens[:cut])
            llm.eval(tokens[cut:])
            while len(out) < limit:
                if fill:
                    text, ended = self.forced(track)
                    if text:
                        more = llm.tokenize(text, add_bos=False, special=False)[:limit - len(out)]
                        for t in more:
                            lc.llama_sampler_accept(chain.sampler, t)
                            lc.llama_sampler_accept(track, t)
                        llm.eval(more)
                        out += more
                        filled += len(more)
                        if len(out) >= limit:
                            break
                    if ended:
                        reason = "stop"
                        break
                t = chain.sample(llm._ctx, -1)
                if lc.llama_vocab_is_eog(self.vocab, t):
                    reason = "stop"
                    break
                out.append(t)
                chosen += 1
                lc.llama_sampler_accept(track, t)
                if len(out) >= limit:
                    break
                llm.eval([t])
        finally:
            lc.llama_sampler_free(track)
            chain.close()
        text = llm.detokenize(out, prev_tokens=tokens).decode("utf-8", errors="ignore")
        return Filled(text=text, done_reason=reason, prompt_tokens=len(tokens),
                      chosen=chosen, filled=filled)
