"""``poptorch.optim``: the PopTorch optimizers (SGD, Adam, AdamW, RMSprop, LAMB) and
``describe``, which turns an optimizer into what the compiler and runtime need.

Each optimizer is its ``torch.optim`` counterpart (LAMB: a ``torch.optim.Optimizer`` with
its own ``step``) plus PopTorch's options: loss scaling, velocity scaling, state dtypes,
gradient clipping and constant/variable hyper-parameters. On the IPU the update is
compiled; ``step()`` on the CPU runs the torch update, which ignores those options
(they do not change the mathematics at their defaults).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from numbers import Real
from typing import TYPE_CHECKING, Any, ClassVar

import torch

from . import _logging

if TYPE_CHECKING:
    from ipu_mlir.driver import OptimizerType

__all__ = [
    "LAMB",
    "SGD",
    "Adam",
    "AdamW",
    "IpuOptimizer",
    "Optimizer",
    "RMSprop",
    "VariableAttributes",
    "describe",
]

_INF = math.inf


def group_hyper(kind: OptimizerType) -> tuple[str, ...]:
    """The hyper-parameter values the compiled update of ``kind`` reads per param group,
    in operand order (every one but the global ``loss_scaling``). The ipu dialect's
    update ops declare them; loading the compiler for them is deferred to first use."""
    from ipu_mlir.driver import group_hyper_parameters

    return group_hyper_parameters(kind)


#: Optimizer state dtypes that PopTorch accepts.
ACCUM_DTYPES: tuple[torch.dtype, ...] = (torch.float32, torch.float16)

# Accepted options with no effect in the emulator, with the reason and their default.
_NO_EFFECT: dict[str, tuple[str, Any]] = {
    "foreach": ("the update is compiled into one op per parameter; foreach picks PyTorch kernels", None),
    "fused": ("the update is compiled into one op per parameter; fused picks PyTorch kernels", None),
    "capturable": ("there are no CUDA graphs to capture", False),
    "differentiable": ("the update runs on the device, outside autograd", False),
}


# --- argument checks ----------------------------------------------------------------------

# name -> (in range?, the rule in words, how to fix it)
_RULES: dict[str, tuple[Callable[[float], bool], str, str]] = {
    "lr": (lambda x: 0 <= x < _INF, "must be a finite number, at least 0 (lr=0 leaves the weights unchanged, "
           "as at the start of a learning-rate warm-up)", "Pass a learning rate such as lr=0.001"),
    "group_lr": (lambda x: 0 <= x < _INF, "must be a finite number, at least 0 (0 freezes the group)",
                 "Set the group's lr to a value such as 0.001"),
    "momentum": (lambda x: 0 <= x < _INF, "must be a finite number, at least 0",
                 "Use momentum=0 for no momentum or a factor such as 0.9"),
    "dampening": (lambda x: 0 <= x <= 1, "must be between 0 and 1", "Use dampening=0 (the default)"),
    "weight_decay": (lambda x: 0 <= x < _INF, "must be a finite number, at least 0",
                     "Use weight_decay=0 to turn weight decay off"),
    "beta1": (lambda x: 0 <= x < 1, "must be in [0, 1) (a moving-average decay factor)",
              "Use betas such as (0.9, 0.999)"),
    "beta2": (lambda x: 0 <= x < 1, "must be in [0, 1) (a moving-average decay factor)",
              "Use betas such as (0.9, 0.999)"),
    "eps": (lambda x: 0 < x < _INF, "must be a finite number greater than 0 (it keeps the division safe)",
            "Use a small value such as eps=1e-8"),
    "alpha": (lambda x: 0 <= x <= 1, "must be between 0 and 1 (a moving-average decay factor)",
              "Use a smoothing constant such as alpha=0.99"),
    "velocity_scaling": (lambda x: 0 < x < _INF, "must be a finite number greater than 0",
                         "Use velocity_scaling=1.0 for no scaling"),
    "loss_scaling": (lambda x: 0 < x < _INF, "must be a finite number greater than 0",
                     "Use loss_scaling=1.0 for no scaling"),
    "max_weight_norm": (lambda x: x > 0, "must be greater than 0",
                        "Pass max_weight_norm=None to leave the weight norm uncapped"),
    "max_grad_norm": (lambda x: x > 0, "must be greater than 0",
                      "Pass max_grad_norm=None to turn gradient clipping off"),
}


def _number(where: str, name: str, value: Any) -> float:
    """``value`` as a float; a one-element tensor is accepted as torch accepts it."""
    if isinstance(value, torch.Tensor) and value.numel() == 1 and value.dtype != torch.bool:
        return float(value.item())
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{where}: {name}={value!r} must be a number, got {type(value).__name__}")
    return float(value)


def _check(where: str, name: str, value: Any, *, rule: str | None = None, shown: str | None = None) -> float:
    """Check one hyper-parameter against its rule and return it as a float."""
    shown = shown or f"{name}={value!r}"
    number = _number(where, name, value)
    ok, text, fix = _RULES[rule or name]
    if math.isnan(number) or not ok(number):
        raise ValueError(f"{where}: {shown}: {name} {text}. {fix}.")
    return number


def _betas(where: str, value: Any) -> tuple[float, float]:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"{where}: betas={value!r} must be a pair (beta1, beta2), such as (0.9, 0.999)")
    shown = f"betas={tuple(value)!r}"
    return (_check(where, "beta1", value[0], shown=shown), _check(where, "beta2", value[1], shown=shown))


def _optional_norm(where: str, name: str, value: Any) -> float | None:
    """max_grad_norm / max_weight_norm: None or inf means off; otherwise > 0."""
    if value is None:
        return None
    number = _check(where, name, value)
    return None if number == _INF else number


def _flag(where: str, name: str, value: Any, default: bool) -> bool:
    if value is None:
        return default
    if not isinstance(value, bool):
        raise TypeError(f"{where}: {name}={value!r} must be True or False, got {type(value).__name__}")
    return value


def _accum_type(where: str, name: str, value: Any) -> torch.dtype:
    if value is None:
        return torch.float32
    if value not in ACCUM_DTYPES:
        raise ValueError(
            f"{where}: {name}={value!r} is not a supported optimizer state type: it must be torch.float32 "
            f"or torch.float16. Pass one of them, or leave it unset for torch.float32"
        )
    return value


def _reject_amsgrad(where: str, value: Any) -> None:
    if value:
        raise ValueError(
            f"{where}: amsgrad={value!r} is not supported: the IPU's Adam and AdamW updates have no "
            f"AMSGrad variant. Use amsgrad=False (the default)"
        )


def _reject_maximize(where: str, value: Any) -> None:
    if value:
        raise ValueError(
            f"{where}: maximize={value!r} is not supported: the IPU update always descends the loss. "
            f"Use maximize=False and return the negated objective as the loss instead"
        )


def _no_effect(cls_name: str, name: str, value: Any) -> Any:
    """Say once that an accepted torch option does nothing here; return the torch value."""
    reason, default = _NO_EFFECT[name]
    if value is not None and value != default:
        _logging.warn_once(
            f"poptorch.optim.{cls_name}.{name}",
            f"poptorch.optim.{cls_name}({name}={value!r}) was accepted but has no effect in the IPU "
            f"Model emulator ({reason}); the update on the IPU is the same as with the default.",
        )
    return default if value is None else value


# --- variable / constant hyper-parameters --------------------------------------------------


class VariableAttributes:
    """Tracks which hyper-parameters are variable (changeable by ``setOptimizer`` without
    recompiling) and which are constant (compiled into the program).

    Reachable as ``optimizer.variable_attrs`` on every PopTorch optimizer.
    """

    def __init__(self, variable_attributes: list[str], allowed_attributes: list[str]) -> None:
        self._allowed = list(dict.fromkeys(allowed_attributes))
        self._variable: list[str] = []
        for attr in variable_attributes:
            self.markAsVariable(attr)

    def _require_known(self, attr: str) -> None:
        if attr not in self._allowed:
            raise ValueError(
                f"{attr!r} is not a hyper-parameter of this optimizer, so it cannot be variable or "
                f"constant. Allowed: {', '.join(self._allowed)}"
            )

    def isConstant(self, attr: str) -> bool:  # noqa: N802 - PopTorch's public name
        """Return True if ``attr`` is marked as constant."""
        self._require_known(attr)
        return attr not in self._variable

    def markAsConstant(self, attr: str) -> None:  # noqa: N802 - PopTorch's public name
        """Compile ``attr`` into the program: changing it later means recompiling."""
        self._require_known(attr)
        if attr in self._variable:
            self._variable.remove(attr)

    def markAsVariable(self, attr: str) -> None:  # noqa: N802 - PopTorch's public name
        """Keep ``attr`` on the device as a variable that ``setOptimizer`` can change."""
        self._require_known(attr)
        if attr not in self._variable:
            self._variable.append(attr)

    @property
    def allowed(self) -> list[str]:
        """The hyper-parameters that can be marked."""
        return list(self._allowed)

    def constants(self) -> list[str]:
        """The hyper-parameters currently marked constant."""
        return [attr for attr in self._allowed if attr not in self._variable]

    def __repr__(self) -> str:
        return f"VariableAttributes(variable={self._variable}, constant={self.constants()})"


# --- the optimizers ----------------------------------------------------------------------


class Optimizer:
    """What every PopTorch optimizer adds to its ``torch.optim`` base class: ``loss_scaling``,
    ``max_grad_norm``, state dtypes, ``variable_attrs`` and checked param groups."""

    #: The spelling of the compiler's OptimizerType (parsed by ``_kind``: the compiler loads on first use).
    _KIND: ClassVar[str]
    #: The names ``variable_attrs`` knows (the constructor's hyper-parameter names).
    _ATTRS: ClassVar[tuple[str, ...]]
    #: The state dtype arguments this optimizer takes.
    _ACCUM_NAMES: ClassVar[tuple[str, ...]] = (
        "accum_type",
        "first_order_momentum_accum_type",
        "second_order_momentum_accum_type",
    )
    # Instance attributes to keep when pickling (torch's __getstate__ keeps only its own).
    _EXTRA_STATE: ClassVar[tuple[str, ...]] = (
        "loss_scaling",
        "max_grad_norm",
        "variable_attrs",
        "accum_type",
        "velocity_accum_type",
        "first_order_momentum_accum_type",
        "second_order_momentum_accum_type",
        "use_combined_accum",
        "use_tf_variant",
        "_explicit_accum_types",
    )

    loss_scaling: float
    max_grad_norm: float | None
    variable_attrs: VariableAttributes
    param_groups: list[dict[str, Any]]

    @classmethod
    def _where(cls) -> str:
        return f"poptorch.optim.{cls.__name__}"

    def _init_poptorch(self, loss_scaling: Any, max_grad_norm: Any, accum: dict[str, Any]) -> None:
        where = self._where()
        self.loss_scaling = 1.0 if loss_scaling is None else _check(where, "loss_scaling", loss_scaling)
        self.max_grad_norm = _optional_norm(where, "max_grad_norm", max_grad_norm)
        for name in self._ACCUM_NAMES:
            setattr(self, name, _accum_type(where, name, accum.get(name)))
        # The state dtypes given explicitly: only those change how the state is stored (unset
        # state keeps its weight's dtype).
        self._explicit_accum_types = {name: accum[name] for name in self._ACCUM_NAMES if accum.get(name) is not None}
        if self._explicit_accum_types and getattr(self, "use_combined_accum", False):
            _logging.warn_once(
                f"{where}.combined_accum_types",
                f"{where}(use_combined_accum=True) ignores {', '.join(self._explicit_accum_types)}, as PopTorch "
                "does: the combined tensor takes its weight's dtype",
            )
        self.variable_attrs = VariableAttributes(list(self._ATTRS), list(self._ATTRS))

    @property
    def accum_types(self) -> dict[str, torch.dtype]:
        """The optimizer state dtypes, by argument name."""
        return {name: getattr(self, name) for name in self._ACCUM_NAMES}

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a param group (as torch does), checking its hyper-parameters."""
        super().add_param_group(param_group)  # type: ignore[misc]
        index = len(self.param_groups) - 1
        try:
            _check_group(f"{self._where()} param group {index}", _kind(self), self.param_groups[index])
        except (TypeError, ValueError):
            self.param_groups.pop()
            raise

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()  # type: ignore[misc]
        state.update({k: self.__dict__[k] for k in self._EXTRA_STATE if k in self.__dict__})
        return state


