"""The compiler: frontend capture, passes (one per file), named pipelines, codegen and the pass registry."""
