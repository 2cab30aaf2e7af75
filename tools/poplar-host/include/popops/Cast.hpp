// Host implementation of popops::cast (see poplar/HostCore.hpp): to an integer type
// truncates toward zero, to BOOL tests non-zero. Checks our emitted code only.
#pragma once
#include <popops/ElementWise.hpp>

namespace popops {
inline poplar::Tensor cast(poplar::Graph &graph, const poplar::Tensor &src, const poplar::Type &dstType,
                           poplar::program::Sequence &prog, const poplar::DebugContext &debug = {}) {
  return map(graph, expr::Cast(expr::_1, dstType), {src}, prog, debug);
}
} // namespace popops
