"""`pip install --no-build-isolation .`: the Python module (python/) built by
CMake, so the compiler flags, warnings and link are the project's own, and
installed with its type stubs. setuptools only drives CMake: Debian ships no
scikit-build, and only Debian packages are used (python3-setuptools,
pybind11-dev, python3-dev). The build folder is build/pip, so a second
install rebuilds only what changed."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = Path(os.environ.get("SAFESPEC_PIP_BUILD", ROOT / "build" / "pip"))
        # The interpreter running pip is the one the module is for.
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                        "-DSAFESPEC_TESTS=OFF", "-DSAFESPEC_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}"],
                       check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        subprocess.run(["cmake", "--build", str(build), "--target", "safespec_python", "-j", jobs], check=True)
        built = next((build / "python").glob("safespec*.so"))
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)
        shutil.copyfile(ROOT / "python" / "safespec.pyi", target.parent / "safespec.pyi")


def suite_data_files():
    """(share/safespec/conformance/SUB, [files]) for the suite's folder and
    each of its subfolders (the shard index cases), paths relative to here."""
    suite = ROOT / "corpus" / "conformance"
    out = []
    for folder in [suite, *sorted(p for p in suite.rglob("*") if p.is_dir())]:
        files = [str(p.relative_to(ROOT)) for p in sorted(folder.iterdir()) if p.is_file()]
        if files:
            out.append((str(Path("share/safespec/conformance") / folder.relative_to(suite)), files))
    return out


setup(
    name="safespec",
    version="0.1.0",
    description="The executable specification of safetensors and comfy_quant layers, in-process",
    ext_modules=[Extension("safespec", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # The suite where conformance_cases() looks for an installed one
    # (share/safespec/conformance under sys.prefix or a --target folder).
    data_files=suite_data_files(),
    zip_safe=False,
)
