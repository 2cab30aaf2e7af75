"""poptorch.Block / BeginBlock / BlockFunction / removeBlocks, end to end up to ``ipu.block``.

Each model is captured as the compiler captures it (``capture_inference`` or
``capture_training``), then ``ipu-annotate-blocks`` turns the block metadata in the op
locations into ``ipu.block = #ipu.block<"user_id", ipu_id>`` (ipu_id -1: not given).
The models follow the user guide's examples: BeginBlock on existing layers, inline
Block with ``useAutoId``, BlockFunction, f-string ids built in a loop. The rules checked
are SEMANTICS.md "Multi-IPU execution" / Blocks and the module docstring of
``poptorch.annotations`` (which annotation wins, automatic ids, eager = no effect).
"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest
import torch
import torch.fx.traceback as fxtb
import torch.nn as nn
import torch.nn.functional as F

import poptorch.annotations as pa  # not `from poptorch import annotations`: see test_module_is_importable_by_name
from ipu_mlir import dialects
from ipu_mlir.compiler import location_metadata as meta
from ipu_mlir.compiler.frontend.capture import capture_inference
from ipu_mlir.compiler.frontend.training import capture_training
from ipu_mlir.compiler.pass_pipeline import run_pipeline
from ipu_mlir.dialects.ipu import block_of
from poptorch.annotations import BeginBlock, Block, BlockFunction, removeBlocks

NONE = -1  # the ipu_id ipu-annotate-blocks records for a block given no ipu_id

# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Op:
    name: str  # "torch.aten.linear"
    path: str | None  # module path from the location ("layer1", "<model>")
    block: tuple[str, int] | None  # (user_id, ipu_id) of ipu.block
    backward: bool


def _ops(module) -> list[Op]:
    func = module.body.operations[0]
    found = []
    for op in func.regions[0].blocks[0].operations:
        op = op.operation
        if not op.name.startswith("torch.aten."):
            continue  # constants, lists, return: not the layers' computation
        data = meta.metadata(op)
        backward = meta.BACKWARD in data and bool(data[meta.BACKWARD].value)
        found.append(Op(op.name, meta.module_path(op), block_of(op), backward))
    return found


def annotate(captured) -> list[Op]:
    run_pipeline(captured.module, "ipu-annotate-blocks")
    return _ops(captured.module)


def infer(model: nn.Module, *args: torch.Tensor) -> list[Op]:
    return annotate(capture_inference(model.eval(), args, {}, dialects.make_context()))


def train(model: nn.Module, *args: torch.Tensor) -> list[Op]:
    return annotate(capture_training(model.train(), args, {}, dialects.make_context()))


def blocks_by_path(ops: list[Op], backward: bool = False) -> dict[str, set]:
    """{module path: the set of blocks of its (forward or backward) aten ops}."""
    table: dict[str, set] = {}
    for op in ops:
        if op.backward == backward and op.path is not None:
            table.setdefault(op.path, set()).add(op.block)
    return table


def x_in(n: int = 4) -> torch.Tensor:
    return torch.randn(2, n)


# ---------------------------------------------------------------------------------------
# Models of the user guide's examples
# ---------------------------------------------------------------------------------------
class FourLayers(nn.Module):
    """Four linear layers and a softmax (the guide's pipeline_simple Network)."""

    def __init__(self) -> None:
        super().__init__()
        self.layer1 = nn.Linear(4, 8)
        self.layer2 = nn.Linear(8, 8)
        self.layer3 = nn.Linear(8, 8)
        self.layer4 = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.layer1(x))
        x = F.relu(self.layer2(x))
        x = F.relu(self.layer3(x))
        return F.softmax(self.layer4(x), dim=1)


