"""The C++ of user code that runs on the host: ``program_host_call`` (``poptorch.CPU``),
``custom_op`` and ``custom_op_grad`` (``poptorch.custom_op``). Registered in
``compute.EMITTERS``.

Each is a ``poplar::HostFunction`` (``graph.addHostFunction(handle, inputs, outputs)``)
called with ``poplar::program::Call(function, inputs, outputs)``: the inputs go to the host,
the function runs there, its outputs come back into new tensors. The program cannot contain
the user's Python, so each host function calls a C function the user links with the
program, declared ``extern "C"`` at the top of the unit:

* ``ipu_host_call_<ID>(inputs, numInputs, outputs, numOutputs)`` for the ``poptorch.CPU``
  op of handle ``<ID>`` (its handle, e.g. ``MyCPUOp#1``, made an identifier);
* ``ipu_custom_op_<domain>_<name>(inputs, numInputs, outputs, numOutputs, attributes)`` for
  every call of the custom op ``domain::name``, ``attributes`` its attributes as a JSON object;
* ``ipu_custom_op_grad_<domain>_<name>(inputs, numInputs, outputs, gradOutputs, numOutputs,
  gradInputs, differentiable, numGradInputs, attributes)`` for its gradient: the op's inputs,
  outputs and the outputs' gradients in, the gradients of the inputs ``differentiable[i]`` out.

Every tensor is an ``IpuHostTensor`` (a plain C struct: type name, rank, shape, number of
elements, host data as raw row-major elements). ``main`` connects each host function to a
callback that describes its arguments this way and calls the implementation
(``engine.connectHostFunction``). A missing implementation is a link error naming it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from torch_mlir import ir

from ipu_mlir.support.host_functions import host_call_id

from .compute import _dims, emits
from .errors import CodegenError

_TYPE_NAMES = {"FLOAT": "float", "HALF": "half", "INT": "int", "UNSIGNED_INT": "unsigned int", "LONGLONG": "long long",
               "BOOL": "bool", "CHAR": "char"}

DECLARATIONS = tuple(r"""
// ---- Host functions ------------------------------------------------------------------
// This program calls code that runs on the host (poptorch.CPU ops, custom ops): each is a
// poplar::HostFunction whose callback calls one of the functions declared below, which the
// user implements (in C or C++) and links with the program. Each reads its inputs and fills
// its outputs: raw little-endian elements in row-major order, of the listed types and shapes.
extern "C" {
struct IpuHostTensor {
  const char *type;          // the Poplar element type: "float", "int", "unsigned int", "long long", "bool", "char"
  unsigned rank;
  const std::size_t *shape;  // `rank` sizes
  std::size_t elements;
  void *data;                // an input's data is read only
};
""".strip("\n").split("\n"))

HELPER = tuple(r"""
// A host function's argument as its implementation sees it (IpuHostTensor without the data).
struct HostArgument {
  const char *type;
  std::vector<std::size_t> shape;
};
using HostCallback = std::function<void(poplar::ArrayRef<const void *>, poplar::ArrayRef<void *>)>;

// The callback main connects to a host function: it describes each input's and output's host
// data as an IpuHostTensor and calls `implementation` with them.
HostCallback hostCallback(std::vector<HostArgument> ins, std::vector<HostArgument> outs,
                          std::function<void(const IpuHostTensor *, unsigned, IpuHostTensor *, unsigned)> implementation) {
  return [=](poplar::ArrayRef<const void *> in, poplar::ArrayRef<void *> out) {
    auto describe = [](const HostArgument &a, void *data) {
      std::size_t n = 1;
      for (std::size_t d : a.shape) n *= d;
      return IpuHostTensor{a.type, static_cast<unsigned>(a.shape.size()), a.shape.data(), n, data};
    };
    std::vector<IpuHostTensor> inputs, outputs;
    for (std::size_t i = 0; i < ins.size(); ++i) inputs.push_back(describe(ins[i], const_cast<void *>(in[i])));
    for (std::size_t i = 0; i < outs.size(); ++i) outputs.push_back(describe(outs[i], out[i]));
    implementation(inputs.data(), static_cast<unsigned>(inputs.size()), outputs.data(), static_cast<unsigned>(outputs.size()));
  };
}

// Each host function's handle and the callback main connects to it.
struct HostFunctionHook {
  const char *handle;
  HostCallback call;
};
std::vector<HostFunctionHook> hostFunctions;
""".strip("\n").split("\n")) + ("",)

CONNECT = (
    "    // Each host function calls its implementation (declared at the top, linked with this program).",
    "    for (const auto &f : hostFunctions)",
    "      for (unsigned r = 0; r < kReplicas; ++r) engine.connectHostFunction(f.handle, r, f.call);",
)


def _identifier(text: str) -> str:
    return re.sub(r"[^0-9A-Za-z_]", "_", text)


def _cstr(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


class _HostState:
    """What the unit's host functions need once: the declarations, the handles used and
    the hooks declared (hook name -> what it implements)."""

    def __init__(self, cx: Any) -> None:
        self.handles: dict[str, tuple] = {}  # handle -> signature
        self.functions: dict[tuple, str] = {}  # (handle stem, signature) -> C++ HostFunction variable
        self.hooks: dict[str, str] = {}
        cx.declarations += [*DECLARATIONS, "} // extern \"C\"", ""]
        cx.helpers.setdefault("hostCallback", HELPER)
        cx.includes += ["#include <poplar/HostFunction.hpp>", "#include <functional>"]
        cx.before_run += list(CONNECT)


def _state(cx: Any) -> _HostState:
    if getattr(cx, "host_state", None) is None:
        cx.host_state = _HostState(cx)
    return cx.host_state


def _argument(cx: Any, op: Any, value: Any) -> tuple[str, list[int]]:
    return cx.ptype(value), cx.shape(value)


def _describe(args: list[tuple[str, list[int]]]) -> str:
    return ", ".join(f"{_TYPE_NAMES[t]} {shape}" for t, shape in args) or "none"


def _declare(cx: Any, op: Any, hook: str, what: str, parameters: str, comment: list[str]) -> None:
    state = _state(cx)
    if hook in state.hooks:
        if state.hooks[hook] != what:
            raise CodegenError(f"{cx.where(op)}: {what} and {state.hooks[hook]} would both be implemented by the C function "
                               f"'{hook}' (their names differ only in characters that are not letters, digits or '_'); "
                               "rename one")
        return
    state.hooks[hook] = what
    cx.declarations += [*comment, f"extern \"C\" void {hook}({parameters});", ""]


def _call(cx: Any, op: Any, handle: str, inputs: list[Any], body: str) -> list[str]:
    """The host function ``handle`` (added once per signature), its output tensors and the
    ``Call``; ``body`` is the statement of the callback's implementation lambda."""
    state = _state(cx)
    ins = [_argument(cx, op, v) for v in inputs]
    outs = [_argument(cx, op, v) for v in op.results]
    signature = (tuple((t, tuple(s)) for t, s in ins), tuple((t, tuple(s)) for t, s in outs))
    lines: list[str] = []
    key = (handle, signature)
    if key not in state.functions:
        name = handle
        count = sum(1 for stem, _ in state.functions if stem == handle)
        if count:  # another signature of the same handle: a handle of its own
            name = f"{handle}/{count}"
        var = cx.fresh("hostFunction")
        state.functions[key] = var

        def arguments(args: list[tuple[str, list[int]]]) -> str:
            return "{" + ", ".join(f"{{poplar::{t}, {_count(s)}}}" for t, s in args) + "}"

        def described(args: list[tuple[str, list[int]]]) -> str:
            return "{" + ", ".join(f"{{{_cstr(_TYPE_NAMES[t])}, {_dims(s)}}}" for t, s in args) + "}"

        lines += [f"poplar::HostFunction {var} = graph.addHostFunction({_cstr(name)}, {arguments(ins)}, {arguments(outs)});",
                  f"hostFunctions.push_back({{{_cstr(name)}, hostCallback({described(ins)}, {described(outs)},",
                  "    [](const IpuHostTensor *inputs, unsigned numInputs, IpuHostTensor *outputs, unsigned numOutputs) {",
                  f"      {body}",
                  "    })});"]
    var = state.functions[key]
    g = cx.graph(op)
    names = []
    for index, value in enumerate(op.results):
        out = cx.define(value)
        names.append(out)
        ptype, shape = _argument(cx, op, value)
        lines += [f"poplar::Tensor {out} = {g}.addVariable(poplar::{ptype}, {_dims(shape)}, {cx.debug(op, f'output{index}')});",
                  f"mapLinearly({g}, {out}, 0, 1);"]
    lines.append(f"{cx.prog}.add(poplar::program::Call({var}, {{{', '.join(cx.name(v) for v in inputs)}}}, "
                 f"{{{', '.join(names)}}}, {cx.debug(op)}));")
    return lines


def _count(shape: Any) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _groups(op: Any, count: int) -> list[list[Any]]:
    """The operands of a slotted op in its ``count`` groups of slots (input<i>, output<i>, ...)."""
    sizes = list(ir.DenseI32ArrayAttr(op.operation.attributes["operandSegmentSizes"]))
    per = len(sizes) // count
    operands, groups, at = list(op.operands), [], 0
    for g in range(count):
        n = sum(sizes[g * per:(g + 1) * per])
        groups.append(operands[at:at + n])
        at += n
    return groups


@emits("poplar.program_host_call")
def emit_host_call(cx: Any, op: Any) -> list[str]:
    handle = cx.attr(op, "handle")
    hook = "ipu_host_call_" + _identifier(handle)
    inputs = list(op.operands)
    what = f"poptorch.CPU op \"{host_call_id(handle)}\" (handle \"{handle}\")"
    ins, outs = [_argument(cx, op, v) for v in inputs], [_argument(cx, op, v) for v in op.results]
    _declare(cx, op, hook, what, "const IpuHostTensor *inputs, unsigned numInputs, IpuHostTensor *outputs, unsigned numOutputs",
             [f"// {what}: inputs {_describe(ins)}; outputs {_describe(outs)}"])
    return [f"// host function: {what}, implemented by {hook}",
            *_call(cx, op, handle, inputs, f"{hook}(inputs, numInputs, outputs, numOutputs);")]


def _custom(cx: Any, op: Any) -> tuple[str, str, int, str]:
    name, domain = cx.attr(op, "op_name"), cx.attr(op, "domain")
    attributes = json.dumps(cx.attr(op, "op_attributes"))
    return name, domain, cx.attr(op, "domain_version"), attributes


@emits("poplar.custom_op")
def emit_custom_op(cx: Any, op: Any) -> list[str]:
    name, domain, version, attributes = _custom(cx, op)
    hook = f"ipu_custom_op_{_identifier(domain)}_{_identifier(name)}"
    what = f"custom op {domain}::{name}"
    _declare(cx, op, hook, what,
             "const IpuHostTensor *inputs, unsigned numInputs, IpuHostTensor *outputs, unsigned numOutputs, const char *attributes",
             [f"// {what} (version {version}): its inputs and outputs, and its attributes as a JSON object"])
    handle = f"custom_op/{domain}::{name}/{cx.fresh('call')}"
    inputs = list(op.operands)
    ins, outs = [_argument(cx, op, v) for v in inputs], [_argument(cx, op, v) for v in op.results]
    return [f"// host function: {what} (version {version}) with attributes {attributes}, implemented by {hook}: "
            f"inputs {_describe(ins)}; outputs {_describe(outs)}",
            *_call(cx, op, handle, inputs, f"{hook}(inputs, numInputs, outputs, numOutputs, {_cstr(attributes)});")]


@emits("poplar.custom_op_grad")
def emit_custom_op_grad(cx: Any, op: Any) -> list[str]:
    name, domain, version, attributes = _custom(cx, op)
    inputs, outputs, grads = _groups(op, 3)
    differentiable = cx.attr(op, "differentiable")
    hook = f"ipu_custom_op_grad_{_identifier(domain)}_{_identifier(name)}"
    what = f"the gradient of custom op {domain}::{name}"
    _declare(cx, op, hook, what,
             "const IpuHostTensor *inputs, unsigned numInputs, const IpuHostTensor *outputs, const IpuHostTensor *gradOutputs, "
             "unsigned numOutputs, IpuHostTensor *gradInputs, const unsigned *differentiable, unsigned numGradInputs, "
             "const char *attributes",
             [f"// {what} (version {version}): given its inputs, outputs and the outputs' gradients, the gradients",
              "// of the inputs differentiable[0 .. numGradInputs) (the others have none), and its attributes as JSON"])
    handle = f"custom_op_grad/{domain}::{name}/{cx.fresh('call')}"
    listed = f"static const unsigned differentiable[] = {{{', '.join(map(str, differentiable))}}}; " if differentiable else ""
    table = "differentiable" if differentiable else "nullptr"
    body = (f"{listed}{hook}(inputs, {len(inputs)}, inputs + {len(inputs)}, inputs + {len(inputs) + len(outputs)}, "
            f"{len(outputs)}, outputs, {table}, numOutputs, {_cstr(attributes)});")
    return [f"// host function: {what} (version {version}) for inputs {differentiable}, implemented by {hook}",
            *_call(cx, op, handle, [*inputs, *outputs, *grads], body)]
