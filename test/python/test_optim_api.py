"""User-visible behaviour of poptorch.optim: constructor checks and their messages,
amsgrad / maximize, no-effect warnings, variable_attrs, ``describe`` for every optimizer
(poptorch and torch.optim), and LAMB's eager step against the paper's formulas."""

from __future__ import annotations

import copy
import logging
import math
import pickle

import pytest
import torch
from helpers import EXACT, poptorch_warnings

from poptorch import optim

NO_EFFECT = "has no effect in the IPU Model emulator"
F32 = torch.float32

pytestmark = pytest.mark.usefixtures("fresh_poptorch_logging")


class _Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(3, 4)
        self.fc2 = torch.nn.Linear(4, 2)


@pytest.fixture
def net() -> _Net:
    torch.manual_seed(0)
    return _Net()


def _names(model: torch.nn.Module) -> dict[int, str]:
    return {id(p): n for n, p in model.named_parameters()}


# --- constructor checks ----------------------------------------------------------------------

BAD_ARGS = [
    # (class, kwargs, exception, fragments the message must contain)
    (optim.SGD, {"lr": -0.1}, ValueError, ["poptorch.optim.SGD", "lr=-0.1", "at least 0", "lr=0.001"]),
    (optim.SGD, {"lr": float("inf")}, ValueError, ["lr=inf", "finite"]),
    (optim.SGD, {"lr": float("nan")}, ValueError, ["lr=nan"]),
    (optim.SGD, {"lr": None}, TypeError, ["lr=None", "no default learning rate"]),
    (optim.SGD, {"lr": "0.1"}, TypeError, ["lr='0.1'", "must be a number"]),
    (optim.SGD, {"lr": 0.1, "momentum": -0.5}, ValueError, ["momentum=-0.5", "at least 0"]),
    (optim.SGD, {"lr": 0.1, "dampening": 1.5}, ValueError, ["dampening=1.5", "between 0 and 1"]),
    (optim.SGD, {"lr": 0.1, "weight_decay": -1}, ValueError, ["weight_decay=-1", "at least 0"]),
    (optim.SGD, {"lr": 0.1, "nesterov": True}, ValueError, ["nesterov=True", "momentum > 0", "dampening=0"]),
    (optim.SGD, {"lr": 0.1, "nesterov": 1}, TypeError, ["nesterov=1", "True or False"]),
    (optim.SGD, {"lr": 0.1, "loss_scaling": 0}, ValueError, ["loss_scaling=0", "greater than 0", "loss_scaling=1.0"]),
    (optim.SGD, {"lr": 0.1, "velocity_scaling": -2.0}, ValueError, ["velocity_scaling=-2.0", "greater than 0"]),
    (optim.SGD, {"lr": 0.1, "max_grad_norm": 0.0}, ValueError, ["max_grad_norm=0.0", "max_grad_norm=None"]),
    (optim.SGD, {"lr": 0.1, "accum_type": torch.bfloat16}, ValueError,
     ["accum_type=torch.bfloat16", "torch.float32 or torch.float16"]),
    (optim.SGD, {"lr": 0.1, "velocity_accum_type": torch.int32}, ValueError, ["velocity_accum_type=torch.int32"]),
    (optim.SGD, {"lr": 0.1, "maximize": True}, ValueError, ["maximize=True", "not supported", "maximize=False"]),
    (optim.Adam, {"betas": (0.9, 1.0)}, ValueError, ["poptorch.optim.Adam", "betas=(0.9, 1.0)", "beta2", "[0, 1)"]),
    (optim.Adam, {"betas": (-0.1, 0.999)}, ValueError, ["beta1", "[0, 1)"]),
    (optim.Adam, {"betas": 0.9}, TypeError, ["betas=0.9", "pair"]),
    (optim.Adam, {"eps": 0.0}, ValueError, ["eps=0.0", "greater than 0", "eps=1e-8"]),
    (optim.Adam, {"lr": -1e-3}, ValueError, ["lr=-0.001"]),
    (optim.Adam, {"maximize": True}, ValueError, ["maximize=True"]),
    (optim.Adam, {"first_order_momentum_accum_type": torch.float64}, ValueError,
     ["first_order_momentum_accum_type=torch.float64"]),
    (optim.AdamW, {"weight_decay": -0.01}, ValueError, ["poptorch.optim.AdamW", "weight_decay=-0.01"]),
    (optim.AdamW, {"bias_correction": "yes"}, TypeError, ["bias_correction='yes'"]),
    (optim.RMSprop, {"alpha": 1.5}, ValueError, ["poptorch.optim.RMSprop", "alpha=1.5", "between 0 and 1"]),
    (optim.RMSprop, {"eps": -1e-8}, ValueError, ["eps=-1e-08"]),
    (optim.RMSprop, {"momentum": -0.9}, ValueError, ["momentum=-0.9"]),
    (optim.RMSprop, {"second_order_momentum_accum_type": torch.bfloat16}, ValueError,
     ["second_order_momentum_accum_type"]),
    (optim.LAMB, {"max_weight_norm": -1.0}, ValueError, ["poptorch.optim.LAMB", "max_weight_norm=-1.0", "None"]),
    (optim.LAMB, {"betas": (1.0, 0.999)}, ValueError, ["beta1"]),
    (optim.LAMB, {"loss_scaling": -8}, ValueError, ["loss_scaling=-8"]),
]


