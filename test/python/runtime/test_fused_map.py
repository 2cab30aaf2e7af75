"""Fused map expressions (runtime/kernels/fused_map.py): the generated kernels give the
bits of the unfused evaluation (the expression's ops one by one with torch calls,
``elementwise.compile_expression``) for every function class they compute, on values
that reach the edge cases (NaN, infinities, signed zeros, subnormals, halves), on sizes
with vector tails and over torch's grain (several OpenMP threads), with each operand
layout they read (whole, bias-like suffix, scalar). What they do not compute stays torch
calls; an operand they cannot read makes the region fall back to torch calls.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest
import torch

from ipu_mlir.runtime.kernels import fused_map, native_build
from ipu_mlir.runtime.kernels.elementwise import compile_expression

pytestmark = pytest.mark.skipif(not native_build.enabled(), reason="no C compiler or torch libgomp: no native kernels")


@pytest.fixture(autouse=True, scope="module")
def _kernel_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A cache of the tests' own; kernels for any size (the thresholds are speed, not
    numbers: test_thresholds checks them)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("IPU_MLIR_KERNEL_CACHE", str(tmp_path_factory.mktemp("kernels")))
        for name in ("MIN_ELEMENTS", "MIN_ELEMENTS_TWO_CALLS", "MIN_ELEMENTS_IN_PLACE"):
            patch.setattr(fused_map, name, 1024)
        yield


def _values(shape: tuple[int, ...], seed: int) -> torch.Tensor:
    """Normal values with the edge cases sprinkled in."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=generator) * 3
    flat = x.view(-1)
    specials = torch.tensor([float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1e-40, -1e-40, 0.5, -0.5, 1.5,
                             2.5, -2.5, 1.0, -1.0, 3.4e38, -3.4e38])
    positions = torch.randperm(flat.numel(), generator=generator)[: min(flat.numel(), 4 * specials.numel())]
    flat[positions] = specials.repeat(4)[: positions.numel()]
    return x


def _fused(expr: str, shapes: list[tuple[int, ...]], dtypes: list[torch.dtype] | None = None,
           result: torch.dtype = torch.float32) -> fused_map.FusedMap:
    dtypes = dtypes or [torch.float32] * len(shapes)
    out_shape = tuple(torch.broadcast_shapes(*shapes))
    planned = fused_map.plan(expr, [(list(s), d) for s, d in zip(shapes, dtypes, strict=True)], (list(out_shape), result))
    assert planned is not None, f"{expr} got no region"
    assert fused_map.wait_for_kernels()
    assert planned.native, [r.kernel.error for r in planned.runners]
    return planned


def _assert_same_bits(got: torch.Tensor, want: torch.Tensor) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)


# (expression, number of operands): each function class the kernels compute, alone and
# in chains, with literals on either side.
EXPRESSIONS = [
    ("add(mul(_1, _2), sub(_1, 0.1))", 2),
    ("div(sub(1.0, _1), add(_2, 3.0))", 2),
    ("mul(div(_1, 7.0), neg(_2))", 2),
    ("abs(sub(square(_1), _2))", 2),
    ("add(_1, reciprocal(_2))", 2),
    ("add(floor(_1), ceil(_2))", 2),
    ("sub(trunc(_1), round(mul(_2, 2.0)))", 2),
    ("relu(mul(_1, _2))", 2),
    ("mul(pow(_1, 2.0), pow(_2, 3.0))", 2),
    ("select(gt(_1, _2), mul(_1, 2.0), sub(_2, 1.0))", 2),
    ("select(and(le(_1, 0.0), not(isnan(_2))), 0.0, add(_1, _2))", 2),
    ("select(or(eq(_1, _2), ne(_1, 0.5)), add(_1, 1.0), _2)", 2),
    ("select(xor(lt(_1, 0.0), ge(_2, 0.0)), _1, mul(_2, _2))", 2),
    ("add(_1, mul(_2, 0.7978845608028654))", 2),  # torch.add(a, b, alpha=s): one rounding
    ("sub(_1, mul(add(_2, 1.0), 0.25))", 2),
    ("add(_1, mul(_2, 0.0))", 2),  # a scale of 0: a + 0 * b (NaN where b is infinite)
    ("add(mul(_1, 3.0), mul(_2, _1))", 2),  # a scaled add by a tensor: two roundings
    ("mul(add(_1, mul(pow(_1, 3.0), 0.044715)), 0.7978845608028654)", 1),
    ("add(add(_2, mul(mul(_2, 0.044715), mul(pow(_3, 2.0), 3.0))), _1)", 3),
    ("mul(add(mul(pow(_1, 3.0), 0.044715), _1), 0.7978845608028654)", 1),  # as poplar-fuse-elementwise writes them
    ("add(add(mul(mul(_2, 0.044715), mul(pow(_3, 2.0), 3.0)), _2), _1)", 3),
    ("add(neg(mul(_2, 0.25)), _1)", 2),
    ("mul(mul(_1, sub(1.0, _2)), _2)", 2),
    ("select(le(_2, 0.0), 0.0, _1)", 2),
    ("mul(add(_1, 1.0), div(_2, 1.0))", 2),  # by 1: torch returns the operand
]


