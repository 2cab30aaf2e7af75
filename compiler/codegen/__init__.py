"""Code generation: the runtime executable (MLIR bytecode + metadata) and the Poplar C++ emitter."""