def _check_group(where: str, kind: OptimizerType, group: dict[str, Any]) -> dict[str, float]:
    """Check one param group; return its compiled hyper-parameter values."""
    from ipu_mlir.driver import OptimizerType

    _reject_amsgrad(where, group.get("amsgrad", False))
    _reject_maximize(where, group.get("maximize", False))
    values: dict[str, float] = {"lr": _check(where, "lr", group["lr"], rule="group_lr")}
    if kind in (OptimizerType.ADAM, OptimizerType.LAMB):
        values["beta1"], values["beta2"] = _betas(where, group["betas"])
    for name in group_hyper(kind):
        if name in values:
            continue
        if name == "velocity_scaling":
            values[name] = _check(where, name, group.get(name, 1.0))
        elif name == "max_weight_norm":
            norm = _optional_norm(where, name, group.get(name))
            values[name] = _INF if norm is None else norm
        else:
            values[name] = _check(where, name, group[name])
    if kind == OptimizerType.SGD and group.get("nesterov", False) and (values["momentum"] <= 0 or values["dampening"] != 0):
        raise ValueError(
            f"{where}: nesterov=True needs momentum > 0 and dampening=0, got momentum={group['momentum']!r} "
            f"and dampening={group['dampening']!r}. Set a momentum such as 0.9 with dampening=0, or nesterov=False"
        )
    return values