@pytest.mark.parametrize("size", [1031, 40000 * 3 + 7], ids=["tail", "threads"])
@pytest.mark.parametrize(("expr", "count"), EXPRESSIONS, ids=[e for e, _ in EXPRESSIONS])
def test_kernel_equals_the_unfused_ops(expr: str, count: int, size: int) -> None:
    shape = (size,)
    planned = _fused(expr, [shape] * count)
    args = [_values(shape, seed) for seed in range(count)]
    _assert_same_bits(planned(*args), compile_expression(expr, False)(*args))


@pytest.mark.parametrize(("expr", "shapes"), [
    ("add(mul(_1, _2), 1.0)", [(4, 96, 64), (64,)]),  # a bias: the result's trailing dim
    ("add(mul(_1, _2), _3)", [(4, 96, 64), (1, 96, 64), (96, 64)]),  # leading ones
    ("sub(mul(_1, _2), mul(_1, 2.0))", [(4, 96, 64), ()]),  # a 0-d operand: a scalar
    ("select(_2, 0.0, add(_1, 2.0))", [(4, 96, 64), (4, 96, 64)]),  # a boolean operand
], ids=["suffix", "leading-ones", "scalar", "bool"])
def test_broadcast_operands(expr: str, shapes: list[tuple[int, ...]]) -> None:
    dtypes = [torch.bool if "select(_2" in expr and i == 1 else torch.float32 for i in range(len(shapes))]
    planned = _fused(expr, shapes, dtypes)
    args = [(_values(s, i) > 0) if d == torch.bool else _values(s, i) for i, (s, d) in enumerate(zip(shapes, dtypes))]
    _assert_same_bits(planned(*args), compile_expression(expr, False)(*args))


@pytest.mark.parametrize("scale", ["0.0", "-0.0", "0.1", "-1.5"])
@pytest.mark.parametrize("name", ["add", "sub"])
@pytest.mark.parametrize("first", [(3, 1031), (1031,), ()], ids=["whole", "bias", "scalar"])
def test_a_literal_scaled_add_is_eagers_torch_add(name: str, scale: str, first: tuple[int, ...]) -> None:
    """``a +- b * k`` is eager's ``torch.add(a, b, alpha=+-k)`` (aten.add with alpha): one
    rounding whatever a's layout, and for k = 0 a + 0 * b, not a."""
    planned = _fused(f"{name}(_1, mul(_2, {scale}))", [first, (3, 1031)])
    a, b = _values(first, 14) if first else torch.tensor(-0.0), _values((3, 1031), 15)
    _assert_same_bits(planned(a, b), getattr(torch, name)(a, b, alpha=float(scale)))
    assert planned.runners[0].native_calls == 1


def test_boolean_result() -> None:
    expr = "and(gt(add(_1, _2), 0.0), lt(mul(_1, _2), 1.0))"
    planned = _fused(expr, [(5000,), (5000,)], result=torch.bool)
    args = [_values((5000,), 1), _values((5000,), 2)]
    _assert_same_bits(planned(*args), compile_expression(expr, False)(*args))


@pytest.mark.parametrize("function", ["tanh", "exp", "sigmoid", "log", "erf", "expm1", "log1p"])
def test_torch_function_on_a_region_runs_in_place(function: str) -> None:
    """gelu_new's forward: torch computes the transcendental function (in place on the
    region's buffer), the kernel the arithmetic around it."""
    expr = f"mul(add({function}(mul(add(_1, mul(pow(_1, 3.0), 0.044715)), 0.7978845608028654)), 1.0), _2)"
    planned = _fused(expr, [(70001,), (70001,)])
    assert len(planned.runners) == 2
    args = [_values((70001,), 3), _values((70001,), 4)]
    _assert_same_bits(planned(*args), compile_expression(expr, False)(*args))