class InlineBlocks(FourLayers):
    """The same network annotated inline with automatic ids and explicit IPUs."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        Block.useAutoId()
        with Block(ipu_id=0):
            x = F.relu(self.layer1(x))
        with Block(ipu_id=1):
            x = F.relu(self.layer2(x))
        with Block(ipu_id=2):
            x = F.relu(self.layer3(x))
            x = self.layer4(x)
        with Block(ipu_id=3):
            x = F.softmax(x, dim=1)
        return x


class Encoder(nn.Module):
    def __init__(self, layers: int = 4) -> None:
        super().__init__()
        self.embed = nn.Linear(4, 8)
        self.layer = nn.ModuleList(nn.Linear(8, 8) for _ in range(layers))
        self.head = nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.embed(x)
        for layer in self.layer:
            x = torch.tanh(layer(x))
        return self.head(x) * 2.0


# ---------------------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------------------
def test_module_is_importable_by_name() -> None:
    # poptorch/__init__.py's `from __future__ import annotations` binds poptorch.annotations
    # to a __future__ feature until the submodule is imported; importing it replaces that.
    import poptorch

    assert poptorch.annotations is pa and pa.Block is Block


def test_metadata_keys_are_the_compilers() -> None:
    assert pa._BLOCK_KEY == meta.BLOCK
    assert pa._IPU_KEY == meta.IPU


def test_begin_block_on_existing_layers() -> None:
    model = FourLayers()
    assert BeginBlock(model.layer2, "second", ipu_id=1) is model.layer2
    BeginBlock(model.layer4, "last", ipu_id=2)
    captured = capture_inference(model.eval(), (x_in(),), {}, dialects.make_context())
    ops = annotate(captured)
    table = blocks_by_path(ops)
    assert table["layer1"] == {None}  # before the first BeginBlock: no block (IPU 0)
    assert table["layer2"] == {("second", 1)}
    assert table["layer3"] == {("second", 1)}  # everything after it, until the next one
    assert table["layer4"] == {("last", 2)}
    # ops of the top-level forward follow the block in effect when they run
    relus = [op.block for op in ops if op.name == "torch.aten.relu"]
    assert relus == [None, ("second", 1), ("second", 1)]
    assert [op.block for op in ops if op.name == "torch.aten.softmax.int"] == [("last", 2)]
    assert 'ipu.block = #ipu.block<"second", 1 : i64>' in captured.module.operation.get_asm()


def test_begin_block_with_f_strings_in_a_loop() -> None:
    model = Encoder(layers=4)
    for index, layer in enumerate(model.layer):
        model.layer[index] = BeginBlock(layer, f"encoder{index}", ipu_id=index // 2)
    table = blocks_by_path(infer(model, x_in()))
    assert table["embed"] == {None}
    for index in range(4):
        assert table[f"layer.{index}"] == {(f"encoder{index}", index // 2)}
    assert table["head"] == {("encoder3", 1)}


def test_begin_block_without_ids_uses_automatic_ids_and_no_ipu() -> None:
    model = Encoder(layers=3)
    for layer in model.layer:
        BeginBlock(layer)
    table = blocks_by_path(infer(model, x_in()))
    assert [table[f"layer.{i}"] for i in range(3)] == [{("0", NONE)}, {("1", NONE)}, {("2", NONE)}]


def test_begin_block_module_called_twice_keeps_its_block() -> None:
    class Twice(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(4, 4)
            self.shared = nn.Linear(4, 4)
            self.b = nn.Linear(4, 4)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = self.shared(x)
            x = self.a(x)
            return self.shared(self.b(x))

    model = Twice()
    BeginBlock(model.shared)  # automatic id, given once per trace
    BeginBlock(model.a, "A")
    BeginBlock(model.b, "B")
    ops = [op for op in infer(model, x_in()) if op.name == "torch.aten.linear"]
    assert [(op.path, op.block) for op in ops] == [
        ("shared", ("0", NONE)), ("a", ("A", NONE)), ("b", ("B", NONE)), ("shared", ("0", NONE)),
    ]


def test_inline_blocks_with_auto_ids_and_ipus() -> None:
    ops = infer(InlineBlocks(), x_in())
    table = blocks_by_path(ops)
    assert table["layer1"] == {("0", 0)}
    assert table["layer2"] == {("1", 1)}
    assert table["layer3"] == {("2", 2)}
    assert table["layer4"] == {("2", 2)}
    assert [op.block for op in ops if op.name == "torch.aten.relu"] == [("0", 0), ("1", 1), ("2", 2)]
    assert [op.block for op in ops if op.name == "torch.aten.softmax.int"] == [("3", 3)]


def test_use_auto_id_numbers_only_blocks_without_user_id() -> None:
    class Mixed(FourLayers):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            Block.useAutoId()
            with Block():  # "0"
                x = self.layer1(x)
            with Block("special_block"):
                x = self.layer2(x)
            with Block():  # "1"
                x = self.layer3(x)
            with Block():  # "2"
                return self.layer4(x)

    table = blocks_by_path(infer(Mixed(), x_in()))
    assert [table[f"layer{i}"] for i in range(1, 5)] == [
        {("0", NONE)}, {("special_block", NONE)}, {("1", NONE)}, {("2", NONE)},
    ]


def test_automatic_ids_restart_with_every_trace() -> None:
    class NoUseAutoId(FourLayers):  # without useAutoId: the trace restarts the numbering
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            with Block():
                x = self.layer1(x)
            with Block():
                return self.layer4(x)

    model = NoUseAutoId()
    first = blocks_by_path(infer(model, x_in()))
    second = blocks_by_path(infer(model, x_in()))
    assert first["layer1"] == second["layer1"] == {("0", NONE)}
    assert first["layer4"] == second["layer4"] == {("1", NONE)}


def test_reset_trace_state_is_safe_to_call_from_the_frontend() -> None:
    pa._reset_trace_state()
    pa._reset_trace_state()
    assert "ipu_block" not in (fxtb.current_meta.get("custom") or {})
    table = blocks_by_path(infer(InlineBlocks(), x_in()))
    assert table["layer1"] == {("0", 0)}


def test_block_function_decorator() -> None:
    class EncoderDecoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = nn.Linear(4, 8)
            self.decoder_b1 = nn.Linear(8, 8)
            self.decoder_b2 = nn.Linear(8, 2)

        @BlockFunction("Encoder", ipu_id=0)
        def encode(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(self.encoder(x))

        @BlockFunction("Decoder", ipu_id=1)
        def decoder(self, encoder_output: torch.Tensor) -> torch.Tensor:
            return self.decoder_b2(torch.relu(self.decoder_b1(encoder_output)))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.decoder(self.encode(x))

    assert EncoderDecoder.decoder.__name__ == "decoder"  # functools.wraps
    ops = infer(EncoderDecoder(), x_in())
    table = blocks_by_path(ops)
    assert table["encoder"] == {("Encoder", 0)}
    assert table["decoder_b1"] == table["decoder_b2"] == {("Decoder", 1)}
    assert [op.block for op in ops if op.name == "torch.aten.relu"] == [("Encoder", 0), ("Decoder", 1)]


def test_block_function_without_user_id_numbers_each_call() -> None:
    @BlockFunction(ipu_id=1)
    def step(layer: nn.Module, x: torch.Tensor) -> torch.Tensor:
        return layer(x)

    class Repeat(FourLayers):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            Block.useAutoId()
            return step(self.layer2, step(self.layer1, x))

    table = blocks_by_path(infer(Repeat(), x_in()))
    assert table["layer1"] == {("0", 1)} and table["layer2"] == {("1", 1)}


def test_f_string_blocks_built_in_a_loop() -> None:
    class Phased(nn.Module):
        """The guide's phased example: block ids f"phase{phase}_ipu{ipu}" built at run time."""

        def __init__(self, phases: int = 3) -> None:
            super().__init__()
            self.phases = phases
            self.layers = nn.ModuleList(nn.Linear(4, 4) for _ in range(phases * 2))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for phase in range(self.phases):
                for ipu in range(2):
                    with Block(f"phase{phase}_ipu{ipu}", ipu_id=ipu):
                        x = torch.sigmoid(self.layers[phase * 2 + ipu](x))
            return x

    ops = infer(Phased(), x_in())
    table = blocks_by_path(ops)
    for phase in range(3):
        for ipu in range(2):
            assert table[f"layers.{phase * 2 + ipu}"] == {(f"phase{phase}_ipu{ipu}", ipu)}
    assert [op.block[0] for op in ops if op.name == "torch.aten.sigmoid"] == [
        "phase0_ipu0", "phase0_ipu1", "phase1_ipu0", "phase1_ipu1", "phase2_ipu0", "phase2_ipu1",
    ]


