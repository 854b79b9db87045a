"""Serving many asks together: one llama.cpp context, a sequence for each ask, the bytes of one at a time.

A round's asks (every villager's questions, then every statement, every
utterance) reach the embedded backend as one `generate_many`. This module owns
answering them together: each ask decodes in a llama.cpp sequence of its own,
and every sequence's next tokens go into one `llama_decode` (a token out reads
every weight once, so a batch of asks shares that read). It must not import
`llama_cpp` at module level (the backend hands it the module), parse an answer,
or decide which asks are asked.

Choices, and why:
- Replay is sacred: an ask's bytes must not depend on what else was asked with
  it or before it. So each sequence has a stream of its own (`kv_unified`
  off), emptied before each ask, its tokens at cells 0, 1, 2... where a lone
  decode puts them; and each sequence's evaluations are cut exactly as
  `Filler.decode` cuts them (the prompt in `n_batch` pieces, the forced text
  apart, each sampled token alone). A decode holds either one sequence's
  evaluation of several tokens, alone, or the single next token of every
  sequence: only the one-token steps, where the weights are read for every
  token, are shared, and only among sequences whose caches pad to the same
  span (`PAD`): attention in a decode spans the longest padded cache of its
  sequences, and a shorter one given a longer span than alone gave other
  bytes (Qwen2.5-Coder-1.5B on day-of-six's 12 statements: 2 of 12 before,
  12 of 12 the bytes alone after). tests/embedded/test_serving.py holds it on a committed
  recording's asks, byte for byte and token count for token count, in their
  order and shuffled.
- What gave other bytes, and is not done: putting a prompt and the forced text
  after it in one decode, or several sequences' prompts in one decode
  (llama.cpp then cuts them into other pieces): on village-of-eight's first
  60 asks one night plan in 60 came out otherwise than alone. Keeping a
  prompt's first tokens where they were read as part of a whole prompt
  (`llama_memory_seq_rm` past them, or `llama_memory_seq_cp` of another
  stream): the rest is then cut into other pieces than alone; on
  five-days-of-halla's asks, shuffled, three sequences, a statement recorded
  as "Ader has the oldest memory of all urned inthis." came out "Ader went
  Mosholle to Mose".
- What is kept instead: an ask's opening (`Ask.opening`, the text its
  template marks, such as who a villager is and its day) is read apart from
  the rest both ways, alone (`Filler.decode`) and here, so the rest's pieces
  are the same either way. The first ask of an opening reads it, and the
  stream's state is then kept (`llama_state_seq_get_data`, up to
  `KEPT_BYTES`, the least lately used going first) under the opening's
  tokens; every later ask of that opening, in this round or a later one,
  has the state put back into its emptied stream (`llama_state_seq_set_data`)
  and reads only the rest. An ask whose opening another is reading waits for
  it, and the asks after it go first. tests/embedded/test_serving.py holds
  the bytes alone, in order and shuffled, and counts the tokens not read again.
- The sampler is the one `create_chat_completion` builds (`Llama._init_sampler`:
  penalties, grammar, then greedy at temperature 0), and the text a grammar
  forces is filled as `kernel.oracle.fill` fills it, so a served answer is the
  answer `Filler.decode` gives. At temperature 0 the grammar is asked about the
  likeliest token alone, and about the whole vocabulary only when it refuses
  that one: greedy takes the first of the highest logits, and a grammar only
  ever sets logits to minus infinity, so where it allows the likeliest token
  that token is the answer either way. That keeps the grammar's cost off
  nearly every token (the 1.5B's vocabulary is 151,936 tokens).
- The answers come back in the asks' order. A sequence's time is its share of
  each decode (by the tokens it put in it) and its own sampling: the shares
  add up to the wall time.
"""

from __future__ import annotations

import ctypes
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kernel.oracle.base import Ask
from kernel.oracle.fill import Filled, Filler

KEPT_BYTES = 512 << 20
"""The most bytes of kept openings' state a server holds (Qwen2.5-Coder-1.5B keeps 28 KiB a
token: some 36 openings of 500 tokens); past it the least lately used goes."""

PAD = 256
"""The cells llama.cpp pads a cache's span to in attention: sequences decoded together have
caches of one padded span, the span each has alone."""

_CELL = np.dtype([("id", "<i4"), ("logit", "<f4"), ("p", "<f4")], align=True)
_GREEDY = [b"penalties", b"grammar", b"greedy"]


