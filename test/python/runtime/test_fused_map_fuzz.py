"""Property test of the fused maps' generated kernels (runtime/kernels/fused_map.py):
random expressions over random broadcastable operand shapes (whole, with leading ones,
a bias-like suffix, 0-d, one element, zero-size), float32 and bool operands, sizes
around torch's OpenMP grain. Each planned map is called on contiguous operands of its
planned types, where the kernels must run (``_Runner.native_calls``), and on operands
they cannot read (transposed, strided, expanded, lazily negated, float64), where
torch calls run; both must give the bits of the unfused torch ops
(``elementwise.compile_expression``), signed zeros included, at the map's declared
shape (the operands' broadcast shape), which the unfused ops give too. The in-place momentum
kernel is fuzzed over layouts and operands that alias the variable.
"""

from __future__ import annotations

import math
import random

import pytest
import torch

from ipu_mlir.runtime.kernels import fused_map, native_build
from ipu_mlir.runtime.kernels.elementwise import compile_expression, in_place_expression

pytestmark = pytest.mark.skipif(not native_build.enabled(), reason="no C compiler or torch libgomp: no native kernels")

SEED = 20240611
MAPS = 120

_NATIVE_UNARY = ("neg", "abs", "square", "reciprocal", "floor", "ceil", "trunc", "round", "relu")
_TORCH_UNARY = ("tanh", "exp", "sigmoid", "log1p", "sqrt")  # not computed by the kernels
_BINARY = ("add", "sub", "mul", "div")
_COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
_LITERALS = ("0.0", "-0.0", "1.0", "2.0", "0.5", "0.1", "-3.25", "1e-05", "0.7978845608028654", "inf")
_SPECIALS = (float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1e-40, -1e-40, 0.5, -0.5, 1.5, 2.5, -2.5, 1.0,
             -1.0, 0.1, 3.4e38)


@pytest.fixture(autouse=True, scope="module")
def _kernel_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A cache of the test's own; kernels for any size, zero included (the thresholds
    are speed, not numbers)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("IPU_MLIR_KERNEL_CACHE", str(tmp_path_factory.mktemp("kernels")))
        for name in ("MIN_ELEMENTS", "MIN_ELEMENTS_TWO_CALLS", "MIN_ELEMENTS_IN_PLACE"):
            patch.setattr(fused_map, name, 0)
        yield


class _Expressions:
    """Random expression text over operands of known kinds ("T" float32, "B" bool)."""

    def __init__(self, rng: random.Random, kinds: list[str]) -> None:
        self.rng, self.kinds = rng, kinds

    def leaf(self, kind: str, literal: bool = True) -> str:
        numbers = [i for i, k in enumerate(self.kinds) if k == kind]
        if kind == "T" and (not numbers or (literal and self.rng.random() < 0.2)):
            return self.rng.choice(_LITERALS)
        if not numbers:  # a bool from the float operands
            return f"gt(_{self.rng.choice(range(len(self.kinds))) + 1}, 0.0)"
        return f"_{self.rng.choice(numbers) + 1}"

    def float(self, depth: int, literal: bool = True) -> str:
        rng = self.rng
        if depth == 0 or rng.random() < 0.15:
            return self.leaf("T", literal)
        choice = rng.random()
        sub = depth - 1
        if choice < 0.3:
            first = rng.random() < 0.5
            a, b = self.float(sub, literal=not first), self.float(sub, literal=first)
            return f"{rng.choice(_BINARY)}({a}, {b})"
        if choice < 0.45:
            return f"{rng.choice(_NATIVE_UNARY)}({self.float(sub, False)})"
        if choice < 0.5:
            return f"pow({self.float(sub, False)}, {rng.choice(('2.0', '3.0'))})"
        if choice < 0.62:  # torch's scaled add: a literal scale (0 too) or a tensor one
            scale = rng.choice(("0.0", "0.25", "-1.5", "0.1")) if rng.random() < 0.6 else self.float(sub, False)
            return f"{rng.choice(('add', 'sub'))}({self.float(sub, False)}, mul({self.float(sub, False)}, {scale}))"
        if choice < 0.74:
            return f"select({self.boolean(sub)}, {self.float(sub, False)}, {self.float(sub)})"
        if choice < 0.8:  # a torch call: on a region's buffer in place, or an input of one
            return f"{rng.choice(_TORCH_UNARY)}({self.float(sub, False)})"
        if choice < 0.84:  # of a boolean region: a float tensor, not in place
            return f"{rng.choice(_TORCH_UNARY)}({self.boolean(sub)})"
        if choice < 0.88:
            return f"max({self.float(sub, False)}, {self.float(sub, False)})"
        if choice < 0.94:  # the gradients compile_tree runs as one ATen kernel
            return f"select(le({self.leaf('T', False)}, 0.0), 0.0, {self.float(sub, False)})"
        y = self.leaf("T", False)
        return f"mul(mul({self.float(sub, False)}, sub(1.0, {y})), {y})"

    def boolean(self, depth: int) -> str:
        rng = self.rng
        if depth == 0 or rng.random() < 0.15:
            return self.leaf("B")
        choice = rng.random()
        sub = depth - 1
        if choice < 0.5:
            return f"{rng.choice(_COMPARE)}({self.float(sub, False)}, {self.float(sub)})"
        if choice < 0.8:
            return f"{rng.choice(('and', 'or', 'xor'))}({self.boolean(sub)}, {self.boolean(sub)})"
        if choice < 0.9:
            return f"not({self.boolean(sub)})"
        return f"isnan({self.float(sub, False)})"