@pytest.mark.parametrize(("cls", "kwargs", "error", "fragments"), BAD_ARGS,
                         ids=[f"{c.__name__}-{'-'.join(k)}" for c, k, _, _ in BAD_ARGS])
def test_constructor_rejects_bad_arguments(net, cls, kwargs, error, fragments):
    with pytest.raises(error) as info:
        cls(net.parameters(), **kwargs)
    for fragment in fragments:
        assert fragment in str(info.value), f"{fragment!r} not in {info.value}"


def test_param_group_override_is_checked(net):
    groups = [{"params": net.fc1.parameters(), "lr": -0.5}, {"params": net.fc2.parameters()}]
    with pytest.raises(ValueError, match=r"param group 0: lr=-0\.5"):
        optim.SGD(groups, lr=0.1)
    opt = optim.SGD(net.fc1.parameters(), lr=0.1)
    with pytest.raises(ValueError, match=r"param group 1: momentum=-1"):
        opt.add_param_group({"params": net.fc2.parameters(), "momentum": -1})
    assert len(opt.param_groups) == 1, "a rejected group must not stay in the optimizer"


def test_defaults_follow_poptorch(net):
    adam = optim.Adam(net.parameters())
    assert adam.defaults["lr"] == 1e-3 and adam.defaults["betas"] == (0.9, 0.999)
    assert adam.defaults["eps"] == 1e-8 and adam.defaults["weight_decay"] == 0.0
    assert optim.AdamW(net.parameters()).defaults["weight_decay"] == 1e-2
    rms = optim.RMSprop(net.parameters())
    assert (rms.defaults["lr"], rms.defaults["alpha"], rms.defaults["momentum"]) == (1e-2, 0.99, 0.0)
    lamb = optim.LAMB(net.parameters())
    assert lamb.defaults["weight_decay"] == 1e-2 and lamb.defaults["bias_correction"] is True
    assert lamb.defaults["max_weight_norm"] == math.inf
    sgd = optim.SGD(net.parameters(), lr=0.1)
    assert sgd.loss_scaling == 1.0 and sgd.max_grad_norm is None and sgd.use_combined_accum is False
    assert sgd.accum_types == {"accum_type": F32, "velocity_accum_type": F32}
    assert sgd.param_groups[0]["velocity_scaling"] == 1.0


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam, optim.AdamW, optim.RMSprop])
def test_subclasses_torch_optimizer(cls):
    base = getattr(torch.optim, cls.__name__)
    assert issubclass(cls, base)
    assert issubclass(optim.LAMB, torch.optim.Optimizer)


# --- amsgrad and no-effect options ----------------------------------------------------------


