"""User code in the ``poplar`` dialect: custom ops, host callbacks, and the CTC decoder.

``custom_op`` / ``custom_op_grad`` are PopART custom ops (``poptorch.custom_op``): a
named op of a domain whose implementation the user provides (on the IPU Model: a Python
function or a torch.library op, ``support/host_functions.py``). ``program_host_call`` is
``poplar::program::Call`` of a ``poplar::HostFunction`` (``poptorch.CPU``): the inputs
stream to the host, a host function runs, its results stream back.
``popnn_ctc_beam_search_decoder`` is ``popnn::ctc_infer::beamSearchDecoderLogProbabilities``
(``poptorch.ctc_beam_search_decoder``). Lowered from the Torch dialect by
``convert_torch_to_poplar/custom.py``; run by ``runtime/kernels/custom.py``.
"""

from collections.abc import Sequence

from torch_mlir import ir
from torch_mlir.dialects import ext

from .._base import I64ArrayAttr, Rules
from .base import PoplarOp, Tensor, TensorResult, element_of, shape_of


# IRDL binds every value of a variadic group to one type, so the (differently typed) values
# of a custom op or host call are slots of their own: groups of 0 or 1 values, filled from
# the first (``input0``, ``input1``, ...), at most MAX_VALUES of each kind.
MAX_VALUES = 8


def slot_names(prefix: str) -> list[str]:
    return [f"{prefix}{i}" for i in range(MAX_VALUES)]


def _slot_values(v: Rules, op: ir.OpView, prefix: str) -> list[ir.Value]:
    """The values of the slots ``<prefix>0`` ... in order; each holds at most one, and the
    filled ones come first."""
    groups = [list(getattr(op, name)) for name in slot_names(prefix)]
    sizes = [len(group) for group in groups]
    v.require(all(size <= 1 for size in sizes), f"each '{prefix}<i>' slot holds at most one value, got sizes {sizes}")
    count = sum(sizes)
    v.require(sizes == [1] * count + [0] * (MAX_VALUES - count), f"the '{prefix}<i>' slots must be filled from "
              f"'{prefix}0' without gaps, got sizes {sizes}")
    return [group[0] for group in groups if group]


def _is_float(element: ir.Type) -> bool:
    return isinstance(element, ir.FloatType | ir.ComplexType)


def _is_integer(element: ir.Type) -> bool:
    return isinstance(element, ir.IntegerType) and ir.IntegerType(element).width > 1


def _attribute_value_ok(attr: ir.Attribute) -> bool:
    """A float, an int, a string, or an array of only floats, only ints or only strings."""
    scalar = (ir.FloatAttr, ir.IntegerAttr, ir.StringAttr)
    if isinstance(attr, ir.BoolAttr):
        return False
    if isinstance(attr, scalar):
        return True
    if isinstance(attr, ir.ArrayAttr):
        kinds = {next((k for k in scalar if isinstance(a, k)), None) for a in attr}
        return None not in kinds and len(kinds) <= 1 and not any(isinstance(a, ir.BoolAttr) for a in attr)
    return False


def _check_custom(v: Rules) -> None:
    """The identity of a custom op: name, domain, version and its attribute dictionary."""
    v.string("op_name", nonempty=True)
    v.string("domain")
    v.int("domain_version", min=0)
    attrs = v._attr("op_attributes")
    v.require(isinstance(attrs, ir.DictAttr), f"attribute 'op_attributes' must be a dictionary, got {attrs}")
    for index in range(len(ir.DictAttr(attrs))):
        named = ir.DictAttr(attrs)[index]
        v.require(_attribute_value_ok(named.attr), f"custom op attribute '{named.name}' must be a float, an int, a "
                  f"string, or an array of only one of them, got {named.attr}")


