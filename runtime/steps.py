"""The closures a decoded program is made of. A step takes the environment (a flat list
with one slot per value) and reads and writes its slots; these helpers build the common
shapes of step once, at decode time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Step = Callable[[list], None]


def compute(fn: Callable[..., Any], ins: tuple[int, ...], out: int) -> Step:
    """``env[out] = fn(*env[ins])``."""
    if len(ins) == 1:
        (a,) = ins

        def unary(env: list) -> None:
            env[out] = fn(env[a])

        return unary
    if len(ins) == 2:
        a, b = ins

        def binary(env: list) -> None:
            env[out] = fn(env[a], env[b])

        return binary

    def nary(env: list) -> None:
        env[out] = fn(*[env[i] for i in ins])

    return nary


def compute_multi(fn: Callable[..., tuple], ins: tuple[int, ...], outs: tuple[int, ...]) -> Step:
    """``env[outs] = fn(*env[ins])`` for a function returning several results."""

    def multi(env: list) -> None:
        results = fn(*[env[i] for i in ins])
        for slot, value in zip(outs, results, strict=True):
            env[slot] = value

    return multi


def compute_in_place(fn: Callable[..., Any], ins: tuple[int, ...]) -> Step:
    """``fn(*env[ins])`` for an op with no result: it writes into its operands."""
    if len(ins) == 3:
        a, b, c = ins

        def ternary(env: list) -> None:
            fn(env[a], env[b], env[c])

        return ternary

    def nary(env: list) -> None:
        fn(*[env[i] for i in ins])

    return nary


def with_kills(step: Step, dead: tuple[int, ...]) -> Step:
    """``step``, then free the slots of temporaries it read for the last time."""

    def run_and_free(env: list) -> None:
        step(env)
        for slot in dead:
            env[slot] = None

    return run_and_free


def sequence(steps: list[Step]) -> Step:
    def run(env: list) -> None:
        for step in steps:
            step(env)

    return run


def repeat(count: int, steps: list[Step]) -> Step:
    def run(env: list) -> None:
        for _ in range(count):
            for step in steps:
                step(env)

    return run


def take(held: int, result: int) -> Step:
    """A restore or a recv: ``result`` takes the micro-batch's value held in slot ``held``."""

    def run(env: list) -> None:
        env[result] = env[held]
        env[held] = None

    return run
