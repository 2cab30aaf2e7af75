"""Losses as PopTorch finds them (SEMANTICS.md "Training / The loss"): the result of any
PyTorch loss function, in its functional form or as a loss module (registered or called
inline), ``poptorch.identity_loss``, or one tensor combining several; each trains and
matches eager. No loss, and several independent losses, are errors with our messages.

The loss functions are enumerated from ``torch.nn.functional`` and the loss modules from
``nn.modules.loss._Loss``; a loss torch adds later fails ``test_every_loss_has_a_case``
until it gets a case here.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import re
from collections.abc import Callable
from typing import Any

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from helpers import FP32
from helpers.checks import assert_parameters_close
from torch.nn.functional import mse_loss  # a loss bound by name: still found

import poptorch
from ipu_mlir.compiler.frontend.losses import loss_functions

B, IN = 4, 6


def _labels(n: int, classes: int) -> torch.Tensor:
    return torch.randint(0, classes, (n,))


def _signs(*shape: int) -> torch.Tensor:
    return torch.randint(0, 2, shape).float() * 2 - 1


def _multilabel() -> torch.Tensor:
    """multilabel_margin_loss targets: class indices, ended by -1."""
    return torch.tensor([[3, 0, -1, 1], [1, 2, 3, -1], [0, -1, 2, 2], [2, 1, 0, 3]])


@dataclasses.dataclass
class Case:
    """One loss function ``F.<name>``: the width of the linear layer's output ``o``, how
    the loss ``fn`` is applied to ``o`` and the targets, the targets of a batch, and the
    loss module (None: the function has none). The functional form calls
    ``F.<name>(..., **kwargs)``, the module form ``module(**kwargs)(...)``."""

    width: int
    apply: Callable[..., torch.Tensor]
    targets: Callable[[], tuple[torch.Tensor, ...]]
    module: type[nn.Module]
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)


def _halves(o: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return o[:, : o.shape[1] // 2], o[:, o.shape[1] // 2 :]


def _thirds(o: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return o[:, :3], o[:, 3:6], o[:, 6:]


def _ctc(fn: Callable, o: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """CTC over T=5 steps of C=4 classes; lengths as int lists (tensor lengths make torch's
    CTC output shape depend on their values, which no static program can have)."""
    log_probs = o.reshape(B, 5, 4).transpose(0, 1).log_softmax(2)
    return fn(log_probs, targets, [5] * B, [3, 2, 3, 1])


def _same(fn: Callable, o: torch.Tensor, *targets: torch.Tensor) -> torch.Tensor:
    return fn(o, *targets)


CASES: dict[str, Case] = {
    "binary_cross_entropy": Case(3, lambda fn, o, t: fn(torch.sigmoid(o), t), lambda: (torch.rand(B, 3),), nn.BCELoss),
    "binary_cross_entropy_with_logits": Case(3, _same, lambda: (torch.rand(B, 3),), nn.BCEWithLogitsLoss),
    "cosine_embedding_loss": Case(6, lambda fn, o, y: fn(*_halves(o), y), lambda: (_signs(B),), nn.CosineEmbeddingLoss,
                                  {"margin": 0.2}),
    "cross_entropy": Case(5, _same, lambda: (_labels(B, 5),), nn.CrossEntropyLoss, {"label_smoothing": 0.1}),
    "ctc_loss": Case(20, _ctc, lambda: (torch.randint(1, 4, (B, 3)),), nn.CTCLoss),
    # var as a float: a tensor var makes gaussian_nll_loss check its values in Python (see the error test below)
    "gaussian_nll_loss": Case(3, lambda fn, o, t: fn(o, t, 0.5), lambda: (torch.randn(B, 3),), nn.GaussianNLLLoss),
    "hinge_embedding_loss": Case(3, _same, lambda: (_signs(B, 3),), nn.HingeEmbeddingLoss),
    "huber_loss": Case(3, _same, lambda: (torch.randn(B, 3),), nn.HuberLoss, {"delta": 0.5}),
    "kl_div": Case(4, lambda fn, o, t: fn(o.log_softmax(1), t), lambda: (torch.rand(B, 4).softmax(1),), nn.KLDivLoss,
                   {"reduction": "batchmean"}),
    "l1_loss": Case(3, _same, lambda: (torch.randn(B, 3),), nn.L1Loss),
    "linear_cross_entropy": Case(4, _same, lambda: (_labels(B, 5),), nn.LinearCrossEntropyLoss),
    "margin_ranking_loss": Case(2, lambda fn, o, y: fn(o[:, 0], o[:, 1], y), lambda: (_signs(B),), nn.MarginRankingLoss,
                                {"margin": 0.1}),
    "mse_loss": Case(3, _same, lambda: (torch.randn(B, 3),), nn.MSELoss),
    "multi_margin_loss": Case(5, _same, lambda: (_labels(B, 5),), nn.MultiMarginLoss),
    "multilabel_margin_loss": Case(4, _same, lambda: (_multilabel(),), nn.MultiLabelMarginLoss),
    "multilabel_soft_margin_loss": Case(3, _same, lambda: (torch.randint(0, 2, (B, 3)).float(),), nn.MultiLabelSoftMarginLoss),
    "nll_loss": Case(5, lambda fn, o, t: fn(o.log_softmax(1), t), lambda: (_labels(B, 5),), nn.NLLLoss),
    "poisson_nll_loss": Case(3, _same, lambda: (torch.rand(B, 3) * 3,), nn.PoissonNLLLoss),
    "smooth_l1_loss": Case(3, _same, lambda: (torch.randn(B, 3),), nn.SmoothL1Loss, {"beta": 0.5}),
    "soft_margin_loss": Case(3, _same, lambda: (_signs(B, 3),), nn.SoftMarginLoss),
    "triplet_margin_loss": Case(9, lambda fn, o: fn(*_thirds(o)), lambda: (), nn.TripletMarginLoss),
    "triplet_margin_with_distance_loss": Case(9, lambda fn, o: fn(*_thirds(o)), lambda: (), nn.TripletMarginWithDistanceLoss),
}
# linear_cross_entropy's module builds its classifier from sizes; the functional form takes the weight.
_MODULE_ARGS = {"linear_cross_entropy": {"in_features": 4, "num_classes": 5}}


class FunctionalLoss(nn.Module):
    """A linear layer and the case's loss, called as its functional form."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.case = CASES[name]
        self.linear = nn.Linear(IN, self.case.width)
        self.fn = functools.partial(getattr(F, name), **self.case.kwargs)
        if name == "linear_cross_entropy":  # the functional form takes the classifier weight, its module holds one
            self.classifier = nn.Parameter(torch.randn(5, 4) * 0.3)
            self.fn = self._linear_cross_entropy

    def _linear_cross_entropy(self, o: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.linear_cross_entropy(o, self.classifier, target)

    def forward(self, x: torch.Tensor, *targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.linear(x)
        return out, self.case.apply(self.fn, out, *targets)


class ModuleLoss(FunctionalLoss):
    """The same, with the case's loss module registered as a child and called in its place."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.fn = self.case.module(**self.case.kwargs, **_MODULE_ARGS.get(name, {}))


def train_and_compare(model: nn.Module, batches: list[tuple[torch.Tensor, ...]], *, lr: float = 0.05,
                      loss_of: Callable[[Any], torch.Tensor] = lambda out: out[1]) -> None:
    """Two (or more) SGD steps on the IPU Model and in eager: the same losses, then the same weights."""
    reference = copy.deepcopy(model)
    eager_optimizer = torch.optim.SGD(reference.parameters(), lr=lr)
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=lr))
    for step, batch in enumerate(batches):
        got = loss_of(training(*batch))
        eager_optimizer.zero_grad()
        want = loss_of(reference(*batch))
        want.backward()
        eager_optimizer.step()
        torch.testing.assert_close(got.detach(), want.detach(), **FP32, msg=lambda m, s=step: f"loss of step {s}: {m}")
    training.copyWeightsToHost()
    assert_parameters_close(model, reference)


def _batches(case: Case, steps: int = 2) -> list[tuple[torch.Tensor, ...]]:
    return [(torch.randn(B, IN), *case.targets()) for _ in range(steps)]


# =======================================================================================
# Every loss function and module
# =======================================================================================
def _module_functionals() -> dict[type, set[str]]:
    """The F.<name> each public loss module's forward calls (read from its source)."""
    found: dict[type, set[str]] = {}
    pending = [nn.modules.loss._Loss]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if not cls.__name__.startswith("_") and cls.__module__.startswith("torch.nn"):
            found[cls] = set(re.findall(r"\bF\.(\w+)\(", inspect.getsource(cls.forward)))
    return found


def test_every_loss_has_a_case() -> None:
    """Every loss function torch has (F and torch namespaces) is one the capture marks,
    and every F loss and loss module has a case below."""
    functional = {fn.__name__ for fn in loss_functions() if getattr(F, fn.__name__, None) is fn}
    assert functional == set(CASES), "add a Case for each new loss function"
    modules = {case.module for case in CASES.values()}
    for module, calls in _module_functionals().items():
        assert calls and calls <= set(CASES), f"{module.__name__} calls {calls}"
        # NLLLoss2d, deprecated, is NLLLoss under another name (a subclass with its forward).
        assert module in modules or module.forward in {m.forward for m in modules}, f"add a case for {module.__name__}"
    assert torch.binary_cross_entropy_with_logits in loss_functions()


# Losses that cannot train today, and why. Each still counts as a loss (the search finds it).
NOT_TRAINABLE = {
    # torch's fake kernel of aten._ctc_loss has a data-dependent output shape, so torch.export cannot trace it.
    "ctc_loss": pytest.mark.skip(reason="torch.export cannot trace aten._ctc_loss (see test_error_ctc_loss)"),
}
TRAINABLE = [pytest.param(name, marks=NOT_TRAINABLE[name]) if name in NOT_TRAINABLE else name for name in sorted(CASES)]


@pytest.mark.parametrize("name", TRAINABLE)
def test_functional_loss_trains_as_eager(name: str) -> None:
    torch.manual_seed(0)
    train_and_compare(FunctionalLoss(name), _batches(CASES[name]))


@pytest.mark.parametrize("name", TRAINABLE)
def test_loss_module_trains_as_eager(name: str) -> None:
    torch.manual_seed(0)
    train_and_compare(ModuleLoss(name), _batches(CASES[name]))


# =======================================================================================
# The other forms: inline module, a name imported from F, identity_loss, combinations
# =======================================================================================
class Regressor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(IN, 3)


def _regression_batches(steps: int = 3) -> list[tuple[torch.Tensor, torch.Tensor]]:
    return [(torch.randn(B, IN), torch.randn(B, 3)) for _ in range(steps)]


FORMS: dict[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    "inline module": lambda o, t: nn.MSELoss()(o, t),
    "imported function": lambda o, t: mse_loss(o, t),
    "torch namespace": lambda o, t: torch.binary_cross_entropy_with_logits(o, t.sigmoid(), None, None, 1),
    "identity_loss mean": lambda o, t: poptorch.identity_loss((o - t) ** 2, reduction="mean"),
    "identity_loss sum": lambda o, t: poptorch.identity_loss((o - t).abs(), reduction="sum"),
    "sum of two losses": lambda o, t: F.l1_loss(o, t) + 0.1 * F.mse_loss(o, t),
    "reduced unreduced loss": lambda o, t: F.mse_loss(o, t, reduction="none").mean() * 2,
    "loss module and identity_loss": lambda o, t: nn.SmoothL1Loss()(o, t) + poptorch.identity_loss(o.abs(), "mean"),
    "identity_loss over losses": lambda o, t: poptorch.identity_loss(F.l1_loss(o, t) + F.mse_loss(o, t), "none"),
}


@pytest.mark.parametrize("form", list(FORMS))
def test_loss_form_trains_as_eager(form: str) -> None:
    class Model(Regressor):
        def forward(self, x: torch.Tensor, t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            out = self.linear(x)
            return out, FORMS[form](out, t)

    torch.manual_seed(0)
    train_and_compare(Model(), _regression_batches())


def test_loss_alone_and_first_trains_as_eager() -> None:
    """The loss may be the only output, or come before the others."""

    class Model(Regressor):
        def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            return F.mse_loss(self.linear(x), t)

    torch.manual_seed(0)
    train_and_compare(Model(), _regression_batches(), loss_of=lambda out: out)


def test_partial_losses_returned_with_their_sum() -> None:
    """Returning the parts of a loss next to their sum is fine: the sum is the final loss."""

    class Model(Regressor):
        def forward(self, x: torch.Tensor, t: torch.Tensor) -> tuple[torch.Tensor, ...]:
            out = self.linear(x)
            l1, l2 = F.l1_loss(out, t), F.mse_loss(out, t)
            return l1, l2, l1 + l2

    torch.manual_seed(0)
    train_and_compare(Model(), _regression_batches(), loss_of=lambda out: out[2])


def test_model_output_with_loss_trains_as_eager() -> None:
    """A Hugging Face style output object (a dict subclass with .loss) whose loss comes
    from F.cross_entropy."""
    # Imported here, not in forward: transformers registers an output class as a pytree node
    # when it is defined, unless that happens while torch traces (is_compiling()).
    outputs = pytest.importorskip("transformers.modeling_outputs")

    class Classifier(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = nn.Linear(IN, 5)

        def forward(self, x: torch.Tensor, labels: torch.Tensor) -> Any:
            logits = self.linear(x)
            return outputs.SequenceClassifierOutput(loss=F.cross_entropy(logits, labels), logits=logits)

    torch.manual_seed(0)
    batches = [(torch.randn(B, IN), _labels(B, 5)) for _ in range(3)]
    train_and_compare(Classifier(), batches, loss_of=lambda out: out.loss)


# =======================================================================================
# Errors
# =======================================================================================
def _first_call(model: nn.Module, *batch: torch.Tensor) -> None:
    training = poptorch.trainingModel(model, optimizer=poptorch.optim.SGD(model.parameters(), lr=0.1))
    training(*batch)


NO_LOSS = r"forward returns no loss, so there is nothing to train\. Return the result of a PyTorch loss function .*identity_loss"


def test_error_no_loss() -> None:
    class Model(Regressor):
        def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            return (self.linear(x) - t).pow(2).mean()  # a loss by arithmetic, not by a loss function

    with pytest.raises(RuntimeError, match=NO_LOSS):
        _first_call(Model(), *_regression_batches(1)[0])


def test_error_loss_computed_but_not_returned() -> None:
    class Model(Regressor):
        def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            out = self.linear(x)
            F.mse_loss(out, t)
            return out

    with pytest.raises(RuntimeError, match=NO_LOSS):
        _first_call(Model(), *_regression_batches(1)[0])


def test_error_several_independent_functional_losses() -> None:
    class Model(Regressor):
        def forward(self, x: torch.Tensor, t: torch.Tensor) -> tuple[torch.Tensor, ...]:
            out = self.linear(x)
            return out, F.l1_loss(out, t), F.mse_loss(out, t)

    with pytest.raises(RuntimeError, match=r"several independent losses \(outputs 1, 2\).*Combine them into one tensor"):
        _first_call(Model(), *_regression_batches(1)[0])


def test_error_ctc_loss() -> None:
    """CTC is found as the loss, but torch.export cannot trace its kernel: a capture error
    that names the op and says why."""
    torch.manual_seed(0)
    with pytest.raises(RuntimeError, match=r"aten\._ctc_loss\.default at .*test_losses\.py:\d+ \(`.*`\) gives a tensor "
                                           r"whose size depends on the input's values .* IPU programs have static shapes"):
        _first_call(FunctionalLoss("ctc_loss"), *_batches(CASES["ctc_loss"], 1)[0])


def test_error_gaussian_nll_loss_with_tensor_variance() -> None:
    """gaussian_nll_loss checks a tensor variance's values in Python (torch.any(var < 0)),
    which a static program cannot do: the error points at the data-dependent line."""

    class Model(Regressor):
        def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            mean, var = _halves(self.linear(x).repeat(1, 2))
            return F.gaussian_nll_loss(mean, t, var.exp())

    with pytest.raises(RuntimeError, match=r"the model's forward uses a tensor's value as a Python value at .*test_losses\.py:"
                                           r"\d+ \(`return F\.gaussian_nll_loss\(mean, t, var\.exp\(\)\)`\)"):
        _first_call(Model(), *_regression_batches(1)[0])


# =======================================================================================
# The class losses' variants: class weights, probabilities, label smoothing, K dims
# =======================================================================================
_CLASS_WEIGHT = torch.tensor([0.2, 1.5, 0.7, 3.0, 1.0])


def _spatial_labels(*shape: int) -> torch.Tensor:
    """Class indices in [0, 5) with some set to the ignore_index (2)."""
    return torch.randint(0, 5, shape)


def _probabilities(*shape: int) -> torch.Tensor:
    return torch.rand(*shape).softmax(1)


# name -> (loss of the [B, 5] or [B, 5, 2, 3] logits o and a target, the target of a batch, spatial)
CLASS_LOSS_VARIANTS: dict[str, tuple[Callable[[torch.Tensor, torch.Tensor], torch.Tensor], Callable[[], torch.Tensor], bool]] = {
    "nll_loss weighted mean": (lambda o, t: F.nll_loss(o.log_softmax(1), t, _CLASS_WEIGHT), lambda: _labels(B, 5), False),
    "nll_loss weighted mean ignore_index": (lambda o, t: F.nll_loss(o.log_softmax(1), t, _CLASS_WEIGHT, ignore_index=2),
                                            lambda: torch.tensor([2, 1, 2, 4]), False),
    "nll_loss weighted sum": (lambda o, t: F.nll_loss(o.log_softmax(1), t, _CLASS_WEIGHT, reduction="sum"),
                              lambda: _labels(B, 5), False),
    "nll_loss weighted none": (lambda o, t: F.nll_loss(o.log_softmax(1), t, _CLASS_WEIGHT, reduction="none").sum(),
                               lambda: _labels(B, 5), False),
    "nll_loss N,C,d1,d2 weighted": (lambda o, t: F.nll_loss(o.log_softmax(1), t, _CLASS_WEIGHT, ignore_index=2),
                                    lambda: _spatial_labels(B, 2, 3), True),
    "cross_entropy probabilities": (lambda o, t: F.cross_entropy(o, t), lambda: _probabilities(B, 5), False),
    "cross_entropy probabilities weighted smoothed": (
        lambda o, t: F.cross_entropy(o, t, _CLASS_WEIGHT, label_smoothing=0.2), lambda: _probabilities(B, 5), False),
    "cross_entropy indices weighted smoothed": (
        lambda o, t: F.cross_entropy(o, t, _CLASS_WEIGHT, ignore_index=2, label_smoothing=0.1),
        lambda: torch.tensor([2, 1, 0, 4]), False),
    "cross_entropy indices smoothed sum": (lambda o, t: F.cross_entropy(o, t, reduction="sum", label_smoothing=0.3),
                                           lambda: _labels(B, 5), False),
    "cross_entropy N,C,d1,d2": (lambda o, t: F.cross_entropy(o, t), lambda: _spatial_labels(B, 2, 3), True),
    "cross_entropy N,C,d1,d2 none": (lambda o, t: F.cross_entropy(o, t, reduction="none").sum(),
                                     lambda: _spatial_labels(B, 2, 3), True),
    "cross_entropy N,C,d1,d2 probabilities smoothed": (lambda o, t: F.cross_entropy(o, t, label_smoothing=0.1),
                                                       lambda: _probabilities(B, 5, 2, 3), True),
}


class ClassLoss(nn.Module):
    """A linear layer giving [B, 5] logits (or [B, 5, 2, 3] for a spatial case) and a class loss."""

    def __init__(self, loss: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], spatial: bool) -> None:
        super().__init__()
        self.loss, self.spatial = loss, spatial
        self.linear = nn.Linear(IN, 30 if spatial else 5)

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.linear(x)
        if self.spatial:
            out = out.reshape(B, 5, 2, 3)
        return out, self.loss(out, target)


@pytest.mark.parametrize("name", list(CLASS_LOSS_VARIANTS))
def test_class_loss_variant_trains_as_eager(name: str) -> None:
    loss, target, spatial = CLASS_LOSS_VARIANTS[name]
    torch.manual_seed(0)
    train_and_compare(ClassLoss(loss, spatial), [(torch.randn(B, IN), target()) for _ in range(2)])


@pytest.mark.parametrize("name", list(CLASS_LOSS_VARIANTS))
def test_class_loss_variant_infers_as_eager(name: str) -> None:
    loss, target, spatial = CLASS_LOSS_VARIANTS[name]
    torch.manual_seed(0)
    model, x, t = ClassLoss(loss, spatial), torch.randn(B, IN), target()
    with torch.no_grad():
        want = model(x, t)[1]
    got = poptorch.inferenceModel(model)(x, t)[1]
    torch.testing.assert_close(got, want, **FP32)


def test_chunked_linear_cross_entropy_trains_as_eager() -> None:
    """F.linear_cross_entropy with ``options`` (torch's chunked custom ops) compiles as
    its reference form, cross_entropy(linear(...)): the same loss and gradients."""

    class Chunked(nn.Module):
        def __init__(self, reduction: str) -> None:
            super().__init__()
            self.linear = nn.Linear(IN, 4)
            self.classifier = nn.Parameter(torch.randn(5, 4) * 0.3)
            self.reduction = reduction

        def forward(self, x: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            out = self.linear(x)
            loss = F.linear_cross_entropy(out, self.classifier, target, reduction=self.reduction, weight=_CLASS_WEIGHT,
                                          options=nn.LinearCrossEntropyOptions(batch_chunk_size=2))
            return out, loss if self.reduction != "none" else poptorch.identity_loss(loss.sum(), reduction="sum")

    for reduction in ("mean", "sum", "none"):
        torch.manual_seed(0)
        train_and_compare(Chunked(reduction), [(torch.randn(B, IN), _labels(B, 5)) for _ in range(2)])
