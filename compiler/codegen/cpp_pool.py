"""Fixed C++ of the max pooling with indices and its gradient (``popnn_max_pool_with_indices``,
``popnn_max_pool_grad_with_indices``): PopLibs' pooling has no indices output, and
``popnn::pooling::poolInputGradient`` gives a gradient to every maximum of a window, where
PyTorch gives it to the first. Both are written with public Poplar / PopLibs calls
(``popops::pad``, strided Tensor views, ``popops::map`` / ``mapInPlace``, ``popops::zero``,
``popops::addInPlace``): one step per kernel position."""

POOL_HELPERS = tuple(r"""
// The kernel positions of a pooling window, and the strided view of `padded` ([N][C][field...])
// that kernel position `k` reads for every output position.
std::vector<std::vector<std::size_t>> kernelPositions(const std::vector<std::size_t> &kernel) {
  std::vector<std::vector<std::size_t>> out{{}};
  for (std::size_t size : kernel) {
    std::vector<std::vector<std::size_t>> next;
    for (const auto &prefix : out)
      for (std::size_t i = 0; i < size; ++i) { next.push_back(prefix); next.back().push_back(i); }
    out = next;
  }
  return out;
}

poplar::Tensor windowView(const poplar::Tensor &padded, const std::vector<std::size_t> &k, const std::vector<unsigned> &stride,
                          const std::vector<std::size_t> &outField) {
  std::vector<std::size_t> begin{0, 0}, end{padded.dim(0), padded.dim(1)};
  for (std::size_t d = 0; d < k.size(); ++d) {
    begin.push_back(k[d]);
    end.push_back(k[d] + (outField[d] - 1) * stride[d] + 1);
  }
  poplar::Tensor view = padded.slice(begin, end);
  for (std::size_t d = 0; d < k.size(); ++d)
    if (stride[d] != 1) view = view.subSample(stride[d], static_cast<unsigned>(d + 2));
  return view;
}

// [N][C][outField...] INT: the flat index within the unpadded input plane that kernel
// position `k` reads at each output position.
poplar::Tensor windowIndices(poplar::Graph &g, const std::vector<std::size_t> &k, const std::vector<std::size_t> &inField,
                             const std::vector<unsigned> &stride, const std::vector<std::size_t> &padding,
                             const std::vector<std::size_t> &outField, std::size_t N, std::size_t C) {
  std::size_t count = 1;
  for (std::size_t o : outField) count *= o;
  std::vector<int> flat(count);
  for (std::size_t i = 0; i < count; ++i) {
    long index = 0;
    for (std::size_t d = 0, rest = i, div = count; d < k.size(); ++d) {
      div /= outField[d];
      long pos = static_cast<long>((rest / div) * stride[d] + k[d]) - static_cast<long>(padding[d]);
      rest %= div;
      index = index * static_cast<long>(inField[d]) + pos;
    }
    flat[i] = static_cast<int>(index);
  }
  std::vector<std::size_t> shape{1, 1};
  shape.insert(shape.end(), outField.begin(), outField.end());
  poplar::Tensor t = g.addConstant<int>(poplar::INT, shape, flat.data(), "windowIndices");
  mapLinearly(g, t, 0, 1);
  return t.broadcast(static_cast<unsigned>(N), 0).broadcast(static_cast<unsigned>(C), 1);
}

// Max pooling of in [N][C][field...] with, for each output element, the flat in-plane index of
// the first maximum of its window (NaN counts as the maximum), as PyTorch's max_pool*d_with_indices.
std::pair<poplar::Tensor, poplar::Tensor> maxPoolWithIndices(poplar::Graph &g, const poplar::Tensor &in,
                                                             const std::vector<std::size_t> &kernel,
                                                             const std::vector<unsigned> &stride,
                                                             const std::vector<std::size_t> &padding,
                                                             const std::vector<std::size_t> &outField,
                                                             poplar::program::Sequence &prog, const std::string &debug) {
  std::vector<std::ptrdiff_t> pad{0, 0};
  for (std::size_t p : padding) pad.push_back(static_cast<std::ptrdiff_t>(p));
  poplar::Tensor padded = popops::pad(g, in, pad, pad, -std::numeric_limits<float>::infinity());
  std::vector<std::size_t> inField(in.shape().begin() + 2, in.shape().end()), shape{in.dim(0), in.dim(1)};
  shape.insert(shape.end(), outField.begin(), outField.end());
  poplar::Tensor best = g.addVariable(in.elementType(), shape, debug + "/max");
  poplar::Tensor index = g.addVariable(poplar::INT, shape, debug + "/indices");
  mapLinearly(g, best, 0, 1);
  mapLinearly(g, index, 0, 1);
  bool first = true;
  for (const auto &k : kernelPositions(kernel)) {
    poplar::Tensor view = windowView(padded, k, stride, outField);
    poplar::Tensor at = windowIndices(g, k, inField, stride, padding, outField, in.dim(0), in.dim(1));
    if (first) {
      prog.add(poplar::program::Copy(view, best));
      prog.add(poplar::program::Copy(at, index));
      first = false;
      continue;
    }
    // take = x > best || (isnan(x) && !isnan(best)): a strictly greater value replaces the first maximum
    poplar::Tensor take = popops::map(g,
        pe::BinaryOp(pe::BinaryOpType::LOGICAL_OR, pe::BinaryOp(pe::BinaryOpType::GREATER_THAN, pe::_1, pe::_2),
                     pe::BinaryOp(pe::BinaryOpType::LOGICAL_AND, pe::UnaryOp(pe::UnaryOpType::IS_NAN, pe::_1),
                                  pe::UnaryOp(pe::UnaryOpType::LOGICAL_NOT, pe::UnaryOp(pe::UnaryOpType::IS_NAN, pe::_2)))),
        {view, best}, prog, debug + "/take");
    popops::mapInPlace(g, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_2, pe::_1, pe::_3), {best, view, take}, prog, debug + "/max");
    popops::mapInPlace(g, pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_2, pe::_1, pe::_3), {index, at, take}, prog, debug + "/indices");
  }
  return {best, index};
}

// The input gradient [N][C][inField...] of maxPoolWithIndices: each element of grad added to
// the input element its index names.
poplar::Tensor maxPoolGradWithIndices(poplar::Graph &g, const poplar::Tensor &grad, const poplar::Tensor &index,
                                      const std::vector<std::size_t> &inField, const std::vector<std::size_t> &kernel,
                                      const std::vector<unsigned> &stride, const std::vector<std::size_t> &padding,
                                      poplar::program::Sequence &prog, const std::string &debug) {
  std::vector<std::size_t> outField(grad.shape().begin() + 2, grad.shape().end()), paddedShape{grad.dim(0), grad.dim(1)};
  std::vector<std::size_t> begin{0, 0}, end{grad.dim(0), grad.dim(1)};
  for (std::size_t d = 0; d < inField.size(); ++d) {
    paddedShape.push_back(inField[d] + 2 * padding[d]);
    begin.push_back(padding[d]);
    end.push_back(padding[d] + inField[d]);
  }
  poplar::Tensor padded = g.addVariable(grad.elementType(), paddedShape, debug);
  mapLinearly(g, padded, 0, 1);
  popops::zero(g, padded, prog, debug + "/zero");
  for (const auto &k : kernelPositions(kernel)) {
    poplar::Tensor at = windowIndices(g, k, inField, stride, padding, outField, grad.dim(0), grad.dim(1));
    poplar::Tensor part = popops::map(g,
        pe::TernaryOp(pe::TernaryOpType::SELECT, pe::_1, pe::Const(0.0f), pe::BinaryOp(pe::BinaryOpType::EQUAL, pe::_2, pe::_3)),
        {grad, index, at}, prog, debug + "/select");
    popops::addInPlace(g, windowView(padded, k, stride, outField), part, prog, debug + "/add");
  }
  return padded.slice(begin, end);
}
""".strip("\n").split("\n")) + ("",)