class SGD(Optimizer, torch.optim.SGD):
    """Stochastic gradient descent with optional momentum (``torch.optim.SGD``), plus loss
    scaling, velocity scaling and PopTorch's separate or combined accumulator variants."""

    _KIND = "sgd"
    _ATTRS = ("lr", "momentum", "dampening", "weight_decay", "velocity_scaling", "loss_scaling")
    _ACCUM_NAMES = ("accum_type", "velocity_accum_type")

    def __init__(
        self,
        params: Iterable[Any],
        lr: float,
        momentum: float | None = None,
        dampening: float | None = None,
        weight_decay: float | None = None,
        nesterov: bool | None = None,
        maximize: bool | None = None,
        foreach: bool | None = None,
        differentiable: bool | None = None,
        loss_scaling: float | None = None,
        velocity_scaling: float | None = None,
        use_combined_accum: bool | None = None,
        accum_type: torch.dtype | None = None,
        velocity_accum_type: torch.dtype | None = None,
        max_grad_norm: float | None = None,
    ) -> None:
        where = self._where()
        if lr is None:
            raise TypeError(f"{where}: lr=None: SGD has no default learning rate. Pass one, such as lr=0.01")
        lr = _check(where, "lr", lr)
        momentum = 0.0 if momentum is None else _check(where, "momentum", momentum)
        dampening = 0.0 if dampening is None else _check(where, "dampening", dampening)
        weight_decay = 0.0 if weight_decay is None else _check(where, "weight_decay", weight_decay)
        nesterov = _flag(where, "nesterov", nesterov, False)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError(
                f"{where}: nesterov=True needs momentum > 0 and dampening=0, got momentum={momentum!r} and "
                f"dampening={dampening!r}. Pass a momentum such as 0.9 with dampening=0, or nesterov=False"
            )
        _reject_maximize(where, maximize)
        velocity_scaling = 1.0 if velocity_scaling is None else _check(where, "velocity_scaling", velocity_scaling)
        self.use_combined_accum = _flag(where, "use_combined_accum", use_combined_accum, False)
        foreach = _no_effect(type(self).__name__, "foreach", foreach)
        differentiable = _no_effect(type(self).__name__, "differentiable", differentiable)
        super().__init__(
            params,
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=False,
            foreach=foreach,
            differentiable=differentiable,
        )
        self.defaults["velocity_scaling"] = velocity_scaling
        for group in self.param_groups:
            group.setdefault("velocity_scaling", velocity_scaling)
        self._init_poptorch(
            loss_scaling, max_grad_norm, {"accum_type": accum_type, "velocity_accum_type": velocity_accum_type}
        )
        if velocity_scaling != 1.0 and not self.use_combined_accum:
            _logging.warn_once(
                "poptorch.optim.SGD.velocity_scaling",
                f"poptorch.optim.SGD(velocity_scaling={velocity_scaling!r}) only applies to the combined "
                f"variant (use_combined_accum=True); the default separate variant ignores it.",
            )


