"""The compiled artifact that the compiler hands to the runtime: a ``poplar.graph`` as
MLIR bytecode plus a metadata record. It is the only thing compiler and runtime share."""