def test_unsupported_nodes_stay_torch_calls() -> None:
    """sqrt (MKL's here, not always correctly rounded), pow by 2.5, max, clamp and a 0-d scale of a scaled add (its value decides whether
    torch works at all) have no kernel; a single op is no region; integer maps none."""
    shape = [(4096,), (4096,)]
    for expr in ("add(sqrt(_1), _2)", "pow(_1, 2.5)", "max(_1, _2)", "clamp(_1, 0.0, 1.0)", "mul(_1, 2.0)"):
        assert fused_map.plan(expr, [(list(s), torch.float32) for s in shape], ([4096], torch.float32)) is None
    assert fused_map.plan("add(_1, mul(_2, _3))", [([4096], torch.float32), ([4096], torch.float32), ([], torch.float32)],
                          ([4096], torch.float32)) is None
    assert fused_map.plan("add(mul(_1, 3), 1)", [([4096], torch.int32)], ([4096], torch.int32)) is None
    expr = "add(mul(max(_1, _2), 2.0), 1.0)"  # the max is an input of the region above it
    planned = _fused(expr, shape)
    args = [_values((4096,), 5), _values((4096,), 6)]
    _assert_same_bits(planned(*args), compile_expression(expr, False)(*args))


def test_operands_the_kernel_cannot_read_fall_back() -> None:
    """A transposed (non-contiguous) operand, or a broadcast over a middle dim, is
    computed with torch calls: the same bits."""
    expr = "add(mul(_1, _2), 1.0)"
    planned = _fused(expr, [(64, 96), (64, 96)])
    a, b = _values((96, 64), 7).t(), _values((64, 96), 8)
    _assert_same_bits(planned(a, b), compile_expression(expr, False)(a, b))
    assert fused_map.plan(expr, [([4, 96, 64], torch.float32), ([4, 1, 64], torch.float32)], ([4, 96, 64], torch.float32)) is None


def test_one_openmp_runtime_and_the_disk_cache(tmp_path) -> None:  # noqa: ANN001
    """A fresh process compiles a kernel once, loads it from the cache the next time,
    and maps no OpenMP runtime but torch's."""
    script = textwrap.dedent("""
        import re, torch
        from ipu_mlir.runtime.kernels import fused_map, native_build
        from ipu_mlir.runtime.kernels.elementwise import compile_expression
        f = fused_map.plan("add(mul(_1, _2), 0.5)", [([100000], torch.float32)] * 2, ([100000], torch.float32))
        assert fused_map.wait_for_kernels() and f.native
        a, b = torch.randn(100000), torch.randn(100000)
        assert torch.equal(f(a, b), compile_expression("add(mul(_1, _2), 0.5)", False)(a, b))
        libraries = sorted(set(re.findall(r"/\\S*libgomp\\S*", open("/proc/self/maps").read())))
        print("builds", sum(native_build.BUILDS), "gomp", libraries)
    """)
    env = {"IPU_MLIR_KERNEL_CACHE": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                           env={**__import__("os").environ, **env}) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr
    (first, gomp), (second, _) = (re.search(r"builds (\d+) gomp (.*)", r.stdout).groups() for r in runs)
    assert (first, second) == ("1", "0")
    assert gomp.count("libgomp") == 1 and "torch/lib/libgomp.so.1" in gomp


def test_a_compiler_that_fails_leaves_torch_calls(tmp_path) -> None:  # noqa: ANN001
    script = textwrap.dedent("""
        import logging, torch
        logging.basicConfig(level=logging.WARNING)
        from ipu_mlir.runtime.kernels import fused_map
        from ipu_mlir.runtime.kernels.elementwise import compile_expression
        f = fused_map.plan("add(mul(_1, _2), 0.5)", [([100000], torch.float32)] * 2, ([100000], torch.float32))
        assert fused_map.wait_for_kernels() and not f.native
        a, b = torch.randn(100000), torch.randn(100000)
        assert torch.equal(f(a, b), compile_expression("add(mul(_1, _2), 0.5)", False)(a, b))
        print("ok")
    """)
    import os

    env = {**os.environ, "IPU_MLIR_KERNEL_CACHE": str(tmp_path), "IPU_MLIR_CC": "false"}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0 and "ok" in run.stdout, run.stderr
    assert "generated kernels could not be built" in run.stderr
    env["IPU_MLIR_NATIVE_KERNELS"] = "0"
    off = subprocess.run([sys.executable, "-c", "import torch\nfrom ipu_mlir.runtime.kernels import fused_map\n"
                          "print(fused_map.plan('add(mul(_1, _2), 0.5)', [([100000], torch.float32)] * 2, ([100000], torch.float32)))"],
                         capture_output=True, text=True, timeout=300, env=env)
    assert off.stdout.strip() == "None", off.stderr