class Adam(Optimizer, torch.optim.Adam):
    """Adam (``torch.optim.Adam``, L2 weight decay) with optional loss scaling. AMSGrad is
    not supported."""

    _KIND = "adam"
    _ATTRS = ("lr", "betas", "eps", "weight_decay", "loss_scaling")
    _VARIANT: ClassVar[str] = "adam"

    def __init__(
        self,
        params: Iterable[Any],
        lr: float | None = None,
        betas: tuple[float, float] | None = None,
        eps: float | None = None,
        weight_decay: float | None = None,
        amsgrad: bool | None = None,
        foreach: bool | None = None,
        maximize: bool | None = None,
        capturable: bool | None = None,
        differentiable: bool | None = None,
        fused: bool | None = None,
        loss_scaling: float | None = None,
        accum_type: torch.dtype | None = None,
        first_order_momentum_accum_type: torch.dtype | None = None,
        second_order_momentum_accum_type: torch.dtype | None = None,
        max_grad_norm: float | None = None,
    ) -> None:
        hyper = _adam_hyper(self._where(), lr, betas, eps, weight_decay, amsgrad, maximize, 0.0)
        super().__init__(
            params,
            **hyper,
            amsgrad=False,
            foreach=_no_effect(type(self).__name__, "foreach", foreach),
            maximize=False,
            capturable=_no_effect(type(self).__name__, "capturable", capturable),
            differentiable=_no_effect(type(self).__name__, "differentiable", differentiable),
            fused=_no_effect(type(self).__name__, "fused", fused),
        )
        self._init_poptorch(loss_scaling, max_grad_norm, {
            "accum_type": accum_type,
            "first_order_momentum_accum_type": first_order_momentum_accum_type,
            "second_order_momentum_accum_type": second_order_momentum_accum_type,
        })


