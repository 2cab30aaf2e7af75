// Host implementation of popops element-wise functions (see poplar/HostCore.hpp):
// NumPy-style broadcasting of the operands to the result's shape. Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <popops/Expr.hpp>

namespace popops {
poplar::Tensor map(poplar::Graph &graph, const expr::Expr &expr, const std::vector<poplar::Tensor> &ts,
                   poplar::program::Sequence &prog, const poplar::DebugContext &debug = {},
                   const poplar::OptionFlags &options = {});
void mapInPlace(poplar::Graph &graph, const expr::Expr &expr, const std::vector<poplar::Tensor> &ts,
                poplar::program::Sequence &prog, const poplar::DebugContext &debug = {},
                const poplar::OptionFlags &options = {});

#define POPOPS_HOST_BINARY(name, op)                                                                                \
  inline poplar::Tensor name(poplar::Graph &graph, const poplar::Tensor &a, const poplar::Tensor &b,               \
                             poplar::program::Sequence &prog, const poplar::DebugContext &debug = {},             \
                             const poplar::OptionFlags &options = {}) {                                            \
    return map(graph, expr::BinaryOp(expr::BinaryOpType::op, expr::_1, expr::_2), {a, b}, prog, debug, options);   \
  }                                                                                                                 \
  inline void name##InPlace(poplar::Graph &graph, const poplar::Tensor &a, const poplar::Tensor &b,                \
                            poplar::program::Sequence &prog, const poplar::DebugContext &debug = {},              \
                            const poplar::OptionFlags &options = {}) {                                             \
    mapInPlace(graph, expr::BinaryOp(expr::BinaryOpType::op, expr::_1, expr::_2), {a, b}, prog, debug, options);   \
  }
POPOPS_HOST_BINARY(add, ADD)
POPOPS_HOST_BINARY(sub, SUBTRACT)
POPOPS_HOST_BINARY(mul, MULTIPLY)
POPOPS_HOST_BINARY(div, DIVIDE)
POPOPS_HOST_BINARY(pow, POWER)
POPOPS_HOST_BINARY(max, MAXIMUM)
POPOPS_HOST_BINARY(min, MINIMUM)
#undef POPOPS_HOST_BINARY

// Host side only: the shape NumPy broadcasting gives, and the element of `t` that
// element `i` of that shape reads.
namespace host {
std::vector<std::size_t> broadcastShape(const std::vector<poplar::Tensor> &ts);
std::size_t broadcastIndex(const poplar::Tensor &t, const std::vector<std::size_t> &shape, std::size_t i);
} // namespace host
} // namespace popops