@pytest.mark.parametrize("momentum", [0.0, 0.9, 1.0])
def test_momentum_update_in_place(momentum: float) -> None:
    """SGD's v = v * m + g (v.mul_(m).add_(g), two passes for torch) in one pass straight
    into v: the same bits, through the kernel and, for a transposed v, through torch."""
    from ipu_mlir.runtime.kernels.elementwise import in_place_expression

    expr, shape = "add(mul(_1, _2), _3)", (257, 129)
    torch_update = in_place_expression(expr, [False, True, False])
    update = fused_map.plan_in_place(expr, [(list(shape), torch.float32), ([], torch.float32), (list(shape), torch.float32)],
                                     torch_update)
    assert update is not None and fused_map.wait_for_kernels() and update.runner.kernel.function is not None
    m, g = torch.tensor(momentum), _values(shape, 9)
    for v in (_values(shape, 10), _values((129, 257), 10).t()):
        got, want = v.clone() if v.is_contiguous() else v.clone().t().contiguous().t(), v.clone()
        update(got, m, g)
        torch_update(want, m, g)
        torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)
    assert fused_map.plan_in_place("sub(_1, mul(_2, _3))", [(list(shape), torch.float32)] * 2 + [([], torch.float32)],
                                   torch_update) is None  # torch's one sub_(alpha=) call already


def test_an_operand_shared_copy_on_write_is_read_where_it_is() -> None:
    """A weight the device shares with the host until a side writes (device_store.device_copy:
    torch's copy-on-write) and a kernel only reads stays shared: no copy of it is made (a
    raw data_ptr() made one), for a map and for the in-place momentum's g."""
    expr = "add(mul(_1, _2), 1.0)"
    planned = _fused(expr, [(4096,), (4096,)])
    host, x = _values((4096,), 16), _values((4096,), 17)
    weight = torch._lazy_clone(host)
    _assert_same_bits(planned(weight, x), compile_expression(expr, False)(host, x))
    assert planned.runners[0].native_calls == 1 and torch._C._is_cow_tensor(weight)
    from ipu_mlir.runtime.kernels.elementwise import in_place_expression

    expr, shape = "add(mul(_1, _2), _3)", (257, 129)
    torch_update = in_place_expression(expr, [False, True, False])
    update = fused_map.plan_in_place(expr, [(list(shape), torch.float32), ([], torch.float32), (list(shape), torch.float32)],
                                     torch_update)
    assert update is not None and fused_map.wait_for_kernels()
    v, g = _values(shape, 18), _values(shape, 19)
    shared, want = torch._lazy_clone(g), v.clone()
    torch_update(want, torch.tensor(0.9), g)
    update(v, torch.tensor(0.9), shared)
    assert update.runner.native_calls == 1 and torch._C._is_cow_tensor(shared)
    _assert_same_bits(v, want)


def test_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel call costs more than a torch call: two ops get one from 65536 elements,
    three or more from 1024, an in-place update from 262144."""
    for name, value in (("MIN_ELEMENTS", 1024), ("MIN_ELEMENTS_TWO_CALLS", 65536), ("MIN_ELEMENTS_IN_PLACE", 262144)):
        monkeypatch.setattr(fused_map, name, value)

    def planned(expr: str, n: int, count: int) -> bool:
        return fused_map.plan(expr, [([n], torch.float32)] * count, ([n], torch.float32)) is not None

    assert not planned("mul(mul(_1, _2), 0.5)", 65535, 2) and planned("mul(mul(_1, _2), 0.5)", 65536, 2)
    assert not planned("add(mul(mul(_1, _2), 0.5), 1.0)", 1023, 2) and planned("add(mul(mul(_1, _2), 0.5), 1.0)", 1024, 2)
    operands = [([262143], torch.float32), ([], torch.float32), ([262143], torch.float32)]
    assert fused_map.plan_in_place("add(mul(_1, _2), _3)", operands, print) is None
    assert fused_map.wait_for_kernels()


def test_gradient_patterns_run_as_the_aten_kernels() -> None:
    """The relu and sigmoid gradients poplar-fuse-elementwise writes into maps compute, on
    torch calls, as popnn's gradient ops did: one ATen kernel each, the same bits; a 0-d
    or broadcast operand takes the ops one by one."""
    aten = torch.ops.aten
    g, x = _values((3, 1031), 11), _values((3, 1031), 12)
    y = torch.sigmoid(_values((3, 1031), 13))
    relu = compile_expression("select(le(_2, 0.0), 0.0, _1)", False)
    sigmoid = compile_expression("mul(mul(_1, sub(1.0, _2)), _2)", False)
    _assert_same_bits(relu(g, x), aten.threshold_backward(g, x, 0))
    _assert_same_bits(sigmoid(g, y), aten.sigmoid_backward(g, y))
    row = x[0]
    _assert_same_bits(relu(g, row), torch.where(row <= 0.0, 0.0, g))
    _assert_same_bits(sigmoid(g, y[0]), (g * (1.0 - y[0])) * y[0])
    for scalar in (torch.tensor(-1.0), torch.tensor(1.0)):  # torch.where's: g's shape, in a buffer of its own
        _assert_same_bits(relu(g, scalar), torch.where(scalar <= 0.0, 0.0, g))
        assert relu(g, scalar).data_ptr() != g.data_ptr()