def _adam_hyper(where: str, lr: Any, betas: Any, eps: Any, weight_decay: Any, amsgrad: Any, maximize: Any,
                default_decay: float) -> dict[str, Any]:
    _reject_amsgrad(where, amsgrad)
    _reject_maximize(where, maximize)
    return {
        "lr": 1e-3 if lr is None else _check(where, "lr", lr),
        "betas": (0.9, 0.999) if betas is None else _betas(where, betas),
        "eps": 1e-8 if eps is None else _check(where, "eps", eps),
        "weight_decay": default_decay if weight_decay is None else _check(where, "weight_decay", weight_decay),
    }


class AdamW(Optimizer, torch.optim.AdamW):
    """Adam with decoupled weight decay (``torch.optim.AdamW``), optional loss scaling and
    optional bias correction. AMSGrad is not supported."""

    _KIND = "adam"
    _ATTRS = ("lr", "betas", "eps", "weight_decay", "loss_scaling")

    def __init__(
        self,
        params: Iterable[Any],
        lr: float | None = None,
        betas: tuple[float, float] | None = None,
        eps: float | None = None,
        weight_decay: float | None = None,
        amsgrad: bool | None = None,
        maximize: bool | None = None,
        foreach: bool | None = None,
        capturable: bool | None = None,
        loss_scaling: float | None = None,
        bias_correction: bool | None = None,
        accum_type: torch.dtype | None = None,
        first_order_momentum_accum_type: torch.dtype | None = None,
        second_order_momentum_accum_type: torch.dtype | None = None,
        max_grad_norm: float | None = None,
    ) -> None:
        where = self._where()
        hyper = _adam_hyper(where, lr, betas, eps, weight_decay, amsgrad, maximize, 1e-2)
        bias_correction = _flag(where, "bias_correction", bias_correction, True)
        super().__init__(
            params,
            **hyper,
            amsgrad=False,
            maximize=False,
            foreach=_no_effect(type(self).__name__, "foreach", foreach),
            capturable=_no_effect(type(self).__name__, "capturable", capturable),
        )
        self.defaults["bias_correction"] = bias_correction
        for group in self.param_groups:
            group.setdefault("bias_correction", bias_correction)
        self._init_poptorch(loss_scaling, max_grad_norm, {
            "accum_type": accum_type,
            "first_order_momentum_accum_type": first_order_momentum_accum_type,
            "second_order_momentum_accum_type": second_order_momentum_accum_type,
        })