def test_nested_blocks_inner_wins_including_ipu_id() -> None:
    class Nested(FourLayers):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            with Block("outer", ipu_id=1):
                x = self.layer1(x)
                with Block("inner"):  # no ipu_id: not inherited from "outer"
                    x = self.layer2(x)
                    with Block("innermost", ipu_id=3):
                        x = self.layer3(x)
                x = self.layer4(x)  # back in "outer"
            return x

    table = blocks_by_path(infer(Nested(), x_in()))
    assert table["layer1"] == {("outer", 1)}
    assert table["layer2"] == {("inner", NONE)}
    assert table["layer3"] == {("innermost", 3)}
    assert table["layer4"] == {("outer", 1)}


def test_block_inside_a_begin_block_then_back() -> None:
    class Mixed(FourLayers):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x = self.layer2(self.layer1(x))  # layer2 switches to "B"
            with Block("detour", ipu_id=3):
                x = self.layer3(x)
            return self.layer4(x)  # "B" again

    model = Mixed()
    BeginBlock(model.layer2, "B", ipu_id=1)
    table = blocks_by_path(infer(model, x_in()))
    assert table["layer1"] == {None}
    assert table["layer2"] == {("B", 1)}
    assert table["layer3"] == {("detour", 3)}
    assert table["layer4"] == {("B", 1)}


