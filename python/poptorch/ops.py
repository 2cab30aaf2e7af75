"""PopTorch's model ops: identities that the compiler turns into ``ipu`` dialect ops.

Off the IPU (plain eager PyTorch) they do what PopTorch documents for the CPU: return
their input (``identity_loss`` applies its reduction).
"""

from __future__ import annotations

import contextlib
from typing import Any

import torch



def _tracing() -> bool:
    from ipu_mlir.compiler.frontend.tracing import is_tracing

    return is_tracing()


def _ops():
    from ipu_mlir.compiler.frontend import custom_ops  # registers torch.ops.poptorch.*

    return custom_ops


def isRunningOnIpu() -> bool:  # noqa: N802 - PopTorch's name
    """True while the model runs on the (emulated) IPU, i.e. inside the compiled program."""
    return _tracing()


def ipuHardwareIsAvailable(num_ipus: int = 1) -> bool:  # noqa: N802
    """Whether physical IPUs are present: never here, the IPU Model emulates them."""
    if not isinstance(num_ipus, int) or num_ipus < 1:
        raise ValueError(f"num_ipus must be an int >= 1, got {num_ipus!r}")
    return False


def ipuHardwareVersion() -> int:  # noqa: N802
    """The IPU version the emulator models: 2 (Mk2 GC200 and Bow, both of the IPU2 architecture;
    the default target, or ``IPU_MLIR_TARGET``)."""
    from ipu_mlir.support.target import default_target

    return default_target().hardware_version


def ipu_print_tensor(
    tensor: torch.Tensor,
    title: str = "",
    print_gradient: bool = True,
    summarise_threshold: int = 1000,
    edge_items: int = 3,
    max_line_width: int = 75,
    digits: int = 8,
    float_format: str = "auto",
    separator: str = " ",
    open_bracket: str = "(",
    close_bracket: str = ")",
) -> torch.Tensor:
    """Print ``tensor`` (after ``title``) each time the IPU program executes this point.

    It is an identity: use its result, or the print is optimised away. In training, with
    ``print_gradient`` the gradient is printed too, titled ``<title>_gradient``. The layout:
    more than ``summarise_threshold`` elements print only ``edge_items`` at each end of every
    dimension; lines wrap at ``max_line_width``; floats show ``digits`` digits in
    ``float_format`` ("auto", "fixed", "scientific" or "none"); elements are separated by
    ``separator`` and dimensions enclosed in ``open_bracket`` / ``close_bracket``.
    """
    from ipu_mlir.support.print_format import PRINT_FORMAT_DEFAULTS, check_print_format_value

    if not isinstance(title, str):
        raise TypeError(f"ipu_print_tensor: title must be a str, got {type(title).__name__}")
    if not isinstance(print_gradient, bool):
        raise TypeError(f"ipu_print_tensor: print_gradient must be a bool, got {type(print_gradient).__name__}")
    layout = {"summarise_threshold": summarise_threshold, "edge_items": edge_items, "max_line_width": max_line_width,
              "digits": digits, "float_format": float_format, "separator": separator, "open_bracket": open_bracket,
              "close_bracket": close_bracket}
    assert tuple(layout) == tuple(PRINT_FORMAT_DEFAULTS)  # the op's argument order
    for key, value in layout.items():
        problem = check_print_format_value(key, value)
        if problem is not None:
            raise (TypeError if ("must be an integer" in problem or "must be a string" in problem) else ValueError)(f"ipu_print_tensor: {problem}")
    if not _tracing():
        return tensor
    return _ops().ipu_print_tensor(tensor, title, print_gradient, *layout.values())


def nop(tensor: torch.Tensor) -> torch.Tensor:
    """An identity the compiler never removes."""
    if not _tracing():
        return tensor
    return _ops().nop(tensor)


def identity_loss(x: torch.Tensor, reduction: str) -> torch.Tensor:
    """Mark ``x`` as the model's loss, reduced with ``reduction`` ("sum", "mean" or "none")."""
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(f"identity_loss: reduction must be \"sum\", \"mean\" or \"none\", got {reduction!r}")
    if not _tracing():
        return x.sum() if reduction == "sum" else x.mean() if reduction == "mean" else x
    return _ops().identity_loss(x, reduction)  # the loss search (compiler/frontend/losses.py) finds this op