class Picker:
    """One ask's sampler chain, as `create_chat_completion` builds it, and its grammar."""

    def __init__(self, filler: Filler, ask: Ask, gbnf: str):
        d = ask.decoding
        lc = self.lc = filler.lc
        self.chain = filler.chain(gbnf, seed=ask.seed, temperature=float(ask.temperature),
                                  repeat_penalty=float(d.repeat_penalty),
                                  repeat_last_n=d.repeat_last_n, top_k=d.top_k,
                                  top_p=float(d.top_p), min_p=float(d.min_p))
        s = self.chain.sampler
        parts = [lc.llama_sampler_chain_get(s, i) for i in range(lc.llama_sampler_chain_n(s))]
        names = [lc.llama_sampler_name(p) for p in parts]
        if len(names) < 2 or names[1] != b"grammar":
            raise ValueError(f"the sampler chain is {names}, with no grammar second")
        self.penalties, self.grammar = parts[0], parts[1]
        self.greedy = names == _GREEDY
        self.n_vocab = filler.llm._n_vocab
        self.cells: np.ndarray | None = None

    def _array(self, cells: np.ndarray) -> Any:
        lc = self.lc
        data = ctypes.cast(cells.ctypes.data, ctypes.POINTER(lc.llama_token_data))
        return lc.llama_token_data_array(data=data, size=len(cells), selected=-1, sorted=False)

    def _allowed(self, token: int, logit: float) -> bool:
        one = np.zeros(1, dtype=_CELL)
        one[0] = (token, logit, 0.0)
        self.lc.llama_sampler_apply(self.grammar, ctypes.byref(self._array(one)))
        return bool(one[0]["logit"] != -np.inf)

    def pick(self, ctx: Any, i: int) -> int:
        """The token the chain takes from output `i` of the last decode, accepted into the chain."""
        lc = self.lc
        if not self.greedy:
            return lc.llama_sampler_sample(self.chain.sampler, ctx, i)
        if self.cells is None:
            self.cells = np.zeros(self.n_vocab, dtype=_CELL)
            self.cells["id"] = np.arange(self.n_vocab, dtype=np.int32)
        cells = self.cells
        cells["logit"] = np.ctypeslib.as_array(lc.llama_get_logits_ith(ctx, i),
                                               shape=(self.n_vocab,))
        arr = self._array(cells)
        lc.llama_sampler_apply(self.penalties, ctypes.byref(arr))
        t = int(np.argmax(cells["logit"]))
        if not self._allowed(t, float(cells["logit"][t])):
            lc.llama_sampler_apply(self.grammar, ctypes.byref(arr))
            t = int(np.argmax(cells["logit"]))
        lc.llama_sampler_accept(self.chain.sampler, t)
        return t

    def take(self, token: int) -> None:
        """A token written for the model (forced text), accepted as a sampled one is."""
        self.lc.llama_sampler_accept(self.chain.sampler, token)

    def close(self) -> None:
        self.chain.close()