class RMSprop(Optimizer, torch.optim.RMSprop):
    """RMSprop (``torch.optim.RMSprop``) with optional loss scaling; ``use_tf_variant``
    selects TensorFlow's form on the IPU (``step()`` on the CPU stays PyTorch's)."""

    _KIND = "rmsprop"
    _ATTRS = ("lr", "alpha", "eps", "momentum", "weight_decay", "loss_scaling")

    def __init__(
        self,
        params: Iterable[Any],
        lr: float | None = None,
        alpha: float | None = None,
        eps: float | None = None,
        weight_decay: float | None = None,
        momentum: float | None = None,
        centered: bool | None = None,
        foreach: bool | None = None,
        maximize: bool | None = None,
        differentiable: bool | None = None,
        loss_scaling: float | None = None,
        accum_type: torch.dtype | None = None,
        first_order_momentum_accum_type: torch.dtype | None = None,
        second_order_momentum_accum_type: torch.dtype | None = None,
        use_tf_variant: bool | None = None,
    ) -> None:
        where = self._where()
        _reject_maximize(where, maximize)
        self.use_tf_variant = _flag(where, "use_tf_variant", use_tf_variant, False)
        super().__init__(
            params,
            lr=1e-2 if lr is None else _check(where, "lr", lr),
            alpha=0.99 if alpha is None else _check(where, "alpha", alpha),
            eps=1e-8 if eps is None else _check(where, "eps", eps),
            weight_decay=0.0 if weight_decay is None else _check(where, "weight_decay", weight_decay),
            momentum=0.0 if momentum is None else _check(where, "momentum", momentum),
            centered=_flag(where, "centered", centered, False),
            foreach=_no_effect(type(self).__name__, "foreach", foreach),
            maximize=False,
            differentiable=_no_effect(type(self).__name__, "differentiable", differentiable),
        )
        self._init_poptorch(loss_scaling, None, {
            "accum_type": accum_type,
            "first_order_momentum_accum_type": first_order_momentum_accum_type,
            "second_order_momentum_accum_type": second_order_momentum_accum_type,
        })


class LAMB(Optimizer, torch.optim.Optimizer):
    """Layer-wise Adaptive Moments (LAMB, https://arxiv.org/abs/1904.00962).

    Per parameter x with gradient g at step t:
    m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2;
    with bias_correction m /= 1 - beta1^t and v /= 1 - beta2^t;
    u = m / (sqrt(v) + eps) + weight_decay x;
    x -= lr * phi(||x||) / ||u|| * u, with phi(z) = min(z, max_weight_norm)
    (the ratio is 1 when either norm is 0; max_weight_norm=None leaves phi uncapped).
    """

    _KIND = "lamb"
    _ATTRS = ("lr", "betas", "eps", "weight_decay", "max_weight_norm", "loss_scaling")

    def __init__(
        self,
        params: Iterable[Any],
        lr: float | None = None,
        betas: tuple[float, float] | None = None,
        eps: float | None = None,
        weight_decay: float | None = None,
        bias_correction: bool | None = None,
        loss_scaling: float | None = None,
        max_weight_norm: float | None = None,
        accum_type: torch.dtype | None = None,
        first_order_momentum_accum_type: torch.dtype | None = None,
        second_order_momentum_accum_type: torch.dtype | None = None,
    ) -> None:
        where = self._where()
        hyper = _adam_hyper(where, lr, betas, eps, weight_decay, False, False, 1e-2)
        norm = _optional_norm(where, "max_weight_norm", max_weight_norm)
        defaults = {
            **hyper,
            "bias_correction": _flag(where, "bias_correction", bias_correction, True),
            "max_weight_norm": _INF if norm is None else norm,
        }
        super().__init__(params, defaults)
        self._init_poptorch(loss_scaling, None, {
            "accum_type": accum_type,
            "first_order_momentum_accum_type": first_order_momentum_accum_type,
            "second_order_momentum_accum_type": second_order_momentum_accum_type,
        })

    @torch.no_grad()
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Apply one LAMB update to every parameter that has a gradient (eager, on the CPU)."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, decay = group["lr"], group["eps"], group["weight_decay"]
            cap = group["max_weight_norm"]
            cap = _INF if cap is None else cap
            for param in group["params"]:
                if param.grad is None:
                    continue
                grad = param.grad
                if grad.is_sparse:
                    raise RuntimeError("poptorch.optim.LAMB does not support sparse gradients")
                state = self.state[param]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(param, memory_format=torch.preserve_format)
                    state["exp_avg_sq"] = torch.zeros_like(param, memory_format=torch.preserve_format)
                state["step"] += 1
                step = state["step"]
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                m, v = exp_avg, exp_avg_sq
                if group["bias_correction"]:
                    m = m / (1 - beta1**step)
                    v = v / (1 - beta2**step)
                update = m / (v.sqrt() + eps)
                if decay != 0:
                    update = update.add(param, alpha=decay)
                weight_norm = float(param.norm().clamp(max=cap))
                update_norm = float(update.norm())
                ratio = weight_norm / update_norm if weight_norm > 0 and update_norm > 0 else 1.0
                param.add_(update, alpha=-lr * ratio)
        return loss


# --- describe: what the compiler and runtime need ------------------------------------------


