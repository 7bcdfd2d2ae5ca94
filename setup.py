# SPDX-License-Identifier: MIT
"""pip install . : the trawl package from python/trawl, its extension built
by the project's Meson build (libtrawl linked in statically) in build-pip/,
never in the build/ of `make`."""
import os
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

TOP = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(TOP, "build-pip")


def version():
    with open(os.path.join(TOP, "meson.build")) as f:
        return re.search(r"version\s*:\s*'([^']+)'", f.read()).group(1)


class MesonBuildExt(build_ext):
    def build_extension(self, ext):
        meson = os.path.join(BUILD, "meson")
        if not os.path.exists(os.path.join(meson, "build.ninja")):
            subprocess.check_call(
                ["meson", "setup", meson, "--buildtype=release",
                 "-Dtests=false", "-Dpython=enabled"], cwd=TOP)
        target = "python/trawl/_trawl" + sysconfig.get_config_var(
            "EXT_SUFFIX")
        subprocess.check_call(["ninja", "-C", meson, "-j2", target], cwd=TOP)
        built = [f for f in os.listdir(os.path.join(meson, "python",
                                                    "trawl"))
                 if f.startswith("_trawl") and f.endswith(".so")]
        if len(built) != 1:
            sys.exit("setup.py: meson built no _trawl extension")
        out = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copyfile(os.path.join(meson, "python", "trawl", built[0]),
                        out)


os.makedirs(BUILD, exist_ok=True)
setup(
    version=version(),
    packages=["trawl"],
    package_dir={"trawl": "python/trawl"},
    package_data={"trawl": []},
    exclude_package_data={"trawl": ["meson.build"]},
    ext_modules=[Extension("trawl._trawl", sources=[])],
    cmdclass={"build_ext": MesonBuildExt},
    options={"build": {"build_base": os.path.join(BUILD, "setuptools")},
             "egg_info": {"egg_base": BUILD}},
)
