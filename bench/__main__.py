"""Run every benchmark and print its lines: `python -m bench [NAME ...]`.

Figures are ratios against a baseline measured in the same process, never
timed assertions; the machines these run on are shared and noisy.
"""

from __future__ import annotations

import importlib
import sys

SUITES = ("bench_log", "bench_laws", "bench_world", "bench_replay", "bench_retrieval", "bench_felt",
          "bench_cluster", "bench_fold", "bench_minds", "bench_decoding", "bench_attractor",
          "bench_intentions", "bench_talk", "bench_interview", "bench_start", "bench_live")


def main(argv: list[str]) -> int:
    names = argv or list(SUITES)
    for name in names:
        mod = importlib.import_module(f"bench.{name}")
        print(f"== {name}", flush=True)
        for line in mod.run():
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