def test_begin_block_inside_a_block_outlives_it() -> None:
    class Mixed(FourLayers):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            with Block("A", ipu_id=0):
                x = self.layer1(x)
                x = self.layer2(x)  # BeginBlock "B": from here on
                x = torch.tanh(x)
            return self.layer4(self.layer3(x))

    model = Mixed()
    BeginBlock(model.layer2, "B", ipu_id=1)
    ops = infer(model, x_in())
    table = blocks_by_path(ops)
    assert table["layer1"] == {("A", 0)}
    assert table["layer2"] == table["layer3"] == table["layer4"] == {("B", 1)}
    assert [op.block for op in ops if op.name == "torch.aten.tanh"] == [("B", 1)]


def test_eager_execution_is_unaffected() -> None:
    torch.manual_seed(0)
    plain = FourLayers()
    annotated = InlineBlocks()
    annotated.load_state_dict(plain.state_dict())
    BeginBlock(annotated.layer3, "three", ipu_id=1)
    x = x_in()
    before = dict(fxtb.current_meta)
    torch.testing.assert_close(annotated(x), plain(x))
    with Block("eager", ipu_id=2):
        assert "ipu_block" not in (fxtb.current_meta.get("custom") or {})
    assert fxtb.current_meta == before


def test_annotations_do_not_leak_out_of_a_trace() -> None:
    model = FourLayers()
    BeginBlock(model.layer1, "first", ipu_id=0)
    infer(model, x_in())
    assert "ipu_block" not in (fxtb.current_meta.get("custom") or {})
    removeBlocks(model)
    assert blocks_by_path(infer(model, x_in()))["layer4"] == {None}