def _out_shape(rng: random.Random) -> tuple[int, ...]:
    pick = rng.random()
    if pick < 0.05:
        return rng.choice([(0,), (3, 0, 8), (0, 5)])
    if pick < 0.2:  # over torch's grain: several OpenMP threads, a period across their chunks
        return rng.choice([(40007,), (2, 33, 600), (257, 129)])
    while True:
        dims = tuple(rng.choice([1, 2, 3, 5, 7, 16, 31, 64, 100]) for _ in range(rng.randint(1, 4)))
        if math.prod(dims) <= 20000:
            return dims


def _operand_shape(rng: random.Random, out: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts to ``out`` along leading dims, or a one-element one."""
    pick = rng.random()
    if pick < 0.35:
        return out
    if pick < 0.45:
        return (1, *out)[-len(out) - 1:] if rng.random() < 0.5 else out
    if pick < 0.8 and len(out) > 0:
        k = rng.randint(1, len(out))
        suffix = out[len(out) - k:]
        return (1,) * rng.randint(0, 2) + suffix
    if pick < 0.9:
        return ()
    return rng.choice([(1,), (1, 1)])


def _values(shape: tuple[int, ...], kind: str, gen: torch.Generator) -> torch.Tensor:
    if kind == "B":
        return torch.rand(shape, generator=gen) < 0.5
    x = (torch.randn(shape, generator=gen) * 3).contiguous()
    flat = x.view(-1)
    if flat.numel():
        specials = torch.tensor(_SPECIALS)
        positions = torch.randint(0, flat.numel(), (min(flat.numel(), 40),), generator=gen)
        flat[positions] = specials[torch.randint(0, len(_SPECIALS), (positions.numel(),), generator=gen)]
    return x


def _same_bits(got: object, want: object) -> bool:
    """Equal values, dtypes and shapes; floats bit for bit (-0.0 is not 0.0), any NaN
    equal to any NaN."""
    if not isinstance(want, torch.Tensor):
        return got == want or (got != got and want != want)  # NaN
    if not isinstance(got, torch.Tensor) or got.dtype != want.dtype or got.shape != want.shape:
        return False
    if not want.dtype.is_floating_point:
        return torch.equal(got, want)
    both_nan = got.isnan() & want.isnan()
    bits = torch.int32 if want.dtype == torch.float32 else torch.int64
    same = got.contiguous().view(bits) == want.contiguous().view(bits)
    return bool((same | both_nan).all())


def _unreadable(rng: random.Random, x: torch.Tensor) -> torch.Tensor:
    """A tensor of ``x``'s shape in a layout or type the kernels do not read: float64,
    a lazily negated view, transposed, every other element, expanded (the first row's
    values)."""
    options = []
    if x.dtype == torch.float32:
        options += ["float64", "negated"]
    if x.dim() >= 2 and x.shape[-1] > 1 and x.shape[-2] > 1:
        options.append("transposed")
    if x.numel() > 1:
        options.append("strided")
    if x.dim() >= 1 and x.shape[0] > 1:
        options.append("expanded")
    if not options:
        return x
    pick = rng.choice(options)
    if pick == "float64":
        return x.double()
    if pick == "negated":
        return torch._neg_view(-x)  # the same values, negated lazily
    if pick == "transposed":
        return x.transpose(-1, -2).contiguous().transpose(-1, -2)
    if pick == "strided":
        wide = torch.empty((*x.shape, 2), dtype=x.dtype)
        wide[..., 0] = x
        return wide[..., 0]
    return x[:1].expand(x.shape)


def _planned_maps() -> list[tuple[str, list[tuple[tuple[int, ...], str]], fused_map.FusedMap]]:
    rng = random.Random(SEED)
    maps = []
    tries = 0
    while len(maps) < MAPS and tries < 20 * MAPS:
        tries += 1
        out = _out_shape(rng)
        count = rng.randint(1, 3)
        kinds = ["B" if rng.random() < 0.15 else "T" for _ in range(count)]
        if "T" not in kinds:
            kinds[0] = "T"
        shapes = [_operand_shape(rng, out) for _ in kinds]
        shapes[rng.randrange(count)] = out  # the result has the broadcast shape
        expressions = _Expressions(rng, kinds)
        boolean_result = rng.random() < 0.2
        expr = expressions.boolean(rng.randint(2, 4)) if boolean_result else expressions.float(rng.randint(2, 5), False)
        if not all(f"_{i + 1}" in expr for i in range(count)):
            continue
        result = tuple(torch.broadcast_shapes(*shapes))
        planned = fused_map.plan(expr, [(list(s), torch.bool if k == "B" else torch.float32) for s, k in zip(shapes, kinds, strict=True)],
                                 (list(result), torch.bool if boolean_result else torch.float32))
        if planned is not None:
            maps.append((expr, list(zip(shapes, kinds, strict=True)), planned))
    return maps


def test_random_maps_equal_the_unfused_ops_bit_for_bit() -> None:
    maps = _planned_maps()
    assert len(maps) == MAPS, f"only {len(maps)} random maps got a region"
    assert fused_map.wait_for_kernels(300)
    for _, _, planned in maps:
        assert planned.native, [r.kernel.error for r in planned.runners]
    rng, gen = random.Random(SEED + 1), torch.Generator().manual_seed(SEED)
    ran, suffix_ran, threaded_ran, failures = 0, 0, 0, []
    for expr, operands, planned in maps:
        reference = compile_expression(expr, False)
        args = [_values(shape, kind, gen) for shape, kind in operands]
        result = torch.broadcast_shapes(*(a.shape for a in args))  # the map's declared shape
        want = reference(*args)
        if not (isinstance(want, torch.Tensor) and want.shape == result):
            failures.append(("reference shape", expr, getattr(want, "shape", want), result))
        before = sum(r.native_calls for r in planned.runners)
        got = planned(*args)
        if not _same_bits(got, want):
            failures.append(("planned layout", expr, [tuple(a.shape) for a in args]))
        if sum(r.native_calls for r in planned.runners) > before:
            ran += 1
            suffix_ran += any(s.mode == "suffix" for r in planned.runners for s in r.region.inputs)
            threaded_ran += any(r.numel >= fused_map.GRAIN for r in planned.runners)
        # an operand in a layout or type the kernels cannot read: torch calls
        index = rng.randrange(len(args))
        changed = list(args)
        changed[index] = _unreadable(rng, args[index])
        if not _same_bits(planned(*changed), reference(*changed)):
            failures.append(("unreadable operand", expr, index))
    assert not failures, failures[:10]
    # every map whose regions' inputs came as planned ran a kernel
    assert ran >= 0.9 * len(maps) and suffix_ran >= 10 and threaded_ran >= 5, (ran, suffix_ran, threaded_ran)


def test_random_momentum_updates_in_place() -> None:
    """v = v * m + g into v over layouts of g (whole, bias-like, one element), 0-d and
    one-element m, transposed v, and g or m views of v (the kernel would read g before
    torch's first op wrote v): the bits of torch's ``v.mul_(m).add_(g)``, or its error."""
    expr = "add(mul(_1, _2), _3)"
    rng, gen = random.Random(SEED + 2), torch.Generator().manual_seed(SEED + 2)
    cases = []
    for _ in range(40):
        shape = rng.choice([(257, 129), (40000 * 3 + 7,), (3, 5, 64)])
        g_shape = rng.choice([shape, shape[-1:], (1, *shape[1:]), (1,)])
        m_shape = rng.choice([(), (1,)])
        torch_update = in_place_expression(expr, [False, m_shape == (), False])
        update = fused_map.plan_in_place(expr, [(list(shape), torch.float32), (list(m_shape), torch.float32),
                                                (list(g_shape), torch.float32)], torch_update)
        assert update is not None
        cases.append((shape, g_shape, m_shape, update, torch_update))
    assert fused_map.wait_for_kernels()
    native = 0
    for shape, g_shape, m_shape, update, torch_update in cases:
        assert update.runner.kernel.function is not None, update.runner.kernel.error
        v, m, g = _values(shape, "T", gen), torch.full(m_shape, rng.choice([0.0, 0.9, 1.0, -0.5])), _values(g_shape, "T", gen)
        alias = rng.choice(["none", "none", "g is v", "g overlaps v", "m in v", "v transposed"])
        results = []
        for run in (update, torch_update):
            mine, m_here, g_here = v.clone(), m, g
            if alias == "g is v" and g_shape == shape:
                g_here = mine
            elif alias == "g overlaps v" and g_shape == shape:  # g[i] is v[i - 1]
                buffer = torch.cat([mine.view(-1)[-1:], mine.view(-1)])
                mine, g_here = buffer[1:].view(shape), buffer[:-1].view(shape)
            elif alias == "m in v":
                m_here = mine.view(-1)[:1].view(m_shape)
            elif alias == "v transposed" and len(shape) == 2:
                mine = mine.t().contiguous().t()
            before = update.runner.native_calls
            try:
                run(mine, m_here, g_here)
                results.append(mine)
            except RuntimeError as error:  # torch refuses a partial overlap
                results.append(str(error))
            native += run is update and update.runner.native_calls > before
        got, want = results
        same = got == want if isinstance(want, str) else _same_bits(got, want)
        assert same, (alias, shape, g_shape, m_shape, got if isinstance(got, str) else "a tensor")
    assert native >= 15, native


@pytest.mark.parametrize("expr", [
    "neg(add(_1, mul(_2, -1.5)))", "mul(sub(_1, mul(_2, 1.5)), -1.0)", "mul(-1.0, add(_1, mul(_2, -1.5)))",
    "div(add(_1, mul(_2, -1.5)), -1.0)", "mul(neg(add(_1, mul(_2, -1.5))), 1.0)",
])
def test_a_negated_scaled_add_keeps_the_sign_of_zero(expr: str) -> None:
    """-(a + b * s) where torch's one-rounding add is exactly 0: -0.0, as torch.neg gives
    (GCC folds a negated fmaf into one fnmsub, which gives +0; the seed-3 fuzz failure)."""
    a = torch.tensor([1.5, 0.0, -0.0, 3.0, 1.0, float("nan")] * 200)
    b = torch.tensor([1.0, 0.0, 0.0, 2.0, -1.0, 1.0] * 200)
    planned = fused_map.plan(expr, [([1200], torch.float32)] * 2, ([1200], torch.float32))
    assert planned is not None and fused_map.wait_for_kernels() and planned.native
    got, want = planned(a, b), compile_expression(expr, False)(a, b)
    assert planned.runners[0].native_calls == 1
    assert _same_bits(got, want), (got[:6].tolist(), want[:6].tolist())
    assert str(want[0].item()) == "-0.0"