@pytest.mark.parametrize("cls", [optim.Adam, optim.AdamW])
def test_amsgrad_is_an_error(net, cls):
    with pytest.raises(ValueError, match=r"amsgrad=True is not supported.*Use amsgrad=False"):
        cls(net.parameters(), amsgrad=True)
    cls(net.parameters(), amsgrad=False)  # explicit False is fine


@pytest.mark.parametrize("cls", [torch.optim.Adam, torch.optim.AdamW])
def test_amsgrad_in_torch_optimizer_is_an_error(net, cls):
    with pytest.raises(ValueError, match=rf"torch\.optim\.{cls.__name__} param group 0: amsgrad=True.*amsgrad=False"):
        optim.describe(cls(net.parameters(), amsgrad=True), _names(net))


def test_maximize_in_torch_optimizer_is_an_error(net):
    with pytest.raises(ValueError, match="maximize=True is not supported"):
        optim.describe(torch.optim.SGD(net.parameters(), lr=0.1, maximize=True), _names(net))


NO_EFFECT_ARGS = [
    (optim.SGD, {"lr": 0.1, "foreach": True}, "foreach"),
    (optim.SGD, {"lr": 0.1, "differentiable": True}, "differentiable"),
    (optim.Adam, {"fused": True}, "fused"),
    (optim.Adam, {"capturable": True}, "capturable"),
    (optim.AdamW, {"foreach": False}, "foreach"),
    (optim.RMSprop, {"foreach": True}, "foreach"),
]


@pytest.mark.parametrize(("cls", "kwargs", "name"), NO_EFFECT_ARGS,
                         ids=[f"{c.__name__}-{n}" for c, _, n in NO_EFFECT_ARGS])
def test_no_effect_options_warn_once(net, caplog, cls, kwargs, name):
    caplog.set_level(logging.WARNING, logger="poptorch")
    cls(net.parameters(), **kwargs)
    cls(net.parameters(), **kwargs)
    warnings = [w for w in poptorch_warnings(caplog) if f"({name}=" in w]
    assert len(warnings) == 1, warnings
    assert NO_EFFECT in warnings[0] and f"poptorch.optim.{cls.__name__}" in warnings[0]


def test_defaults_do_not_warn(net, caplog):
    caplog.set_level(logging.WARNING, logger="poptorch")
    optim.SGD(net.parameters(), lr=0.1, foreach=None, differentiable=False)
    optim.Adam(net.parameters(), capturable=False, fused=None)
    optim.AdamW(net.parameters())
    optim.RMSprop(net.parameters())
    optim.LAMB(net.parameters())
    assert poptorch_warnings(caplog) == []


def test_describe_maps_explicit_state_dtypes_to_the_compiled_state(net):
    """Only the dtypes given explicitly reach the compiler (unset state keeps its weight's dtype)."""
    sgd = optim.SGD(net.parameters(), lr=0.1, momentum=0.9, velocity_accum_type=torch.float16)
    assert optim.describe(sgd, _names(net)).state_types == {"velocity": "f16"}
    adam = optim.Adam(net.parameters(), accum_type=torch.float16, second_order_momentum_accum_type=torch.float32)
    assert optim.describe(adam, _names(net)).state_types == {
        "accum": "f16", "exp_avg_sq": "f32", "grad_avg": "f32", "momentum_buffer": "f32"}
    assert optim.describe(optim.Adam(net.parameters()), _names(net)).state_types == {}
    combined = optim.SGD(net.parameters(), lr=0.1, momentum=0.9, use_combined_accum=True, accum_type=torch.float16)
    assert optim.describe(combined, _names(net)).state_types == {}  # PopTorch ignores them there


def test_velocity_scaling_with_separate_variant_warns(net, caplog):
    caplog.set_level(logging.WARNING, logger="poptorch")
    optim.SGD(net.parameters(), lr=0.1, momentum=0.9, velocity_scaling=2.0, use_combined_accum=True)
    assert poptorch_warnings(caplog) == []
    optim.SGD(net.parameters(), lr=0.1, momentum=0.9, velocity_scaling=2.0)
    assert any("use_combined_accum=True" in w for w in poptorch_warnings(caplog))


