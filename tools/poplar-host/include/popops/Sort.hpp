// Host implementation of popops::argMax / argMin (see poplar/HostCore.hpp): the index of the
// first extreme element of each row of a 2-D input (NaN counts as the extreme, as in
// PyTorch), as UNSIGNED_INT; sortKeyValueInPlace sorts each line of k along dim ascending (NaN
// last; equal keys keep their order) and permutes v alike. Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace popops {
poplar::Tensor argMax(poplar::Graph &graph, const poplar::Tensor &input, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debug = {});
poplar::Tensor argMin(poplar::Graph &graph, const poplar::Tensor &input, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debug = {});
void sortKeyValueInPlace(poplar::Graph &graph, const poplar::Tensor &k, const poplar::Tensor &v, unsigned dim,
                         poplar::program::Sequence &prog, const poplar::DebugContext &debug = {});
} // namespace popops