class CustomOp(PoplarOp, name="custom_op"):
    """A user's custom op ``domain::op_name`` (version ``domain_version``) applied to
    ``inputs`` (a PopART custom op; ``poptorch.custom_op``).

    Semantics: the inputs are the slots ``input0`` ... and the results ``output0`` ...
    (``MAX_VALUES`` of each; IRDL gives every value of one variadic group the same type, so
    each slot is a group of 0 or 1 values, filled from the first). The implementation
    registered for ``(domain, op_name)`` runs with the inputs and the entries of ``op_attributes`` as keyword arguments (floats, ints,
    strings, or arrays of one of them); it must give one tensor per result, of the
    result's type. The compiler knows nothing else about it (it may have side effects:
    the op is not pure).

    Example:
      %o:2 = "poplar.custom_op"(%x, %y) {op_name = "LeakyRelu", domain = "custom.ops", domain_version = 1 : i64,
             op_attributes = {alpha = 5.000000e-02 : f64}, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>,
             resultSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>} : (tensor<4xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<f32>)
    """

    for _name in slot_names("input"):
        __annotations__[_name] = Sequence[Tensor]
    op_name: ir.StringAttr
    domain: ir.StringAttr
    domain_version: ir.IntegerAttr
    op_attributes: ir.DictAttr
    for _name in slot_names("output"):
        __annotations__[_name] = Sequence[TensorResult]
    del _name

    def check(self, v: Rules) -> None:
        _check_custom(v)
        _slot_values(v, self, "input")
        v.require(len(_slot_values(v, self, "output")) >= 1, "a custom op has at least one output")


class CustomOpGradOp(PoplarOp, name="custom_op_grad"):
    """The gradient of a ``poplar.custom_op``: the gradients of the inputs listed in
    ``differentiable``, given the op's inputs, its outputs and their gradients.

    Semantics: the backward registered for ``(domain, op_name)`` runs (or, with none, the
    autograd of its implementation); an input whose gradient it does not give gets zeros.
    ``grad_outputs`` have the outputs' types; result ``i`` has the type of input
    ``differentiable[i]`` (increasing indices of floating-point inputs).

    Example:
      %g = "poplar.custom_op_grad"(%x, %o, %do) {op_name = "Cube", domain = "custom.ops", domain_version = 1 : i64,
             op_attributes = {}, differentiable = array<i64: 0>,
             operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0,  1, 0, 0, 0, 0, 0, 0, 0,  1, 0, 0, 0, 0, 0, 0, 0>,
             resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    """

    for _name in slot_names("input"):
        __annotations__[_name] = Sequence[Tensor]
    for _name in slot_names("output"):
        __annotations__[_name] = Sequence[Tensor]
    for _name in slot_names("grad_output"):
        __annotations__[_name] = Sequence[Tensor]
    op_name: ir.StringAttr
    domain: ir.StringAttr
    domain_version: ir.IntegerAttr
    op_attributes: ir.DictAttr
    differentiable: I64ArrayAttr
    for _name in slot_names("grad_input"):
        __annotations__[_name] = Sequence[TensorResult]
    del _name

    def check(self, v: Rules) -> None:
        _check_custom(v)
        inputs, outputs, grads = (_slot_values(v, self, p) for p in ("input", "output", "grad_output"))
        v.require(len(grads) == len(outputs), f"expects one grad_output per output, got {len(grads)} for {len(outputs)}")
        for index, (out, grad) in enumerate(zip(outputs, grads, strict=True)):
            v.require(out.type == grad.type, f"grad_output #{index} must have output #{index}'s type {out.type}, got {grad.type}")
        wanted = v.i64_array("differentiable", min=0)
        v.require(all(a < b for a, b in zip(wanted, wanted[1:], strict=False)),
                  f"attribute 'differentiable' must be increasing, got {wanted}")
        v.require(all(i < len(inputs) for i in wanted), f"attribute 'differentiable' {wanted} names an input past the "
                  f"{len(inputs)} inputs")
        results = _slot_values(v, self, "grad_input")
        v.require(len(results) == len(wanted), f"expects one result per differentiable input ({len(wanted)}), got {len(results)}")
        for i, result in zip(wanted, results, strict=True):
            v.require(_is_float(element_of(inputs[i])), f"input #{i} is listed in 'differentiable' but has "
                      f"{element_of(inputs[i])} elements (only floating-point inputs have gradients)")
            v.require(result.type == inputs[i].type, f"the gradient of input #{i} must have its type {inputs[i].type}, "
                      f"got {result.type}")


