"""Random distributions, copies, resize and the other leftovers of the op sweep end to end
through ``poptorch``.

Deterministic ops compare with eager PyTorch (FP32 for floats, integers exactly, eager's
dtypes); random draws cannot match eager's numbers: they must have eager's dtype and shape,
repeat under the same ``Options.randomSeed``, change with another seed and follow their
distribution.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from helpers.op_runs import FunctionModel, check_inference

import poptorch

_G = torch.Generator().manual_seed(0)
X = torch.randn(3, 4, generator=_G)

CASES: dict[str, tuple[Callable, tuple]] = {
    # -- resize: self's first elements in row-major order ----------------------------------
    "resize_shrinks": (lambda x: x.clone().resize_(2, 5) * 2, (X,)),
    "resize_as_shrinks": (lambda x: x.clone().resize_as_(torch.ones(2, 2)), (X,)),
    "resize_as_same_numel": (lambda x: x.clone().resize_as_(torch.ones(4, 3)) + 1, (X,)),
    "resize_functional": (lambda x: torch.ops.aten.resize(x, [6]), (X,)),
    # eager leaves the grown elements uninitialised: only the first 12 are compared
    "resize_grows": (lambda x: torch.ops.aten.resize(x, [4, 4]).flatten()[:12], (X,)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_op_matches_eager(name: str) -> None:
    fn, inputs = CASES[name]
    check_inference(fn, *inputs)


def test_a_grown_resize_is_zero_beyond_the_old_elements() -> None:
    got = poptorch.inferenceModel(FunctionModel(lambda x: torch.ops.aten.resize(x, [4, 4])))(X)
    assert torch.equal(got.flatten()[12:], torch.zeros(4))
