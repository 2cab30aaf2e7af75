"""The IPU Model runtime: target description, executable loader, program interpreter, emulated devices."""
