"""The error the Poplar C++ emitter raises: what could not be emitted, where, and why."""


class CodegenError(Exception):
    """An op or attribute the emitter has no C++ for; the message names it."""