@dataclass
class Job:
    """One ask in flight: its prompt tokens, what it has written, and the evaluations it needs
    next, each the tokens one `llm.eval` of `Filler.decode` would take for it at that point."""

    index: int
    tokens: list[int]
    limit: int
    fill: bool
    picker: Picker
    cut: int = 0
    out: list[int] = field(default_factory=list)
    pending: list[list[int]] = field(default_factory=list)
    chosen: int = 0
    filled: int = 0
    reason: str = ""
    ns: int = 0

    @property
    def done(self) -> bool:
        return bool(self.reason)

    @property
    def key(self) -> bytes | None:
        """What names the prompt's opening among those kept: its tokens' bytes (none: no opening)."""
        return np.asarray(self.tokens[:self.cut], dtype="<i4").tobytes() if self.cut else None

    def begin(self, filler: Filler, n_batch: int, kept: bool) -> None:
        """Start: the prompt in the pieces `Filler.decode`'s `Llama.eval` calls cut it into (the
        opening apart, unless `kept` in the stream already; then the rest), then the forced text."""
        pieces = [self.tokens[self.cut:]] if kept else [self.tokens[:self.cut], self.tokens[self.cut:]]
        self.pending = [p[i:i + n_batch] for p in pieces if p for i in range(0, len(p), n_batch)]
        self._then(self._forced(filler))

    def advance(self, filler: Filler, ctx: Any, i: int) -> None:
        """Its evaluations are done: sample from output `i`, then fill what is forced."""
        t = self.picker.pick(ctx, i)
        self.pending = []
        if filler.lc.llama_vocab_is_eog(filler.vocab, t):
            self.reason = "stop"
            return
        self.out.append(t)
        self.chosen += 1
        if len(self.out) >= self.limit:
            self.reason = "length"
            return
        self.pending = [[t]]
        self._then(self._forced(filler))

    def _then(self, more: list[int]) -> None:
        if more:
            self.pending.append(more)

    def _forced(self, filler: Filler) -> list[int]:
        # As Filler.decode fills: the forced text's tokens, cut at the limit, then the end if forced.
        if not self.fill:
            return []
        text, ended = filler.forced(self.picker.grammar)
        more: list[int] = []
        if text:
            more = filler.llm.tokenize(text, add_bos=False, special=False)[:self.limit - len(self.out)]
            for t in more:
                self.picker.take(t)
            self.out += more
            self.filled += len(more)
            if len(self.out) >= self.limit:
                self.reason = "length"
                return more
        if ended:
            self.reason = "stop"
        return more

    def result(self, llm: Any) -> Filled:
        text = llm.detokenize(self.out, prev_tokens=self.tokens).decode("utf-8", errors="ignore")
        return Filled(text=text, done_reason=self.reason, prompt_tokens=len(self.tokens),
                      chosen=self.chosen, filled=self.filled)