# --- variable_attrs ---------------------------------------------------------------------------


def test_variable_attrs(net):
    opt = optim.SGD(net.parameters(), lr=0.01)
    attrs = opt.variable_attrs
    assert isinstance(attrs, optim.VariableAttributes)
    for name in ("lr", "momentum", "dampening", "weight_decay", "velocity_scaling", "loss_scaling"):
        assert not attrs.isConstant(name)
    attrs.markAsConstant("lr")
    attrs.markAsConstant("lr")  # idempotent
    assert attrs.isConstant("lr")
    attrs.markAsVariable("lr")
    assert not attrs.isConstant("lr")
    attrs.markAsConstant("loss_scaling")
    assert optim.describe(opt, _names(net)).constant == {"loss_scaling"}


@pytest.mark.parametrize("method", ["isConstant", "markAsConstant", "markAsVariable"])
def test_variable_attrs_unknown_attribute(net, method):
    opt = optim.Adam(net.parameters())
    with pytest.raises(ValueError) as info:
        getattr(opt.variable_attrs, method)("momentum")
    message = str(info.value)
    assert "'momentum'" in message
    assert "lr, betas, eps, weight_decay, loss_scaling" in message


def test_variable_attributes_direct():
    attrs = optim.VariableAttributes(["lr"], ["lr", "eps"])
    assert not attrs.isConstant("lr") and attrs.isConstant("eps")
    with pytest.raises(ValueError, match="Allowed: lr, eps"):
        optim.VariableAttributes(["alpha"], ["lr", "eps"])


def test_betas_constant_maps_to_beta1_beta2(net):
    opt = optim.LAMB(net.parameters())
    opt.variable_attrs.markAsConstant("betas")
    opt.variable_attrs.markAsConstant("max_weight_norm")
    assert optim.describe(opt, _names(net)).constant == {"beta1", "beta2", "max_weight_norm"}


def test_extra_attributes_survive_copy_and_pickle(net):
    opt = optim.SGD(net.parameters(), lr=0.1, loss_scaling=8.0, use_combined_accum=True, accum_type=torch.float16)
    opt.variable_attrs.markAsConstant("momentum")
    for clone in (copy.deepcopy(opt), pickle.loads(pickle.dumps(opt))):
        assert clone.loss_scaling == 8.0 and clone.use_combined_accum is True
        assert clone.accum_types["accum_type"] == torch.float16
        assert clone.variable_attrs.isConstant("momentum")


# --- describe ---------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [optim.SGD, optim.Adam, optim.RMSprop, optim.LAMB], ids=lambda c: c.__name__)
def test_every_compiled_hyper_parameter_can_be_marked(net, cls):
    # The compiled update reads these per param group (the ipu dialect's update ops
    # declare them); each is one the user can mark constant, betas standing for beta1/beta2.
    opt = cls(net.parameters(), lr=0.01)
    names = optim.group_hyper(cls._KIND)
    assert names[0] == "lr" and "loss_scaling" not in names
    for name in names:
        opt.variable_attrs.markAsConstant("betas" if name in ("beta1", "beta2") else name)


def test_describe_sgd_two_groups(net):
    opt = optim.SGD(
        [{"params": net.fc1.parameters(), "lr": 0.5, "velocity_scaling": 4.0}, {"params": net.fc2.parameters()}],
        lr=0.1, momentum=0.9, weight_decay=1e-4, loss_scaling=128.0, use_combined_accum=True,
        accum_type=torch.float16, max_grad_norm=5.0,
    )
    d = optim.describe(opt, _names(net))
    assert d.type == "sgd"
    assert d.flags == {"with_momentum": True, "nesterov": False, "variant": "combined"}
    assert d.groups == [
        {"lr": 0.5, "momentum": 0.9, "dampening": 0.0, "weight_decay": 1e-4, "velocity_scaling": 4.0},
        {"lr": 0.1, "momentum": 0.9, "dampening": 0.0, "weight_decay": 1e-4, "velocity_scaling": 1.0},
    ]
    assert d.param_groups == {"fc1.weight": 0, "fc1.bias": 0, "fc2.weight": 1, "fc2.bias": 1}
    assert d.loss_scaling == 128.0 and d.max_grad_norm == 5.0 and d.constant == set()
    assert d.accum_types == {"accum_type": torch.float16, "velocity_accum_type": F32}


