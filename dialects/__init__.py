"""The ipu-mlir dialects (``ipu``, ``pipeline``, ``poplar``), defined in Python with
``torch_mlir.dialects.ext``.

``load_all(ctx)`` loads them into a context that already has the torch dialect;
``irdl_text(name)`` gives a dialect's IRDL form, which ``python -m ipu_mlir.dialects``
writes to ``dialects/<name>.irdl.mlir`` for ``torch-mlir-opt --irdl-file``.
"""

from pathlib import Path

from torch_mlir import ir
from torch_mlir._mlir_libs import _mlir

from . import ipu, pipeline, poplar

DIALECTS = {"ipu": ipu.Ipu, "pipeline": pipeline.Pipeline, "poplar": poplar.Poplar}

# MLIR's bindings import a dialect's Python module (``<prefix>.<dialect>``) before building
# an op view of it, and remember only successes: without our package as a prefix, every op
# of our dialects that Python touches retried (and failed) the import of
# ``torch_mlir.dialects.poplar``, and a block walk of a large graph spent most of its time in
# importlib (a 4-layer BERT compile: 28 of 56 s).
if __name__ not in _mlir.globals.dialect_search_modules:
    _mlir.globals.append_dialect_search_prefix(__name__)
_TRAITS = {"ipu": ipu.register_traits, "pipeline": pipeline.register_traits, "poplar": poplar.register_traits}

IRDL_DIR = Path(__file__).resolve().parent


def load_all(ctx: ir.Context) -> None:
    """Load the three dialects into ``ctx`` (idempotent per context)."""
    with ctx, ir.Location.unknown(ctx):
        for name, dialect in DIALECTS.items():
            if ctx.is_dialect_loaded(name):
                continue
            dialect.load()
            _TRAITS[name]()


def make_context() -> ir.Context:
    """A new context with the torch dialect registered and our dialects loaded."""
    # The native registration, not ``torch_mlir.dialects.torch``: that module also builds
    # the Python classes of the torch dialect's ~1700 ops (0.06-0.09 s), which a loaded
    # executable (a poplar graph) never uses; the bindings import it when an op view of
    # the torch dialect is first needed (capture imports it anyway).
    from torch_mlir._mlir_libs._torchMlir import register_dialect

    ctx = ir.Context()
    register_dialect(ctx)
    ctx.allow_unregistered_dialects = False
    load_all(ctx)
    return ctx


def irdl_text(name: str) -> str:
    """The IRDL module of dialect ``name``, as the generated ``.irdl.mlir`` file holds it."""
    ctx = ir.Context()
    with ctx, ir.Location.unknown(ctx):
        module = DIALECTS[name]._emit_module()
        header = (
            f"// IRDL definition of the '{name}' dialect, generated from {_source_of(name)}.\n"
            "// Do not edit: regenerate with `python -m ipu_mlir.dialects`.\n"
            f"// Use: torch-mlir-opt --irdl-file=dialects/{name}.irdl.mlir <file>\n"
        )
        return header + str(module)


def _source_of(name: str) -> str:
    """Where dialect ``name`` is defined: ``dialects/<name>.py`` or the package ``dialects/<name>/``."""
    return f"dialects/{name}/" if (IRDL_DIR / name).is_dir() else f"dialects/{name}.py"


def irdl_path(name: str) -> Path:
    return IRDL_DIR / f"{name}.irdl.mlir"


def write_irdl() -> list[Path]:
    """Regenerate every ``dialects/<name>.irdl.mlir``; returns the files written."""
    written = []
    for name in DIALECTS:
        path = irdl_path(name)
        path.write_text(irdl_text(name))
        written.append(path)
    return written
