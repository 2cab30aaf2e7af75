// Host implementation of popops::reduce as plain loops in double.
// It exists only to check ipu-mlir's emitted code; see ../README.md.
#include <popops/Reduce.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace popops {
poplar::Tensor reduce(poplar::Graph &graph, const poplar::Tensor &in, const poplar::Type &outType,
                      const std::vector<std::size_t> &dims, ReduceParams params, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debug, const poplar::OptionFlags &) {
  if (params.update) throw std::runtime_error("poplar-host: reduce with update is not implemented by the host library");
  std::vector<bool> reduced(in.rank(), false);
  for (std::size_t d : dims) {
    if (d >= in.rank() || reduced[d]) throw std::runtime_error("poplar-host: reduce dims out of range or repeated");
    reduced[d] = true;
  }
  std::vector<std::size_t> shape;
  for (unsigned d = 0; d < in.rank(); ++d)
    if (!reduced[d]) shape.push_back(in.dim(d));
  poplar::Tensor out = graph.addVariable(outType, shape, debug);
  Operation op = params.op;
  prog.add(poplar::program::Program::compute(debug.name(), [in, out, reduced, op] {
    double init = op == Operation::MUL || op == Operation::LOGICAL_AND ? 1.0
                : op == Operation::MIN ? std::numeric_limits<double>::infinity()
                : op == Operation::MAX ? -std::numeric_limits<double>::infinity() : 0.0;
    std::vector<double> acc(out.numElements(), init);
    std::vector<std::size_t> pos(in.rank(), 0);
    for (std::size_t i = 0; i < in.numElements(); ++i) {
      std::size_t o = 0;
      for (unsigned d = 0; d < in.rank(); ++d)
        if (!reduced[d]) o = o * in.dim(d) + pos[d];
      double x = in.get(i), &a = acc[o];
      switch (op) {
      case Operation::ADD: a += x; break;
      case Operation::SQUARE_ADD: a += x * x; break;
      case Operation::MUL: a *= x; break;
      case Operation::MIN: a = std::isnan(x) || x < a ? x : a; break;
      case Operation::MAX: a = std::isnan(x) || x > a ? x : a; break;
      case Operation::LOGICAL_AND: a = (a != 0 && x != 0); break;
      case Operation::LOGICAL_OR: a = (a != 0 || x != 0); break;
      }
      for (unsigned d = in.rank(); d-- > 0;) { if (++pos[d] < in.dim(d)) break; pos[d] = 0; }
    }
    for (std::size_t o = 0; o < acc.size(); ++o) out.set(o, acc[o]);
  }));
  return out;
}
} // namespace popops
