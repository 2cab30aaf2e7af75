"""The C++ of ``popnn_ctc_beam_search_decoder``: PopLibs' CTC prefix beam search
``popnn::ctc_infer::beamSearchDecoderLogProbabilities`` (``popnn/CTCInference.hpp``; the
algorithm of ``support/ctc.py``), with the op's types around it: the lengths cast to
UNSIGNED_INT for it, its UNSIGNED_INT path lengths and labels cast to INT, and the labels
past each path's length set to ``blank`` with a ``popops::map`` (PopLibs does not document
what it leaves there). Registered in ``compute.EMITTERS``."""

from __future__ import annotations

from typing import Any

from .compute import _dims, emits
from .errors import CodegenError


@emits("poplar.popnn_ctc_beam_search_decoder")
def emit_ctc_beam_search_decoder(cx: Any, op: Any) -> list[str]:
    log_probs, lengths = op.operands
    if cx.ptype(log_probs) != "FLOAT":
        raise CodegenError(f"{cx.where(op)} of {cx.ptype(log_probs)} log probabilities has no emission (emitted: FLOAT)")
    steps, batch, _ = cx.shape(log_probs)
    blank, width, top = cx.attr(op, "blank"), cx.attr(op, "beam_width"), cx.attr(op, "top_paths")
    g, prog = cx.graph(op), cx.prog
    probs, path_lengths, paths = op.results
    decoded, count, data, order = cx.fresh("decoded"), cx.fresh("dataLengths"), cx.fresh("data"), cx.fresh("steps")
    lines = ["// CTC prefix beam search: the lengths as UNSIGNED_INT, the path lengths and labels back to INT",
             f"poplar::Tensor {count} = popops::cast({g}, {cx.name(lengths)}, poplar::UNSIGNED_INT, {prog}, {cx.debug(op, 'lengths')});",
             f"auto {decoded} = popnn::ctc_infer::beamSearchDecoderLogProbabilities({g}, {cx.name(log_probs)}, {count}, {prog}, "
             f"{blank}, {width}, {top});",
             f"poplar::Tensor {cx.define(probs)} = std::get<0>({decoded});",
             f"poplar::Tensor {cx.define(path_lengths)} = popops::cast({g}, std::get<1>({decoded}), poplar::INT, {prog}, "
             f"{cx.debug(op, 'path_lengths')});",
             "// each label at a step at or past its path's length is the blank",
             f"static const int {data}[] = {{{', '.join(str(t) for t in range(steps))}}};",
             f"poplar::Tensor {order} = {g}.addConstant<int>(poplar::INT, {_dims([1, 1, steps])}, {data}, {cx.debug(op, 'steps')});",
             f"mapLinearly({g}, {order}, 0, 1);",
             f"poplar::Tensor {cx.define(paths)} = popops::map({g}, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::Const({blank}), "
             "pe::Cast(pe::_1, poplar::INT), pe::BinaryOp(pe::BinaryOpType::GREATER_THAN_EQUAL, pe::_2, pe::_3)),",
             f"    {{std::get<2>({decoded}), {order}.broadcast({batch}, 0).broadcast({top}, 1), "
             f"{cx.name(path_lengths)}.expand({{2}}).broadcast({steps}, 2)}}, {prog}, {cx.debug(op, 'paths')});"]
    cx.includes.append("#include <popnn/CTCInference.hpp>")
    cx.includes.append("#include <tuple>")
    return lines
