"""Build steps pyproject.toml cannot state: the compiled chain check, and the shipped files.

- kernel/log/_chain.c, the chain check at the speed of sha256. Optional:
  where it does not build (no C compiler, no OpenSSL or zlib headers), the
  install goes on and the log verifies in Python by the same rules.
- The shipped configs (configs/: the config files, their schemas, the
  templates) and the small scenarios `village init` copies
  (fixtures/village-day, the world alone; fixtures/day-of-three, with its
  recording exemplars/day-of-three.json) go into the wheel as package data
  under kernel/shipped/, so a kernel installed anywhere has them. They are
  copied at build time, not kept twice in the repository.
"""

from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
SHIPPED = ("configs", "fixtures/village-day", "fixtures/day-of-three",
           "exemplars/day-of-three.json")


class BuildWithShipped(build_py):
    def run(self):
        super().run()
        for rel in SHIPPED:
            src = HERE / rel
            for f in ([src] if src.is_file() else sorted(src.rglob("*"))):
                if f.is_file() and f.suffix in (".json", ".tmpl"):
                    dest = Path(self.build_lib) / "kernel" / "shipped" / f.relative_to(HERE)
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    self.copy_file(str(f), str(dest))


setup(ext_modules=[Extension("kernel.log._chain", ["kernel/log/_chain.c"],
                             libraries=["crypto", "z"], optional=True)],
      cmdclass={"build_py": BuildWithShipped})