@dataclass
class IpuOptimizer:
    """An optimizer as the compiled training step sees it."""

    type: OptimizerType
    flags: dict[str, object]  # structural choices, fixed at compile time (bools, variant enums)
    groups: list[dict[str, float]]  # per param group: group_hyper(type) -> value
    param_groups: dict[str, int]  # parameter path -> group index
    loss_scaling: float
    constant: set[str]  # hyper-parameter names marked constant
    max_grad_norm: float | None
    accum_types: dict[str, torch.dtype]
    # compiler state name ("accum" for the gradient accumulators) -> "f16" / "f32", from the
    # dtypes given explicitly (ipu-insert-training's state-types)
    state_types: dict[str, str] = field(default_factory=dict)


# Which optimizer state each PopTorch dtype argument sets (by the compiler's state names).
_STATE_OF_ACCUM = {
    "accum_type": ("accum",),  # the gradient accumulators (gradientAccumulation > 1)
    "velocity_accum_type": ("velocity",),  # SGD
    "first_order_momentum_accum_type": ("exp_avg", "square_avg"),  # Adam / LAMB m; RMSprop's squared average
    "second_order_momentum_accum_type": ("exp_avg_sq", "grad_avg", "momentum_buffer"),  # Adam / LAMB v; RMSprop's others
}
_DTYPE_TEXT = {torch.float16: "f16", torch.float32: "f32"}


_TORCH_CLASSES: dict[type, str] = {
    torch.optim.SGD: "sgd",
    torch.optim.Adam: "adam",
    torch.optim.AdamW: "adam",
    torch.optim.RMSprop: "rmsprop",
}
_POPTORCH_CLASSES: tuple[type[Optimizer], ...] = (SGD, Adam, AdamW, RMSprop, LAMB)
_SUPPORTED = "poptorch.optim.SGD, Adam, AdamW, RMSprop, LAMB and torch.optim.SGD, Adam, AdamW, RMSprop"


def _label(optimizer: torch.optim.Optimizer) -> str:
    cls = type(optimizer)
    if isinstance(optimizer, Optimizer):
        return f"poptorch.optim.{cls.__name__}"
    return f"{cls.__module__.split('.')[0]}.optim.{cls.__name__}" if cls in _TORCH_CLASSES else cls.__qualname__


def _kind(optimizer: Any) -> OptimizerType:
    """The compiler's optimizer type of ``optimizer``; TypeError for one the IPU cannot apply."""
    from ipu_mlir.driver import OptimizerType

    if isinstance(optimizer, _POPTORCH_CLASSES):
        return OptimizerType.parse(optimizer._KIND, "optimizer type")
    cls = type(optimizer)
    if cls in _TORCH_CLASSES:
        return OptimizerType.parse(_TORCH_CLASSES[cls], "optimizer type")
    base = next((b for b in _TORCH_CLASSES if isinstance(optimizer, b)), None)
    if base is not None:
        raise TypeError(
            f"{cls.__module__}.{cls.__qualname__} is a subclass of torch.optim.{base.__name__}: the IPU would "
            f"apply torch.optim.{base.__name__}'s update, not the subclass's step(). Supported optimizers: "
            f"{_SUPPORTED}; use one of them directly"
        )
    raise TypeError(
        f"{cls.__module__}.{cls.__qualname__} is not an optimizer the IPU can apply. Supported optimizers: "
        f"{_SUPPORTED}"
    )


def check_optimizer(where: str, optimizer: Any) -> None:
    """TypeError unless ``optimizer`` is an optimizer object (checked when a model is
    wrapped or given a new optimizer, before anything reads it)."""
    if isinstance(optimizer, torch.optim.Optimizer):
        return
    example = "poptorch.optim.SGD(model.parameters(), lr=0.01)"
    if isinstance(optimizer, list | tuple):
        got = f"a {type(optimizer).__name__} of {len(optimizer)} item(s)"
        hint = ("A PopTorch model trains with one optimizer: pass the optimizer itself, not a list; for different "
                "settings per layer, give one optimizer parameter groups ([{'params': ...}, {'params': ..., 'lr': ...}])")
    elif isinstance(optimizer, type) and issubclass(optimizer, torch.optim.Optimizer):
        got = f"the class {optimizer.__module__}.{optimizer.__qualname__}"
        hint = f"Create an optimizer object with the model's parameters, such as {example}"
    elif isinstance(optimizer, torch.optim.lr_scheduler.LRScheduler):
        got = f"the learning-rate scheduler {type(optimizer).__qualname__}"
        hint = "Pass the optimizer the scheduler drives, and after scheduler.step() call model.setOptimizer(optimizer)"
    else:
        got = f"{type(optimizer).__module__}.{type(optimizer).__qualname__}"
        hint = f"Pass an optimizer such as {example}"
    raise TypeError(f"{where}: optimizer must be a torch.optim.Optimizer, got {got}. {hint}.")