class HostCallOp(PoplarOp, name="program_host_call"):
    """Runs a host function in the middle of the program (``poplar::program::Call`` of the
    ``poplar::HostFunction`` named ``handle``; ``poptorch.CPU``).

    Semantics: the ``inputs`` stream to the host (device-to-host), the function registered
    under ``handle`` runs on them, and its results stream back (host-to-device) as the
    ``outputs``, which must have the declared types. The call blocks the program; it is
    not pure (the function may keep state) and runs exactly where it is in the program.
    Inference only: it has no gradient. Slots as in ``poplar.custom_op``.

    Example:
      %o = "poplar.program_host_call"(%x) {handle = "MyCPUOp#1", operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>,
             resultSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    """

    for _name in slot_names("input"):
        __annotations__[_name] = Sequence[Tensor]
    handle: ir.StringAttr
    for _name in slot_names("output"):
        __annotations__[_name] = Sequence[TensorResult]
    del _name

    def check(self, v: Rules) -> None:
        v.string("handle", nonempty=True)
        _slot_values(v, self, "input")
        v.require(len(_slot_values(v, self, "output")) >= 1, "a host call must return at least one tensor")


class CtcBeamSearchDecoderOp(PoplarOp, name="popnn_ctc_beam_search_decoder"):
    """The ``top_paths`` most probable label sequences of each batch element by CTC prefix
    beam search (``popnn::ctc_infer::beamSearchDecoderLogProbabilities``;
    ``poptorch.ctc_beam_search_decoder``).

    Semantics: ``log_probs`` ``[T, B, C]`` are per-step class log probabilities,
    ``lengths`` ``[B]`` (integers in ``[0, T]``) the valid steps of each element; class
    ``blank`` (in ``[0, C)``) is CTC's blank. The search keeps the ``beam_width`` most
    probable prefixes after each step (``support/ctc.py``). Results: ``probabilities``
    ``[B, top_paths]`` (log probabilities, most probable first, ``log_probs``' element
    type; -inf where fewer paths exist), ``path_lengths`` ``[B, top_paths]`` and ``paths``
    ``[B, top_paths, T]`` (i32 labels, padded with ``blank`` past each path's length).
    ``1 <= top_paths <= beam_width``.

    Example:
      %p, %l, %d = "poplar.popnn_ctc_beam_search_decoder"(%x, %n) {blank = 0 : i64, beam_width = 10 : i64, top_paths = 2 : i64}
             : (tensor<5x2x4xf32>, tensor<2xi32>) -> (tensor<2x2xf32>, tensor<2x2xi32>, tensor<2x2x5xi32>)
    """

    log_probs: Tensor
    lengths: Tensor
    blank: ir.IntegerAttr
    beam_width: ir.IntegerAttr
    top_paths: ir.IntegerAttr
    probabilities: TensorResult
    path_lengths: TensorResult
    paths: TensorResult

    def check(self, v: Rules) -> None:
        shape = shape_of(self.log_probs, "log_probs")
        v.require(len(shape) == 3, f"log_probs must be [T, B, C] (rank 3), got {shape}")
        v.require(isinstance(element_of(self.log_probs), ir.FloatType), f"log_probs must have floating-point elements, "
                  f"got {element_of(self.log_probs)}")
        steps, batch, classes = shape
        v.require(shape_of(self.lengths, "lengths") == [batch], f"lengths must be [{batch}] (one per batch element), "
                  f"got {shape_of(self.lengths, 'lengths')}")
        v.require(_is_integer(element_of(self.lengths)), f"lengths must have integer elements, got {element_of(self.lengths)}")
        v.int("blank", min=0, max=classes - 1)
        width = v.int("beam_width", min=1)
        top = v.int("top_paths", min=1, max=width)
        for what, value, expected in (("probabilities", self.probabilities, [batch, top]),
                                      ("path_lengths", self.path_lengths, [batch, top]),
                                      ("paths", self.paths, [batch, top, steps])):
            got = shape_of(value, what)
            v.require(got == expected, f"{what} shape must be {expected}, got {got}")
        v.require(element_of(self.probabilities) == element_of(self.log_probs),
                  "probabilities must have log_probs' element type")
        def is_i32(element: ir.Type) -> bool:
            return isinstance(element, ir.IntegerType) and ir.IntegerType(element).width == 32 \
                and ir.IntegerType(element).is_signless

        v.require(is_i32(element_of(self.path_lengths)) and is_i32(element_of(self.paths)),
                  f"path_lengths and paths must have i32 elements, got {element_of(self.path_lengths)} and "
                  f"{element_of(self.paths)}")