def dynamic_slice(tensor: torch.Tensor, dim: int, start: torch.Tensor, size: int, step: int) -> torch.Tensor:
    """``tensor`` sliced along ``dim`` from a start index computed at run time: ``size`` elements from
    ``start``, every ``step``-th kept (Python's ``tensor[..., start:start + size:step]``).

    ``start`` is a tensor holding one integer (it may be computed on the device); ``size`` and ``step``
    are constant ints, so the result's shape is fixed: ``ceil(size / step)`` along ``dim``. On the IPU it
    is a gather of the indices ``start + arange(0, size, step)`` (``popops_multi_slice``); an index past
    the end of ``dim`` is an error when the program runs.

    >>> poptorch.dynamic_slice(x, 0, torch.tensor(2), 4, 2)  # x[2:6:2]
    """
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"dynamic_slice: tensor must be a torch.Tensor, got {type(tensor).__name__}")
    for label, value, low in (("dim", dim, None), ("size", size, 1), ("step", step, 1)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"dynamic_slice: {label} must be a constant int, got {type(value).__name__}; "
                            "only start may be a tensor")
        if low is not None and value < low:
            raise ValueError(f"dynamic_slice: {label} must be at least {low}, got {value}")
    if not -tensor.dim() <= dim < max(tensor.dim(), 1):
        raise ValueError(f"dynamic_slice: dim {dim} is out of range for a tensor of {tensor.dim()} dims")
    if not isinstance(start, torch.Tensor) or start.numel() != 1 or start.dtype.is_floating_point \
            or start.dtype.is_complex or start.dtype == torch.bool:
        raise TypeError(f"dynamic_slice: start must be a tensor holding one integer (e.g. torch.tensor(3)), "
                        f"got {start!r}")
    if size > tensor.shape[dim]:
        raise ValueError(f"dynamic_slice: size {size} is larger than dim {dim} ({tensor.shape[dim]} elements)")
    offsets = torch.arange(0, size, step, dtype=torch.int64, device=tensor.device)
    return tensor.index_select(dim, start.reshape(()).to(torch.int64) + offsets)


def serializedMatMul(  # noqa: N802 - PopTorch's name
    lhs: torch.Tensor, rhs: torch.Tensor, mode: Any, factor: int = 0, keep_precision: bool = False
) -> torch.Tensor:
    """``lhs @ rhs`` as ``factor`` smaller matmuls, one after the other (A: m x n, B: n x p).

    ``mode`` (``MatMulSerializationMode``): InputChannels splits m (the results are concatenated),
    ReducingDim splits n (the partial products are added), OutputChannels splits p (concatenated),
    Disabled is one ordinary matmul. ``factor`` must divide that dimension. With float16 inputs and
    ``keep_precision``, the additions (ReducingDim's forward, InputChannels' gradient of ``rhs``)
    happen in float32, as the individual matmuls' partials do; the result is float16. The split is
    visible in the IR (one matmul per part), and results equal the ordinary matmul's up to the order
    of the additions.

    >>> poptorch.serializedMatMul(a, b, poptorch.MatMulSerializationMode.ReducingDim, 4)
    """
    from .enums import MatMulSerializationMode

    label = "serializedMatMul"
    mode = MatMulSerializationMode.parse(mode, f"{label}: mode")
    for name, value in (("lhs", lhs), ("rhs", rhs)):
        if not isinstance(value, torch.Tensor) or value.dim() < 2:
            raise TypeError(f"{label}: {name} must be a tensor of at least 2 dims (a matrix), got "
                            f"{tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__}")
    if isinstance(factor, bool) or not isinstance(factor, int) or factor < 0:
        raise ValueError(f"{label}: factor must be an int >= 0 (the number of matmuls), got {factor!r}")
    if not isinstance(keep_precision, bool):
        raise TypeError(f"{label}: keep_precision must be a bool, got {type(keep_precision).__name__}")
    if lhs.shape[-1] != rhs.shape[-2]:
        raise ValueError(f"{label}: lhs {tuple(lhs.shape)} and rhs {tuple(rhs.shape)} cannot be multiplied "
                         f"(n = {lhs.shape[-1]} vs {rhs.shape[-2]})")
    if mode is MatMulSerializationMode.Disabled or factor in (0, 1):
        return torch.matmul(lhs, rhs)
    size = {MatMulSerializationMode.InputChannels: lhs.shape[-2], MatMulSerializationMode.ReducingDim: lhs.shape[-1],
            MatMulSerializationMode.OutputChannels: rhs.shape[-1]}[mode]
    if size % factor:
        raise ValueError(f"{label}: factor {factor} does not divide the {mode.name} dimension ({size}); pass a "
                         f"factor of {size}")
    wide = keep_precision and lhs.dtype == torch.float16
    out_dtype = torch.promote_types(lhs.dtype, rhs.dtype)
    if wide:
        lhs, rhs = lhs.float(), rhs.float()  # partials and their additions in float32
    step = size // factor
    if mode is MatMulSerializationMode.InputChannels:
        result = torch.cat([torch.matmul(lhs.narrow(-2, i * step, step), rhs) for i in range(factor)], dim=-2)
    elif mode is MatMulSerializationMode.OutputChannels:
        result = torch.cat([torch.matmul(lhs, rhs.narrow(-1, i * step, step)) for i in range(factor)], dim=-1)
    else:
        result = torch.matmul(lhs.narrow(-1, 0, step), rhs.narrow(-2, 0, step))
        for i in range(1, factor):
            result = result + torch.matmul(lhs.narrow(-1, i * step, step), rhs.narrow(-2, i * step, step))
    return result.to(out_dtype) if wide else result


