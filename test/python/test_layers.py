"""The layers import one way only (docs/ARCHITECTURE.md, "Layers").

The test reads every module's imports with ``ast`` (including imports inside
functions) and fails on any edge that goes the wrong way:

    poptorch -> driver -> compiler -> artifact <- runtime
                          dialects, support (under everything)

``compiler`` and ``runtime`` never import each other or anything above them; a pass
never imports another pass; ``support`` imports no other ipu-mlir package; nothing uses
``sys.modules`` to reach a module it does not import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# folder -> the ipu_mlir package it holds (pyproject.toml package-dir)
PACKAGES = {
    "support": "ipu_mlir.support",
    "dialects": "ipu_mlir.dialects",
    "compiler": "ipu_mlir.compiler",
    "artifact": "ipu_mlir.artifact",
    "runtime": "ipu_mlir.runtime",
    "driver": "ipu_mlir.driver",
    "tools": "ipu_mlir.tools",
    "python/ipu_mlir": "ipu_mlir",
    "python/poptorch": "poptorch",
}

# layer -> the layers it may import (besides itself)
ALLOWED = {
    "support": set(),
    "dialects": {"support"},
    "artifact": {"support", "dialects"},
    "compiler": {"support", "dialects", "artifact"},
    "runtime": {"support", "dialects", "artifact"},
    "driver": {"support", "dialects", "artifact", "compiler", "runtime"},
    "tools": {"support", "dialects", "artifact", "compiler"},
    "ipu_mlir": {"driver"},
    "lightning": {"poptorch"},  # ipu_mlir.lightning: the Lightning strategy over the PopTorch API
    "poptorch": {"support", "driver", "compiler.frontend"},
}


def _layer_of_module(module: str) -> str | None:
    """The layer of a dotted module name (``ipu_mlir.compiler.frontend.x`` -> "compiler")."""
    if module == "poptorch" or module.startswith("poptorch."):
        return "poptorch"
    if not module.startswith("ipu_mlir"):
        return None
    parts = module.split(".")
    if len(parts) == 1:
        return "ipu_mlir"
    return parts[1]


def _modules() -> list[tuple[str, Path, str]]:
    """(dotted name, path, layer) of every Python module of the project."""
    found = []
    for folder, package in PACKAGES.items():
        base = ROOT / folder
        for path in sorted(base.rglob("*.py")):
            relative = path.relative_to(base).with_suffix("")
            parts = [p for p in relative.parts if p != "__init__"]
            if folder == "python/ipu_mlir" and parts and parts[0] != "lightning":
                continue  # only the top-level ipu_mlir/__init__.py and ipu_mlir.lightning live there
            name = ".".join([package, *parts])
            found.append((name, path, _layer_of_module(name) or "?"))
    return found


def _imports(name: str, path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in the file, relative ones resolved."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rsplit(".", 1)[0]
    edges = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            edges.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if node.module:
                edges.append((node.lineno, module))
            # ``from pkg import name`` may import the submodule pkg.name (another pass,
            # a layer under ipu_mlir): check the full name too.
            edges.extend((node.lineno, f"{module}.{alias.name}") for alias in node.names if alias.name != "*")
    return edges


def _allowed(source_layer: str, target: str) -> bool:
    target_layer = _layer_of_module(target)
    if target_layer is None or target_layer == source_layer:
        return True
    allowed = ALLOWED.get(source_layer, set())
    if target_layer in allowed:
        return True
    # poptorch's ops and annotations register with the capture frontend (custom ops,
    # the tracing flag); nothing else of the compiler.
    return any(target == f"ipu_mlir.{a}" or target.startswith(f"ipu_mlir.{a}.") for a in allowed if "." in a)


MODULES = _modules()


def test_every_layer_is_known() -> None:
    assert {layer for _, _, layer in MODULES} <= set(ALLOWED), "a module outside the known layers"
    assert len(MODULES) > 40


@pytest.mark.parametrize("name,path,layer", MODULES, ids=[m[0] for m in MODULES])
def test_imports_go_one_way(name: str, path: Path, layer: str) -> None:
    wrong = [f"{path.relative_to(ROOT)}:{line}: {layer} imports {target}"
             for line, target in _imports(name, path) if not _allowed(layer, target)]
    assert not wrong, "imports against the layer order:\n" + "\n".join(wrong)


@pytest.mark.parametrize("name,path,layer", [m for m in MODULES if m[0].startswith("ipu_mlir.compiler.transforms.")],
                         ids=[m[0] for m in MODULES if m[0].startswith("ipu_mlir.compiler.transforms.")])
def test_a_pass_never_imports_another_pass(name: str, path: Path, layer: str) -> None:
    prefix = "ipu_mlir.compiler.transforms."
    own = name[len(prefix):].split(".")[0]  # a pass is a module or a package of modules
    others = [f"{path.relative_to(ROOT)}:{line}: imports {target}" for line, target in _imports(name, path)
              if target.startswith(prefix) and target[len(prefix):].split(".")[0] != own]
    assert not others, "a pass imports another pass; move the shared helper to compiler/ or dialects/:\n" + "\n".join(others)


def test_ipu_opt_does_not_import_torch_through_the_layers() -> None:
    """What ipu-opt and ipu-translate load (support, dialects, artifact, tools, and the
    compiler but its capture frontend) never imports torch at module level."""
    offenders = []
    for name, path, layer in MODULES:
        if layer not in ("support", "dialects", "artifact", "tools", "compiler") or name.startswith("ipu_mlir.compiler.frontend"):
            continue
        tree = ast.parse(path.read_text())
        for node in tree.body:  # module level only: a function may import torch lazily
            targets = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            offenders += [f"{name}:{node.lineno}" for t in targets if t == "torch" or t.startswith("torch.")]
    assert not offenders, offenders


def test_no_sys_modules_tricks() -> None:
    offenders = [f"{path.relative_to(ROOT)}" for _, path, _ in MODULES if "sys.modules" in path.read_text()]
    assert not offenders, "reach a module by importing it, not through sys.modules: " + ", ".join(offenders)


def test_the_checker_sees_a_wrong_way_edge(tmp_path: Path) -> None:
    """The import reader resolves relative imports, so an upward edge cannot hide."""
    module = tmp_path / "x.py"
    module.write_text("from ..compiler import pass_base\nimport ipu_mlir.driver\n"
                      "def later():\n    from ipu_mlir import runtime\n")
    edges = [target for _, target in _imports("ipu_mlir.runtime.x", module)]
    assert edges == ["ipu_mlir.compiler", "ipu_mlir.compiler.pass_base", "ipu_mlir.driver", "ipu_mlir", "ipu_mlir.runtime"]
    assert not _allowed("runtime", "ipu_mlir.compiler.pass_base")
    assert not _allowed("runtime", "ipu_mlir.driver")
    assert not _allowed("compiler", "ipu_mlir.runtime")
    assert _allowed("driver", "ipu_mlir.runtime.interpreter")


def test_the_checker_sees_a_pass_importing_another(tmp_path: Path) -> None:
    """An absolute ``from ...transforms import other_pass`` names the other pass."""
    module = tmp_path / "x.py"
    module.write_text("from ipu_mlir.compiler.transforms import poplar_map_tiles\n")
    edges = [target for _, target in _imports("ipu_mlir.compiler.transforms.poplar_plan_memory", module)]
    assert "ipu_mlir.compiler.transforms.poplar_map_tiles" in edges
