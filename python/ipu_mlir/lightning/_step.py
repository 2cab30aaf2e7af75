"""The module the IPU strategy compiles: one LightningModule step function as a forward.

``poptorch.trainingModel`` / ``inferenceModel`` compile a module's ``forward``. A
:class:`StepModule` holds the LightningModule and calls its ``training_step`` (or
``validation_step``, ``test_step``, ``predict_step``: the ``step_name`` of each wrapper's
shallow copy) on the batch. ``self.log`` / ``self.log_dict`` calls made while the step is
captured are recorded: their tensors become extra outputs of the compiled step, and the
strategy replays the calls with the values of every run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.utils import _pytree as pytree


@dataclass
class LogCall:
    name: str
    kwargs: dict[str, Any]
    output: int | None  # index among the step's logged tensors; None: a constant value
    value: Any = None
    scalar: bool = True


@dataclass
class StepRecord:
    """What the captured step logged, in call order (the last capture wins)."""

    calls: list[LogCall] = field(default_factory=list)
    has_output: bool = True


def _half_floats(value: Any) -> Any:
    return pytree.tree_map(
        lambda t: t.half() if isinstance(t, torch.Tensor) and t.is_floating_point() else t, value)


class _Call(torch.nn.Module):
    """Calls ``module.<step_name>(batch, *step_args)``; a module so that ``functional_call``
    can substitute its parameters (float16 compute over float32 weights)."""

    def __init__(self, module: torch.nn.Module) -> None:
        super().__init__()
        self.module = module

    def forward(self, batch: Any, step_name: str, step_args: tuple) -> Any:
        return getattr(self.module, step_name)(batch, *step_args)


class StepModule(torch.nn.Module):
    def __init__(self, lightning_module: torch.nn.Module, *, half_inputs: bool, half_compute_only: bool) -> None:
        super().__init__()
        self.inner = _Call(lightning_module)
        self.step_name = "training_step"
        self.step_args: tuple = (0,)
        self.half_inputs = half_inputs
        self.half_compute_only = half_compute_only  # "16-mixed": float32 weights, float16 compute
        self.records: dict[str, StepRecord] = {}  # shared by the wrappers' shallow copies

    def forward(self, batch: Any) -> Any:
        if self.half_inputs:
            batch = _half_floats(batch)
        record = StepRecord()
        tensors: list[torch.Tensor] = []
        with _recording(self.inner.module, record, tensors):
            if self.half_compute_only:
                halves = {name: p.half() for name, p in self.inner.named_parameters() if p.is_floating_point()}
                out = torch.func.functional_call(self.inner, halves, (batch, self.step_name, self.step_args))
            else:
                out = self.inner(batch, self.step_name, self.step_args)
        self.records[self.step_name] = record
        loss = out.get("loss") if isinstance(out, dict) else out
        if isinstance(loss, torch.Tensor):  # self.log(name, loss.detach()): log the loss itself, else the
            tensors = [loss if _same_data(t, loss) else t for t in tensors]  # copy counts as a second loss
        record.has_output = out is not None
        return (out if out is not None else (), tuple(tensors))


def _same_data(a: torch.Tensor, b: torch.Tensor) -> bool:
    """``a`` is ``b`` or an alias of all of it (``b.detach()``)."""
    if a is b:
        return True
    try:
        return (a.untyped_storage()._cdata == b.untyped_storage()._cdata and a.shape == b.shape
                and a.stride() == b.stride() and a.storage_offset() == b.storage_offset() and a.dtype == b.dtype)
    except (RuntimeError, NotImplementedError):  # a tensor without storage (functional tensors)
        return False


@contextlib.contextmanager
def _recording(module: torch.nn.Module, record: StepRecord, tensors: list[torch.Tensor]) -> Iterator[None]:
    """``module.log`` / ``module.log_dict`` record into ``record`` while the step is captured."""

    def log(name: str, value: Any, *args: Any, **kwargs: Any) -> None:
        if args:
            raise TypeError(f"self.log('{name}', ...): pass the options of self.log by keyword on the IPU")
        if isinstance(value, torch.Tensor):
            record.calls.append(LogCall(name, kwargs, len(tensors), scalar=value.numel() == 1))
            tensors.append(value)  # as is: a new node for the loss itself would count as a second loss
        else:
            record.calls.append(LogCall(name, kwargs, None, value))

    def log_dict(dictionary: Any, *args: Any, **kwargs: Any) -> None:
        if args:
            raise TypeError("self.log_dict(...): pass the options of self.log_dict by keyword on the IPU")
        for key, value in dict(dictionary).items():
            log(key, value, **kwargs)

    saved = {key: module.__dict__[key] for key in ("log", "log_dict") if key in module.__dict__}
    module.__dict__["log"], module.__dict__["log_dict"] = log, log_dict
    try:
        yield
    finally:
        for key in ("log", "log_dict"):
            module.__dict__.pop(key, None)
        module.__dict__.update(saved)


def replay(module: Any, record: StepRecord, values: tuple) -> None:
    """Call the LightningModule's real ``self.log`` with this run's values."""
    for call in record.calls:
        if call.output is None:
            module.log(call.name, call.value, **call.kwargs)
            continue
        value = values[call.output]
        if value.is_floating_point() and value.dtype != torch.float32:
            value = value.float()
        if call.scalar and value.numel() > 1:  # one value per device iteration: their mean
            value = value.float().mean()
        module.log(call.name, value.reshape(()) if call.scalar else value, **call.kwargs)