def test_describe_sgd_without_momentum_and_nesterov(net):
    plain = optim.describe(optim.SGD(net.parameters(), lr=0.1), _names(net))
    assert plain.flags == {"with_momentum": False, "nesterov": False, "variant": "separate"}
    nesterov = optim.describe(optim.SGD(net.parameters(), lr=0.1, momentum=0.9, nesterov=True), _names(net))
    assert nesterov.flags["nesterov"] is True and nesterov.flags["with_momentum"] is True


def test_describe_momentum_in_one_group_only(net):
    opt = optim.SGD([{"params": net.fc1.parameters(), "momentum": 0.9}, {"params": net.fc2.parameters()}], lr=0.1)
    d = optim.describe(opt, _names(net))
    assert d.flags["with_momentum"] is True
    assert [g["momentum"] for g in d.groups] == [0.9, 0.0]


def test_describe_adam_and_adamw(net):
    adam = optim.describe(
        optim.Adam(net.parameters(), lr=2e-3, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, loss_scaling=16),
        _names(net),
    )
    assert adam.type == "adam" and adam.flags == {"variant": "adam", "bias_correction": True}
    assert adam.groups == [{"lr": 2e-3, "beta1": 0.8, "beta2": 0.99, "eps": 1e-6, "weight_decay": 0.1}]
    assert adam.loss_scaling == 16.0
    assert set(adam.accum_types) == {"accum_type", "first_order_momentum_accum_type",
                                     "second_order_momentum_accum_type"}
    adamw = optim.describe(optim.AdamW(net.parameters(), bias_correction=False), _names(net))
    assert adamw.type == "adam" and adamw.flags == {"variant": "adamw", "bias_correction": False}
    assert adamw.groups[0]["weight_decay"] == 1e-2


def test_describe_adam_two_groups(net):
    opt = optim.Adam([{"params": net.fc1.parameters()}, {"params": net.fc2.parameters(), "lr": 1e-4}], lr=1e-2)
    d = optim.describe(opt, _names(net))
    assert [g["lr"] for g in d.groups] == [1e-2, 1e-4]
    assert d.param_groups["fc2.bias"] == 1


def test_describe_rmsprop(net):
    opt = optim.RMSprop(net.parameters(), lr=0.02, alpha=0.9, eps=1e-7, momentum=0.5, weight_decay=0.01,
                        centered=True, use_tf_variant=True)
    d = optim.describe(opt, _names(net))
    assert d.type == "rmsprop"
    assert d.flags == {"centered": True, "with_momentum": True, "use_tf_variant": True}
    assert d.groups == [{"lr": 0.02, "alpha": 0.9, "eps": 1e-7, "momentum": 0.5, "weight_decay": 0.01}]
    assert d.max_grad_norm is None


def test_describe_lamb(net):
    opt = optim.LAMB(
        [{"params": net.fc1.parameters(), "max_weight_norm": 3.0}, {"params": net.fc2.parameters(), "lr": 0.1}],
        lr=0.01, bias_correction=False,
    )
    d = optim.describe(opt, _names(net))
    assert d.type == "lamb" and d.flags == {"bias_correction": False}
    assert d.groups == [
        {"lr": 0.01, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 1e-2, "max_weight_norm": 3.0},
        {"lr": 0.1, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 1e-2, "max_weight_norm": math.inf},
    ]


# The hyper-parameters each compiled update reads per param group, in operand order (the
# ipu dialect's update ops declare them; loss_scaling is global, not per group).
GROUP_HYPER = {
    "sgd": ("lr", "momentum", "dampening", "weight_decay", "velocity_scaling"),
    "adam": ("lr", "beta1", "beta2", "eps", "weight_decay"),
    "rmsprop": ("lr", "alpha", "eps", "momentum", "weight_decay"),
    "lamb": ("lr", "beta1", "beta2", "eps", "weight_decay", "max_weight_norm"),
}