def set_available_memory(tensor: torch.Tensor, available_memory_proportion: float) -> torch.Tensor:
    """Limit the temporary memory of the matmul/conv producing ``tensor`` (a planning hint)."""
    proportion = float(available_memory_proportion)
    if not 0.0 < proportion <= 1.0:
        raise ValueError(f"set_available_memory: proportion must be in (0, 1], got {available_memory_proportion!r}")
    if not _tracing():
        return tensor
    # The matmul / convolution computing ``tensor`` gets poplar.available_memory, which the
    # memory plan and the cost model read (another op: an identity, as PopTorch documents).
    return _ops().set_available_memory(tensor, proportion)


def recomputationCheckpoint(*tensors: torch.Tensor) -> torch.Tensor | tuple[torch.Tensor, ...]:  # noqa: N802
    """Mark tensors to keep, not recompute, in pipelined training (identity otherwise)."""
    if not _tracing():
        return tensors[0] if len(tensors) == 1 else tensors
    out = tuple(_ops().recomputation_checkpoint(t) for t in tensors)
    return out[0] if len(out) == 1 else out


class NameScope(contextlib.AbstractContextManager):
    """Prefix the names of the ops created inside with ``name`` (``with poptorch.NameScope("x"):``).

    The compiler names ops by module path already; the scope is added to that path.
    """

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"NameScope needs a non-empty str name, got {name!r}")
        self.name = name
        self._context: contextlib.AbstractContextManager | None = None

    def __enter__(self) -> NameScope:
        import torch.fx.traceback as fxtb

        self._context = fxtb.annotate({"name_scope": self.name})
        self._context.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._context is not None
        self._context.__exit__(*exc)




def ctc_beam_search_decoder(probs: torch.Tensor, lengths: torch.Tensor, blank: int = 0, beam_width: int = 100,
                            top_paths: int = 1) -> list[torch.Tensor]:
    """The ``top_paths`` most likely label sequences of each batch element by CTC prefix beam
    search, and their log probabilities.

    ``probs`` are log probabilities ``[input_length, batch_size, num_classes]``; ``lengths``
    ``[batch_size]`` the valid time steps of each element; class ``blank`` is CTC's blank;
    ``beam_width`` prefixes are kept after each step. Returns ``[probabilities, lengths,
    paths]``: log probabilities ``[batch_size, top_paths]`` (most likely first; -inf where an
    input has fewer paths), path lengths ``[batch_size, top_paths]`` (int32) and decoded paths
    ``[batch_size, top_paths, input_length]`` (int32, padded with ``blank``). On the IPU it is
    one ``poplar.popnn_ctc_beam_search_decoder``.

    >>> log_probs, path_lengths, paths = poptorch.ctc_beam_search_decoder(x.log_softmax(2), lengths, top_paths=2)
    """
    label = "ctc_beam_search_decoder"
    if not isinstance(probs, torch.Tensor) or probs.dim() != 3 or not probs.dtype.is_floating_point:
        raise TypeError(f"{label}: probs must be a float tensor [input_length, batch_size, num_classes], got "
                        f"{tuple(probs.shape) if isinstance(probs, torch.Tensor) else type(probs).__name__}")
    if not isinstance(lengths, torch.Tensor) or tuple(lengths.shape) != (probs.shape[1],) \
            or lengths.dtype.is_floating_point or lengths.dtype.is_complex or lengths.dtype == torch.bool:
        raise TypeError(f"{label}: lengths must be an integer tensor of shape [{probs.shape[1]}] (batch_size), got "
                        f"{lengths!r}")
    for name, value, low, high in (("blank", blank, 0, probs.shape[2] - 1), ("beam_width", beam_width, 1, None),
                                   ("top_paths", top_paths, 1, beam_width)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{label}: {name} must be an int, got {type(value).__name__}")
        if value < low or (high is not None and value > high):
            bound = f"in [{low}, {high}]" if high is not None else f"at least {low}"
            raise ValueError(f"{label}: {name} must be {bound}, got {value}"
                             f"{' (top_paths <= beam_width)' if name == 'top_paths' else ''}")
    from ipu_mlir.compiler.frontend import host_ops

    if _tracing():
        return list(host_ops.ctc_beam_search_decoder(probs, lengths, blank, beam_width, top_paths))
    return list(host_ops.ctc_decode(probs, lengths, blank, beam_width, top_paths))
