"""Regenerates the dialects' ``.irdl.mlir`` files: ``python -m ipu_mlir.dialects``."""

from . import write_irdl

if __name__ == "__main__":
    for path in write_irdl():
        print(f"wrote {path}")
