"""Copies the C library and the built plans into the package at build
time (pyproject.toml has the metadata): the installed package then needs
neither the repository nor TOLPROOF_LIB."""
import glob
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class build_py_with_lib(build_py):
    def run(self):
        super().run()
        lib = os.path.join(ROOT, "build", "libtolproof.so")
        if not os.path.exists(lib):
            raise SystemExit("tolproof: %s not found: run `ninja lib` in %s first" % (lib, ROOT))
        dest = os.path.join(self.build_lib, "tolproof", "_lib")
        os.makedirs(os.path.join(dest, "gen"), exist_ok=True)
        shutil.copy2(lib, dest)
        for plan in glob.glob(os.path.join(ROOT, "build", "gen", "*.plan.json")):
            shutil.copy2(plan, os.path.join(dest, "gen"))


setup(cmdclass={"build_py": build_py_with_lib})