# ---------------------------------------------------------------------------------------
# Training: backward ops get the blocks of their forward ops
# ---------------------------------------------------------------------------------------
class WithLoss(nn.Module):
    def __init__(self, body: nn.Module) -> None:
        super().__init__()
        self.body = body
        self.loss = nn.MSELoss()

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = self.body(x)
        return out, self.loss(out, target)


# The joint graph's ops carry no module path, so the training checks go by op order.
def blocks_of(ops: list[Op], name: str, backward: bool) -> list:
    return [op.block for op in ops if op.name == name and op.backward == backward]


def test_training_inline_blocks_reach_backward_ops() -> None:
    ops = train(WithLoss(InlineBlocks()), x_in(), torch.rand(2, 4))
    assert blocks_of(ops, "torch.aten.addmm", backward=False) == [("0", 0), ("1", 1), ("2", 2), ("2", 2)]
    assert blocks_of(ops, "torch.aten._softmax", backward=False) == [("3", 3)]
    assert blocks_of(ops, "torch.aten._softmax_backward_data", backward=True) == [("3", 3)]
    # relu's gradient, layer3, layer2, layer1: each in its forward op's block
    assert blocks_of(ops, "torch.aten.threshold_backward", backward=True) == [("2", 2), ("1", 1), ("0", 0)]
    weight_grads = blocks_of(ops, "torch.aten.mm", backward=True)
    assert set(weight_grads) == {("0", 0), ("1", 1), ("2", 2)}
    assert all(op.block is not None for op in ops if op.backward)


def test_training_begin_block_reaches_backward_ops() -> None:
    body = Encoder(layers=2)
    BeginBlock(body.embed, "embed", ipu_id=0)
    for index, layer in enumerate(body.layer):
        BeginBlock(layer, f"encoder{index}", ipu_id=index + 1)
    ops = train(WithLoss(body), x_in(), torch.rand(2, 2))
    # embed, layer.0, layer.1, head (head follows layer.1's block)
    assert blocks_of(ops, "torch.aten.addmm", backward=False) == [
        ("embed", 0), ("encoder0", 1), ("encoder1", 2), ("encoder1", 2),
    ]
    assert blocks_of(ops, "torch.aten.mse_loss", backward=False) == [("encoder1", 2)]
    assert blocks_of(ops, "torch.aten.mse_loss_backward", backward=True) == [("encoder1", 2)]
    assert blocks_of(ops, "torch.aten.tanh_backward", backward=True) == [("encoder1", 2), ("encoder0", 1)]
    assert all(op.block is not None for op in ops if op.backward)


def test_training_block_function_reaches_backward_ops() -> None:
    class Body(FourLayers):
        @BlockFunction("front", ipu_id=0)
        def front(self, x: torch.Tensor) -> torch.Tensor:
            return torch.sigmoid(self.layer2(self.layer1(x)))

        @BlockFunction("back", ipu_id=1)
        def back(self, x: torch.Tensor) -> torch.Tensor:
            return self.layer4(torch.sigmoid(self.layer3(x)))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.back(self.front(x))

    ops = train(WithLoss(Body()), x_in(), torch.rand(2, 4))
    assert blocks_of(ops, "torch.aten.sigmoid", backward=False) == [("front", 0), ("back", 1)]
    assert blocks_of(ops, "torch.aten.sigmoid_backward", backward=True) == [("back", 1), ("front", 0)]