class Server:
    """A context of `sequences` streams on a loaded model's weights, each `n_ctx` cells long."""

    def __init__(self, lc: Any, llm: Any, *, sequences: int, n_ctx: int):
        from llama_cpp import _internals

        p = type(llm.context_params).from_buffer_copy(llm.context_params)
        p.n_ctx = sequences * n_ctx
        p.n_seq_max = sequences
        p.kv_unified = False
        self.lc, self.llm = lc, llm
        self.ctx = _internals.LlamaContext(model=llm._model, params=p, verbose=False)
        self.n_ctx = lc.llama_n_ctx_seq(self.ctx.ctx)
        if self.n_ctx < n_ctx:
            raise ValueError(f"llama.cpp gave each sequence {self.n_ctx} cells, not {n_ctx}")
        self.mem = lc.llama_get_memory(self.ctx.ctx)
        self.n_batch = llm.n_batch
        self.batch = _internals.LlamaBatch(n_tokens=max(self.n_batch, sequences), embd=0,
                                           n_seq_max=1, verbose=False)
        self.sequences = sequences
        self.held = [0] * sequences
        self.kept: OrderedDict[bytes, bytes] = OrderedDict()
        self.kept_bytes = 0
        self.reused = 0
        self.read = 0

    def _keep(self, slot: int, key: bytes) -> None:
        """Keep the opening stream `slot` holds now, under `key`, dropping the least lately used
        past `KEPT_BYTES`."""
        lc, ctx = self.lc, self.ctx.ctx
        size = lc.llama_state_seq_get_size(ctx, slot)
        buf = (ctypes.c_uint8 * size)()
        got = lc.llama_state_seq_get_data(ctx, buf, size, slot)
        if got != size:
            raise ValueError(f"llama.cpp wrote {got} bytes of a stream's state, not {size}")
        self.kept[key] = bytes(buf)
        self.kept_bytes += size
        while self.kept_bytes > KEPT_BYTES and len(self.kept) > 1:
            _, old = self.kept.popitem(last=False)
            self.kept_bytes -= len(old)

    def _restore(self, slot: int, key: bytes, cells: int) -> None:
        """Put the kept opening `key` into emptied stream `slot`, as its first `cells` cells."""
        state = self.kept[key]
        self.kept.move_to_end(key)
        buf = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
        if self.lc.llama_state_seq_set_data(self.ctx.ctx, buf, len(state), slot) != len(state):
            raise ValueError("llama.cpp could not restore a kept opening's state")
        self.held[slot] = cells

    def close(self) -> None:
        """Free the context and the batch (before the model they were made on)."""
        self.batch.close()
        self.ctx.close()

    def serve(self, jobs: list[Job], filler: Filler) -> None:
        """Answer every job, `sequences` at a time, in their order."""
        waiting = list(jobs)
        active: dict[int, Job] = {}
        while waiting or active:
            self._admit(waiting, active, filler)
            self._step(active, filler)

    def _admit(self, waiting: list[Job], active: dict[int, Job], filler: Filler) -> None:
        """Put waiting jobs, in their order, into free sequences, each emptied first, its
        opening restored where one is kept. A job whose opening another job is reading now
        waits for it to be kept, and the jobs after it go first."""
        reading = {j.key for j in active.values() if j.key is not None and j.key not in self.kept}
        i = 0
        while i < len(waiting):
            free = [s for s in range(self.sequences) if s not in active]
            if not free:
                return
            job = waiting[i]
            if job.key is not None and job.key in reading:
                i += 1
                continue
            waiting.pop(i)
            slot = free[0]
            start = time.perf_counter_ns()
            self.lc.llama_memory_seq_rm(self.mem, slot, 0, -1)
            self.held[slot] = 0
            kept = job.key is not None and job.key in self.kept
            if kept:
                self._restore(slot, job.key, job.cut)
                self.reused += job.cut
            elif job.key is not None:
                reading.add(job.key)
            self.read += len(job.tokens) - (job.cut if kept else 0)
            job.begin(filler, self.n_batch, kept)
            job.ns += time.perf_counter_ns() - start
            if not job.done:
                active[slot] = job

    def _alike(self, active: dict[int, Job]) -> list[int]:
        """The largest set of sequences whose caches, with their next token, pad to the same
        length (`PAD`): attention in one decode spans the longest padded cache among them."""
        groups: dict[int, list[int]] = {}
        for slot in sorted(active):
            groups.setdefault((self.held[slot] + PAD) // PAD, []).append(slot)
        return max(groups.values(), key=len)

    def _step(self, active: dict[int, Job], filler: Filler) -> None:
        """One decode: a sequence's next evaluation of more than one token alone, as a lone
        decode takes it; else every sequence's next token together. Each job whose
        evaluations are all done is advanced."""
        if not active:
            return
        many = [s for s in sorted(active) if len(active[s].pending[0]) > 1]
        slots = many[:1] or self._alike(active)
        b = self.batch.batch
        n = 0
        outputs: dict[int, int] = {}
        for slot in slots:
            job = active[slot]
            unit = job.pending[0]
            last = len(job.pending) == 1
            for i, t in enumerate(unit):
                b.token[n], b.pos[n], b.n_seq_id[n], b.seq_id[n][0] = t, self.held[slot] + i, 1, slot
                b.logits[n] = last and i == len(unit) - 1
                n += 1
            if last:
                outputs[slot] = n - 1
        b.n_tokens = n
        start = time.perf_counter_ns()
        rc = self.lc.llama_decode(self.ctx.ctx, b)
        if rc != 0:
            raise ValueError(f"llama_decode returned {rc} (a prompt and its answer longer "
                             f"than the context of {self.n_ctx} tokens?)")
        took = time.perf_counter_ns() - start
        for slot in slots:
            job = active[slot]
            unit = job.pending.pop(0)
            job.ns += took * len(unit) // n
            self.held[slot] += len(unit)
            if job.key is not None and self.held[slot] == job.cut and job.key not in self.kept:
                begin = time.perf_counter_ns()
                self._keep(slot, job.key)
                job.ns += time.perf_counter_ns() - begin
            if slot not in outputs:
                continue
            begin = time.perf_counter_ns()
            job.advance(filler, self.ctx.ctx, outputs[slot])
            job.ns += time.perf_counter_ns() - begin
            if job.done:
                del active[slot]


def serve(server: Server, filler: Filler, asks: list[tuple[Ask, str]]) -> list[tuple[Filled, int]]:
    """Each (ask, grammar) answered, in the asks' order, with the nanoseconds it took."""
    jobs: list[Job] = []
    try:
        for i, (ask, gbnf) in enumerate(asks):
            tokens, cut = filler.opened(ask.prompt_text, ask.opening)
            if len(tokens) + 1 > server.n_ctx:
                raise ValueError(f"the prompt is {len(tokens)} tokens, and the context holds "
                                 f"{server.n_ctx}")
            jobs.append(Job(i, tokens, ask.limit, ask.decoding.fill, Picker(filler, ask, gbnf),
                            cut=cut))
        server.serve(jobs, filler)
        return [(j.result(filler.llm), j.ns) for j in jobs]
    finally:
        for j in jobs:
            j.picker.close()
