"""lit configuration of the ipu-mlir IR tests (test/Dialect, test/Transforms, test/Translate).

Tools come from the active environment: ``ipu-opt`` and ``ipu-translate`` (our console
scripts), ``torch-mlir-opt`` (from the torch-mlir wheel) and the Python ``filecheck``.
"""

import os
import shutil
import sys

import lit.formats

config.name = "ipu-mlir"
# lit 23: ShTest with execute_external=True raises; the internal shell is enough.
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir"]
config.excludes = ["python", "Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "Output")

repo_root = os.path.dirname(config.test_source_root)
bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])
for name in ("HOME", "TMPDIR", "IPU_MLIR_REPRO_DIR"):
    if name in os.environ:
        config.environment[name] = os.environ[name]


def tool(name):
    found = shutil.which(name, path=config.environment["PATH"])
    if found is None:
        lit_config.fatal(f"'{name}' not found on PATH; install the project (pip install -e '.[test]')")
    return found


config.substitutions.append(("%PYTHON", sys.executable))
config.substitutions.append(("%irdl_dir", os.path.join(repo_root, "dialects")))
config.substitutions.append(("FileCheck", tool("filecheck")))
config.substitutions.append(("ipu-opt", tool("ipu-opt")))
config.substitutions.append(("torch-mlir-opt", tool("torch-mlir-opt")))
