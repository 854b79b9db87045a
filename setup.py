"""The one compiled part: kernel/log/_chain.c, the chain check at the speed of sha256.

Optional: where it does not build (no C compiler, no OpenSSL or zlib
headers), the install goes on and the log verifies in Python by the same rules.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("kernel.log._chain", ["kernel/log/_chain.c"],
                             libraries=["crypto", "z"], optional=True)])