@pytest.mark.parametrize("kind", list(GROUP_HYPER))
def test_group_hyper_parameters_are_the_update_operands(kind):
    assert optim.group_hyper(kind) == GROUP_HYPER[kind]


@pytest.mark.parametrize(("factory", "kind", "flags"), [
    (lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True), "sgd",
     {"with_momentum": True, "nesterov": True, "variant": "separate"}),
    (lambda p: torch.optim.Adam(p), "adam", {"variant": "adam", "bias_correction": True}),
    (lambda p: torch.optim.Adam(p, decoupled_weight_decay=True), "adam", {"variant": "adamw", "bias_correction": True}),
    (lambda p: torch.optim.AdamW(p), "adam", {"variant": "adamw", "bias_correction": True}),
    (lambda p: torch.optim.RMSprop(p, centered=True), "rmsprop",
     {"centered": True, "with_momentum": False, "use_tf_variant": False}),
], ids=["SGD", "Adam", "Adam-decoupled", "AdamW", "RMSprop"])
def test_describe_accepts_torch_optimizers(net, factory, kind, flags):
    d = optim.describe(factory(net.parameters()), _names(net))
    assert d.type == kind and d.flags == flags
    assert d.loss_scaling == 1.0 and d.constant == set() and d.max_grad_norm is None
    assert set(d.groups[0]) == set(GROUP_HYPER[kind])
    if kind == "sgd":
        assert d.groups[0]["velocity_scaling"] == 1.0
    assert all(dtype == F32 for dtype in d.accum_types.values())
    assert len(d.param_groups) == 4


def test_describe_rejects_other_optimizers(net):
    with pytest.raises(TypeError, match=r"Adagrad.*Supported optimizers: poptorch\.optim\.SGD.*torch\.optim\.SGD"):
        optim.describe(torch.optim.Adagrad(net.parameters()), _names(net))

    class MySGD(torch.optim.SGD):
        pass

    with pytest.raises(TypeError, match=r"subclass of torch\.optim\.SGD.*step\(\)"):
        optim.describe(MySGD(net.parameters(), lr=0.1), _names(net))

    class MyAdam(optim.Adam):
        pass

    assert optim.describe(MyAdam(net.parameters()), _names(net)).type == "adam"


def test_describe_rejects_foreign_parameters(net):
    other = torch.nn.Linear(2, 2)
    opt = optim.SGD(list(net.parameters()) + list(other.parameters()), lr=0.1)
    with pytest.raises(ValueError, match=r"2 of the optimizer's 6 parameters are not parameters of the wrapped "
                                         r"model.*model\.parameters\(\)"):
        optim.describe(opt, _names(net))


def test_describe_rechecks_changed_values(net):
    opt = optim.Adam([{"params": net.fc1.parameters()}, {"params": net.fc2.parameters()}])
    opt.param_groups[1]["eps"] = -1.0
    with pytest.raises(ValueError, match=r"poptorch\.optim\.Adam param group 1: eps=-1\.0"):
        optim.describe(opt, _names(net))
    opt.param_groups[1]["eps"] = 1e-8
    opt.loss_scaling = 0.0
    with pytest.raises(ValueError, match="loss_scaling=0.0"):
        optim.describe(opt, _names(net))


def test_describe_rejects_groups_disagreeing_on_structure(net):
    opt = optim.SGD([{"params": net.fc1.parameters(), "nesterov": True}, {"params": net.fc2.parameters()}],
                    lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match=r"disagree on nesterov \(group 0: True, group 1: False\)"):
        optim.describe(opt, _names(net))


def test_describe_group_lr_zero_is_allowed(net):
    """An LR scheduler may set a group's lr to 0; only the constructor insists on lr > 0."""
    opt = optim.SGD(net.parameters(), lr=0.1)
    opt.param_groups[0]["lr"] = 0.0
    assert optim.describe(opt, _names(net)).groups[0]["lr"] == 0.0