class LateBlocks(nn.Module):
    """Ops before the first BeginBlock, then id-less Blocks without useAutoId."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Linear(4, 8)
        self.mid = nn.Linear(8, 8)
        self.a = nn.Linear(8, 8)
        self.b = nn.Linear(8, 2)
        BeginBlock(self.mid, "mid", ipu_id=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.mid(torch.relu(self.embed(x)))
        with Block(ipu_id=2):
            x = self.a(x)
        with Block(ipu_id=3):
            return self.b(x)


EXPECTED_LATE = [None, ("mid", 1), ("0", 2), ("1", 3)]  # addmm of embed, mid, a, b


def test_reset_at_each_run_of_the_model_keeps_runs_identical() -> None:
    # What the frontend should do (see _reset_trace_state): reset when each run of the
    # model starts. torch.export runs forward once, the joint trace of training twice.
    model = WithLoss(LateBlocks())
    model.register_forward_pre_hook(lambda *_: pa._reset_trace_state())
    ops = train(model, x_in(), torch.rand(2, 2))
    assert blocks_of(ops, "torch.aten.addmm", backward=False) == EXPECTED_LATE


def test_training_runs_of_the_model_start_clean() -> None:
    ops = train(WithLoss(LateBlocks()), x_in(), torch.rand(2, 2))
    assert blocks_of(ops, "torch.aten.addmm", backward=False) == EXPECTED_LATE


# ---------------------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("factory", [Block, BlockFunction, lambda **kw: BeginBlock(nn.Linear(2, 2), **kw)],
                         ids=["Block", "BlockFunction", "BeginBlock"])
def test_negative_ipu_id_is_refused(factory) -> None:
    with pytest.raises(ValueError, match=r"ipu_id must be >= 0 .*got -1"):
        factory(user_id="a", ipu_id=-1)


@pytest.mark.parametrize("bad", [True, 1.0, "1"])
def test_ipu_id_must_be_an_int(bad) -> None:
    with pytest.raises(TypeError, match=rf"Block: ipu_id must be an int .*got {bad!r} of type {type(bad).__name__}"):
        Block("a", ipu_id=bad)


def test_numpy_style_integral_ipu_id_is_accepted() -> None:
    import numpy as np

    assert Block("a", ipu_id=np.int64(2)).ipu_id == 2
    assert type(Block("a", ipu_id=np.int64(2)).ipu_id) is int


@pytest.mark.parametrize("factory", [Block, BlockFunction, lambda *a, **kw: BeginBlock(nn.Linear(2, 2), *a, **kw)],
                         ids=["Block", "BlockFunction", "BeginBlock"])
def test_user_id_must_be_a_string(factory) -> None:
    with pytest.raises(TypeError, match=r"user_id must be a str .*got 3 of type int"):
        factory(3)
    with pytest.raises(ValueError, match="user_id must not be empty"):
        factory("")


def test_block_function_without_parentheses_is_explained() -> None:
    with pytest.raises(TypeError, match=r"@BlockFunction without parentheses"):

        @BlockFunction
        def body(x: torch.Tensor) -> torch.Tensor:
            return x


def test_begin_block_needs_a_module() -> None:
    with pytest.raises(TypeError, match=r"BeginBlock: layer_to_call must be a torch.nn.Module, got function.*BlockFunction"):
        BeginBlock(lambda x: x, "a")
    with pytest.raises(TypeError, match=r"must be a torch.nn.Module, got Tensor"):
        BeginBlock(torch.zeros(2), "a")


def test_a_module_can_be_assigned_to_one_block_only() -> None:
    layer = nn.Linear(3, 5)
    BeginBlock(layer, "first", ipu_id=0)
    with pytest.raises(ValueError) as error:
        BeginBlock(layer, "second", ipu_id=1)
    message = str(error.value)
    assert "Linear(in_features=3, out_features=5, bias=True)" in message
    assert "'first' (ipu_id 0)" in message and "'second' (ipu_id 1)" in message
    assert "one block only" in message and "removeBlocks" in message
    with pytest.raises(ValueError, match=r"'first' \(ipu_id 0\).*<automatic id>"):
        BeginBlock(layer)
    # the same block again changes nothing and adds no second hook
    assert BeginBlock(layer, "first", ipu_id=0) is layer
    assert len(layer._forward_pre_hooks) == 1
    assert pa._block_of(layer) == ("first", 0)


# ---------------------------------------------------------------------------------------
# removeBlocks, copies
# ---------------------------------------------------------------------------------------
def test_remove_blocks_undoes_begin_block_recursively() -> None:
    model = Encoder(layers=3)
    user_hook = model.layer[0].register_forward_pre_hook(lambda m, a: None)
    for index, layer in enumerate(model.layer):
        BeginBlock(layer, f"encoder{index}", ipu_id=index)
    BeginBlock(model, "whole")
    assert removeBlocks(model) is None
    assert all(pa._block_of(m) is None for m in model.modules())
    assert len(model.layer[0]._forward_pre_hooks) == 1  # the user's own hook stays
    assert not model._forward_pre_hooks
    user_hook.remove()
    assert all(block is None for blocks in blocks_by_path(infer(model, x_in())).values() for block in blocks)
    # and the layers can go to other blocks now
    BeginBlock(model.layer[1], "again", ipu_id=2)
    table = blocks_by_path(infer(model, x_in()))
    assert table["layer.0"] == {None} and table["layer.1"] == table["layer.2"] == {("again", 2)}


def test_remove_blocks_needs_a_module() -> None:
    with pytest.raises(TypeError, match="removeBlocks: module must be a torch.nn.Module, got list"):
        removeBlocks([nn.Linear(2, 2)])


def test_begin_block_survives_deepcopy_and_pickle() -> None:
    model = Encoder(layers=2)
    BeginBlock(model.layer[1], "late", ipu_id=1)
    for clone in (copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        table = blocks_by_path(infer(clone, x_in()))
        assert table["layer.0"] == {None} and table["layer.1"] == {("late", 1)}
        removeBlocks(clone)
    assert pa._block_of(model.layer[1]) == ("late", 1)  # the original keeps its block


def test_block_object_properties_and_reuse() -> None:
    block = Block("reused", ipu_id=1)
    assert (block.user_id, block.ipu_id) == ("reused", 1)
    assert repr(block) == "Block(user_id='reused', ipu_id=1)"
    auto = Block()
    assert auto.user_id is None and auto.ipu_id is None

    class Reuse(FourLayers):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            with auto:
                x = self.layer1(x)
            with block:
                x = self.layer2(x)
            with auto:  # the same object keeps its automatic id within the trace
                x = self.layer3(x)
            return self.layer4(x)

    table = blocks_by_path(infer(Reuse(), x_in()))
    assert table["layer1"] == table["layer3"] == {("0", NONE)}
    assert table["layer2"] == {("reused", 1)}


class LateBeginBlock(FourLayers):
    """layer1 and layer2 run before the first block; BeginBlock(layer3) starts "back" on IPU 1."""

    def __init__(self) -> None:
        super().__init__()
        BeginBlock(self.layer3, "back", ipu_id=1)


def test_training_backward_of_ops_before_the_first_block_has_no_block() -> None:
    # Autograd traces the whole backward after the forward, with "back" still active, so
    # every backward op carries it in its location; the forward op (same seq_nr) decides.
    ops = train(WithLoss(LateBeginBlock()), x_in(), torch.rand(2, 4))
    # layer1, layer2, layer3, layer4
    assert blocks_of(ops, "torch.aten.addmm", backward=False) == [None, None, ("back", 1), ("back", 1)]
    # the gradients of relu after layer3, layer2, layer1 (backward order)
    assert blocks_of(ops, "torch.aten.threshold_backward", backward=True) == [("back", 1), None, None]
    # weight and input gradients: 2 each for layer4, layer3, layer2; layer1 needs no input gradient
    assert blocks_of(ops, "torch.aten.mm", backward=True) == [("back", 1)] * 4 + [None] * 3
    assert blocks_of(ops, "torch.aten._softmax_backward_data", backward=True) == [("back", 1)]
    assert blocks_of(ops, "torch.aten.mse_loss_backward", backward=True) == [("back", 1)]

