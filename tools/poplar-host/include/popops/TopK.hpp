// Host implementation of popops::topKWithPermutation (see poplar/HostCore.hpp): the k largest
// (or smallest) elements of each line along the innermost dimension, NaN counting as the
// largest, and their positions (UNSIGNED_INT). The host library orders the result (NONE
// gives the DESCENDING order for the largest, ASCENDING for the smallest); equal elements
// keep their order. Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <popops/SortOrder.hpp>

namespace popops {
struct TopKParams {
  unsigned k;
  bool largest;
  SortOrder sortOrder;
  bool stableSort;
  TopKParams(unsigned k, bool largest, SortOrder sortOrder, bool stableSort = false)
      : k(k), largest(largest), sortOrder(sortOrder), stableSort(stableSort) {}
};

std::pair<poplar::Tensor, poplar::Tensor> topKWithPermutation(poplar::Graph &graph, poplar::program::Sequence &prog,
                                                              const poplar::Tensor &t, const TopKParams &params,
                                                              const poplar::DebugContext &debug = {});
} // namespace popops
