"""The C++ compile time of each round-trip model, filled by test_roundtrip.py and printed by
this directory's conftest at the end of the run."""

COMPILE_SECONDS: dict[str, float] = {}