def test_max_grad_norm_inf_means_off(net):
    assert optim.describe(optim.Adam(net.parameters(), max_grad_norm=math.inf), _names(net)).max_grad_norm is None


# --- eager steps on the CPU -------------------------------------------------------------------


def _lamb_reference(weight, grads, lr, beta1, beta2, eps, decay, bias_correction, cap):
    """LAMB (You et al. 2019, Algorithm 2) in float64, with phi(z) = min(z, cap)."""
    x = weight.double().clone()
    m = torch.zeros_like(x)
    v = torch.zeros_like(x)
    for t, g in enumerate(grads, start=1):
        g = g.double()
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        m_hat, v_hat = (m / (1 - beta1**t), v / (1 - beta2**t)) if bias_correction else (m, v)
        r = m_hat / (torch.sqrt(v_hat) + eps) + decay * x
        phi = min(x.norm().item(), cap)
        r_norm = r.norm().item()
        ratio = phi / r_norm if phi > 0 and r_norm > 0 else 1.0
        x = x - lr * ratio * r
    return x


@pytest.mark.parametrize(("bias_correction", "cap"), [(True, None), (False, None), (True, 0.5)])
def test_lamb_step_matches_the_paper(bias_correction, cap):
    torch.manual_seed(1)
    weight = torch.nn.Parameter(torch.randn(4, 3))
    zero = torch.nn.Parameter(torch.zeros(3))  # ||x|| = 0: trust ratio 1
    grads = {weight: [torch.randn(4, 3), torch.randn(4, 3)], zero: [torch.randn(3), torch.randn(3)]}
    start = {p: p.detach().clone() for p in grads}
    if cap is not None:
        assert weight.norm() > cap, "the cap must bind for this case to test phi"
    opt = optim.LAMB([weight, zero], lr=0.05, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.1,
                     bias_correction=bias_correction, max_weight_norm=cap)
    for step in range(2):
        for p in grads:
            p.grad = grads[p][step].clone()
        opt.step()
    for p in grads:
        expected = _lamb_reference(start[p], grads[p], 0.05, 0.8, 0.95, 1e-6, 0.1, bias_correction,
                                   math.inf if cap is None else cap)
        torch.testing.assert_close(p.detach(), expected.float(), rtol=1e-5, atol=1e-7)
        assert not torch.equal(p.detach(), start[p]), "the step must move the weights"
    assert opt.state[weight]["step"] == 2


def test_lamb_step_skips_parameters_without_grad_and_returns_closure_loss():
    a, b = torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(2))
    opt = optim.LAMB([a, b], lr=0.1)
    a.grad = torch.ones(2)
    loss = opt.step(lambda: torch.tensor(3.0))
    assert loss.item() == 3.0
    assert torch.equal(b.detach(), torch.ones(2)) and not torch.equal(a.detach(), torch.ones(2))
    assert b not in opt.state


@pytest.mark.parametrize(("ours", "theirs"), [
    (lambda p: optim.SGD(p, lr=0.1, momentum=0.9, loss_scaling=64.0), lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9)),
    (lambda p: optim.Adam(p, lr=0.01), lambda p: torch.optim.Adam(p, lr=0.01)),
    (lambda p: optim.AdamW(p, lr=0.01), lambda p: torch.optim.AdamW(p, lr=0.01)),
    (lambda p: optim.RMSprop(p, momentum=0.5), lambda p: torch.optim.RMSprop(p, momentum=0.5)),
], ids=["SGD", "Adam", "AdamW", "RMSprop"])
def test_cpu_step_matches_torch(ours, theirs):
    torch.manual_seed(2)
    init = torch.randn(5)
    grads = [torch.randn(5) for _ in range(3)]
    results = []
    for factory in (ours, theirs):
        p = torch.nn.Parameter(init.clone())
        opt = factory([p])
        for g in grads:
            p.grad = g.clone()
            opt.step()
        results.append(p.detach())
    torch.testing.assert_close(results[0], results[1], **EXACT)
