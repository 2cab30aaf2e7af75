"""``poptorch.custom_op`` and ``poptorch.register_custom_op``: user ops the compiler keeps
as one op (``poplar.custom_op``) and the IPU Model runs with the user's implementation.

How to give the emulator an implementation, for an op ``name`` of ``domain``:

* a Python function: ``poptorch.register_custom_op(name, domain, forward, backward=None)``.
  ``forward(*inputs, **attributes)`` returns one tensor or a tuple (one per example
  output). ``backward(inputs, outputs, grad_outputs, **attributes)`` returns one gradient
  (or None) per input; without it, training differentiates ``forward`` with torch autograd.
* a torch.library op ``domain::name`` (``torch.library.custom_op("mylib::scale", ...)``,
  a Python identifier as domain and name): it is called with the inputs and the
  attributes as keyword arguments, and its registered autograd gives the gradient.

A registered Python function wins over a torch.library op of the same name. An op with
neither is an error when the model is compiled (and off the IPU, when it is called).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import torch

from ipu_mlir.support.host_functions import CustomOpImplementation
from ipu_mlir.support.host_functions import register_custom_op as _register

from .ops import _tracing


def register_custom_op(name: str, domain: str, forward: Callable[..., Any],
                       backward: Callable[..., Any] | None = None) -> None:
    """Give the IPU Model the implementation of the custom op ``name`` of ``domain``
    (replacing an earlier one).

    >>> poptorch.register_custom_op("Cube", "custom.ops", lambda x: x ** 3,
    ...                             backward=lambda ins, outs, grads: (3 * ins[0] ** 2 * grads[0],))
    """
    for label, value in (("name", name), ("domain", domain)):
        if not isinstance(value, str) or (label == "name" and not value):
            raise TypeError(f"register_custom_op: {label} must be a{' non-empty' if label == 'name' else ''} str, got {value!r}")
    if not callable(forward):
        raise TypeError(f"register_custom_op: forward must be callable, got {type(forward).__name__}")
    if backward is not None and not callable(backward):
        raise TypeError(f"register_custom_op: backward must be callable or None, got {type(backward).__name__}")
    _register(CustomOpImplementation(domain, name, forward, backward))


def _check_attributes(attributes: Any) -> dict[str, Any]:
    if attributes is None:
        return {}
    if not isinstance(attributes, dict):
        raise TypeError(f"custom_op: attributes must be a dict, got {type(attributes).__name__}")
    checked = {}
    for key, value in attributes.items():
        if not isinstance(key, str):
            raise TypeError(f"custom_op: attribute keys must be strings, got {key!r}")
        items = list(value) if isinstance(value, (list, tuple)) else None
        kinds = {type(v) for v in (items if items is not None else [value])}
        if any(kind not in (float, int, str) for kind in kinds) or (items is not None and len(kinds) > 1):
            raise TypeError(f"custom_op: attribute \"{key}\" = {value!r}: values must be floats, ints, strings, or a "
                            "list/tuple of only floats, only ints or only strings")
        checked[key] = items if items is not None else value
    return checked


class _WithBackward(torch.autograd.Function):
    """Off the IPU: the registered forward, differentiated by the registered backward."""

    @staticmethod
    def forward(ctx, forward, backward, attributes, *inputs):  # noqa: ANN001, ANN205
        from ipu_mlir.compiler.frontend.host_ops import as_tuple

        outputs = as_tuple(forward(*inputs, **attributes), "the custom op")
        ctx.backward, ctx.attributes = backward, attributes
        ctx.save_for_backward(*inputs, *outputs)
        ctx.count = len(inputs)
        return outputs

    @staticmethod
    def backward(ctx, *grads):  # noqa: ANN001, ANN205
        saved = ctx.saved_tensors
        found = ctx.backward(saved[:ctx.count], saved[ctx.count:], grads, **ctx.attributes)
        found = tuple(found) if isinstance(found, (tuple, list)) else (found,)
        return (None, None, None, *found)


class custom_op:  # noqa: N801 - PopTorch's name
    """Apply the custom op ``name`` of ``domain`` (version ``domain_version``) to ``inputs``.

    ``example_outputs`` give the outputs' shapes and dtypes (their values do not matter);
    ``attributes`` (str keys; floats, ints, strings or lists of one of them) are passed to
    the implementation as keyword arguments. The result holds the outputs:
    ``out = poptorch.custom_op(...); out[0]``. In a compiled model the op is one
    ``poplar.custom_op`` carrying name, domain, version and attributes; see
    ``poptorch.register_custom_op`` (or a torch.library op ``domain::name``) for how to give
    the IPU Model its implementation and gradient.

    >>> poptorch.register_custom_op("LeakyRelu", "custom.ops", lambda x, alpha: F.leaky_relu(x, alpha))
    >>> out = poptorch.custom_op((x,), "LeakyRelu", "custom.ops", 1, example_outputs=(x,), attributes={"alpha": 0.1})
    >>> y = out[0]
    """

    def __init__(self, inputs: tuple, name: str, domain: str, domain_version: int, example_outputs: Any,
                 attributes: dict[str, Any] | None = None) -> None:
        from ipu_mlir.compiler.frontend import host_ops

        if not isinstance(inputs, (tuple, list)) or not all(isinstance(x, torch.Tensor) for x in inputs):
            raise TypeError(f"custom_op: inputs must be a tuple of tensors, e.g. (x, y), got {inputs!r}")
        if not isinstance(name, str) or not name:
            raise TypeError(f"custom_op: name must be a non-empty str, got {name!r}")
        if not isinstance(domain, str):
            raise TypeError(f"custom_op: domain must be a str, got {domain!r}")
        if isinstance(domain_version, bool) or not isinstance(domain_version, int) or domain_version < 0:
            raise TypeError(f"custom_op: domain_version must be an int >= 0, got {domain_version!r}")
        examples = list(example_outputs) if isinstance(example_outputs, (tuple, list)) else [example_outputs]
        if not examples or not all(isinstance(t, torch.Tensor) for t in examples):
            raise TypeError(f"custom_op: example_outputs must be a non-empty tuple of tensors, got {example_outputs!r}")
        checked = _check_attributes(attributes)
        forward, backward = host_ops.resolve_custom_op(domain, name)  # unregistered: the error says how to register
        if _tracing():
            outputs = host_ops.custom_op(list(inputs), name, domain, domain_version, json.dumps(checked),
                                         host_ops.encode_outputs(examples))
        elif backward is not None:
            outputs = _WithBackward.apply(forward, backward, checked, *inputs)
        else:
            outputs = host_ops.as_tuple(forward(*inputs, **checked), f"custom op \"{name}\"")
        if len(outputs) != len(examples) or any(o.shape != e.shape or o.dtype != e.dtype for o, e in zip(outputs, examples, strict=False)):
            got = [f"{str(o.dtype).removeprefix('torch.')}{list(o.shape)}" for o in outputs]
            want = [f"{str(e.dtype).removeprefix('torch.')}{list(e.shape)}" for e in examples]
            raise RuntimeError(f"custom_op \"{name}\": the implementation returned {got}, the example outputs say {want}")
        self._outputs = list(outputs)

    def __getitem__(self, index: int) -> torch.Tensor:
        return self._outputs[index]

    def __len__(self) -> int:
        return len(self._outputs)

    def __iter__(self) -> Iterator[torch.Tensor]:
        return iter(self._outputs)