def _uniform(where: str, groups: list[dict[str, Any]], key: str, default: Any) -> Any:
    """A structural flag, which must be the same in every param group."""
    values = [group.get(key, default) for group in groups]
    if any(value != values[0] for value in values):
        shown = ", ".join(f"group {i}: {value!r}" for i, value in enumerate(values))
        raise ValueError(
            f"{where}: the param groups disagree on {key} ({shown}). It selects the compiled update, so it "
            f"must be the same in every group"
        )
    return values[0]


def describe(optimizer: torch.optim.Optimizer, names: dict[int, str]) -> IpuOptimizer:
    """Describe ``optimizer`` for the compiler; ``names`` maps ``id(parameter)`` to its path."""
    from ipu_mlir.driver import AdamVariant, OptimizerType, SgdVariant

    kind = _kind(optimizer)
    where = _label(optimizer)
    groups = optimizer.param_groups
    values = [_check_group(f"{where} param group {i}", kind, group) for i, group in enumerate(groups)]

    param_groups: dict[str, int] = {}
    missing = total = 0
    for index, group in enumerate(groups):
        for param in group["params"]:
            total += 1
            name = names.get(id(param))
            if name is None:
                missing += 1
            else:
                param_groups[name] = index
    if missing:
        raise ValueError(
            f"{where}: {missing} of the optimizer's {total} parameters are not parameters of the wrapped model. "
            f"Build the optimizer from the parameters of the model you pass to trainingModel(), for example "
            f"{where}(model.parameters(), ...)"
        )

    flags: dict[str, object]
    if kind == OptimizerType.SGD:
        flags = {
            "with_momentum": any(v["momentum"] != 0 for v in values),
            "nesterov": bool(_uniform(where, groups, "nesterov", False)),
            "variant": SgdVariant.COMBINED if getattr(optimizer, "use_combined_accum", False) else SgdVariant.SEPARATE,
        }
    elif kind == OptimizerType.ADAM:
        decoupled = isinstance(optimizer, torch.optim.AdamW) or bool(
            _uniform(where, groups, "decoupled_weight_decay", False)
        )
        flags = {
            "variant": AdamVariant.ADAMW if decoupled else AdamVariant.ADAM,
            "bias_correction": bool(_uniform(where, groups, "bias_correction", True)),
        }
    elif kind == OptimizerType.RMSPROP:
        flags = {
            "centered": bool(_uniform(where, groups, "centered", False)),
            "with_momentum": any(v["momentum"] != 0 for v in values),
            "use_tf_variant": bool(getattr(optimizer, "use_tf_variant", False)),
        }
    else:
        flags = {"bias_correction": bool(_uniform(where, groups, "bias_correction", True))}

    if isinstance(optimizer, Optimizer):
        loss_scaling = _check(where, "loss_scaling", optimizer.loss_scaling)
        max_grad_norm = _optional_norm(where, "max_grad_norm", optimizer.max_grad_norm)
        constant: set[str] = set()
        for attr in optimizer.variable_attrs.constants():
            constant.update(("beta1", "beta2") if attr == "betas" else (attr,))
        accum_types = {
            name: _accum_type(where, name, dtype) for name, dtype in optimizer.accum_types.items()
        }
        explicit = {} if getattr(optimizer, "use_combined_accum", False) else getattr(
            optimizer, "_explicit_accum_types", {})
        state_types = {state: _DTYPE_TEXT[_accum_type(where, name, dtype)]
                       for name, dtype in explicit.items() for state in _STATE_OF_ACCUM[name]}
    else:
        loss_scaling, max_grad_norm, constant = 1.0, None, set()
        accum_names = (
            ("accum_type", "velocity_accum_type") if kind == OptimizerType.SGD else Optimizer._ACCUM_NAMES
        )
        accum_types = dict.fromkeys(accum_names, torch.float32)
        state_types = {}

    return IpuOptimizer(
        type=kind,
        flags=flags,
        groups=values,
        param_groups=param_groups,
        loss_scaling=loss_scaling,
        constant=constant,
        max_grad_norm=max_grad_norm,
        accum_types=accum_types,
        state_types=state_types,
    )
