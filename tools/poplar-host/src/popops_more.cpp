// Host implementation of popops::pad, scaledAddTo, argMax / argMin, multiSlice and histogram as plain
// loops. It exists only to check ipu-mlir's emitted code; see ../README.md.
#include <popops/DynamicSlice.hpp>
#include <popops/GatherStatistics.hpp>
#include <popops/Pad.hpp>
#include <popops/ScaledAdd.hpp>
#include <popops/Sort.hpp>

#include <algorithm>
#include <cmath>
#include "host_util.hpp"

namespace popops {
using poplar_host::error;

poplar::Tensor pad(poplar::Graph &graph, const poplar::Tensor &t, const std::vector<std::ptrdiff_t> &lower,
                   const std::vector<std::ptrdiff_t> &upper, float val, padding::MappingMethod) {
  if (lower.size() != t.rank() || upper.size() != t.rank()) throw error("pad: one lower and upper padding per dimension");
  poplar::Tensor out = t;
  for (unsigned d = 0; d < t.rank(); ++d) {
    std::ptrdiff_t lo = lower[d], hi = upper[d], n = static_cast<std::ptrdiff_t>(out.dim(d));
    if (-lo - hi > n) throw error("pad: the cropping removes more than the dimension");
    out = out.slice(static_cast<std::size_t>(std::max<std::ptrdiff_t>(-lo, 0)),
                    static_cast<std::size_t>(n - std::max<std::ptrdiff_t>(-hi, 0)), d);
    std::vector<poplar::Tensor> parts;
    auto constant = [&](std::ptrdiff_t k) {
      std::vector<std::size_t> shape = out.shape();
      shape[d] = static_cast<std::size_t>(k);
      return graph.addConstant<float>(out.elementType(), shape, val, "pad");
    };
    if (lo > 0) parts.push_back(constant(lo));
    parts.push_back(out);
    if (hi > 0) parts.push_back(constant(hi));
    out = poplar::concat(parts, d);
  }
  return out;
}

void scaledAddTo(poplar::Graph &, poplar::Tensor A, poplar::Tensor B, float scale, poplar::program::Sequence &prog,
                 const poplar::DebugContext &debug, const poplar::OptionFlags &) {
  if (A.shape() != B.shape()) throw error("scaledAddTo: A and B shapes differ");
  prog.add(poplar::program::Program::compute(debug.name(), [A, B, scale] {
    for (std::size_t i = 0; i < A.numElements(); ++i) A.set(i, A.get(i) + A.elementType().round(static_cast<double>(scale) * B.get(i)));
  }));
}

static poplar::Tensor argExtreme(poplar::Graph &graph, const poplar::Tensor &in, poplar::program::Sequence &prog,
                                 const poplar::DebugContext &debug, bool max) {
  if (in.rank() != 2 || in.dim(1) == 0) throw error("argMax / argMin: the input must be 2-D with non-empty rows");
  poplar::Tensor out = graph.addVariable(poplar::UNSIGNED_INT, {in.dim(0)}, debug);
  prog.add(poplar::program::Program::compute(debug.name(), [in, out, max] {
    std::size_t K = in.dim(1);
    for (std::size_t r = 0; r < in.dim(0); ++r) {
      std::size_t best = 0;
      double value = in.get(r * K);
      for (std::size_t k = 1; k < K && !std::isnan(value); ++k) {
        double x = in.get(r * K + k);
        if (std::isnan(x) || (max ? x > value : x < value)) { best = k; value = x; }
      }
      out.set(r, static_cast<double>(best));
    }
  }));
  return out;
}

poplar::Tensor argMax(poplar::Graph &graph, const poplar::Tensor &input, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debug) {
  return argExtreme(graph, input, prog, debug, true);
}

poplar::Tensor argMin(poplar::Graph &graph, const poplar::Tensor &input, poplar::program::Sequence &prog,
                      const poplar::DebugContext &debug) {
  return argExtreme(graph, input, prog, debug, false);
}

poplar::Tensor multiSlice(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &offsets,
                          const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                          poplar::program::Sequence &prog, const SlicePlan &, const poplar::OptionFlags &,
                          const poplar::DebugContext &debug) {
  if (dims.size() != 1 || sizes.size() != 1 || sizes[0] != 1 || dims[0] >= t.rank())
    throw error("multiSlice: the host library slices one dimension with size 1");
  if (offsets.rank() != 2 || offsets.dim(1) != 1) throw error("multiSlice: offsets must be [N][1]");
  std::size_t d = dims[0], N = offsets.dim(0);
  std::vector<std::size_t> shape{N};
  for (unsigned k = 0; k < t.rank(); ++k) shape.push_back(k == d ? 1 : t.dim(k));
  poplar::Tensor out = graph.addVariable(t.elementType(), shape, debug);
  prog.add(poplar::program::Program::compute(debug.name(), [t, offsets, out, d, N] {
    std::size_t per = out.numElements() / std::max<std::size_t>(N, 1);
    for (std::size_t n = 0; n < N; ++n) {
      double at = offsets.get(n);
      if (at < 0 || at >= static_cast<double>(t.dim(static_cast<unsigned>(d))))
        throw error("multiSlice: offset " + std::to_string(at) + " out of range");
      poplar::Tensor row = t.slice(static_cast<std::size_t>(at), static_cast<std::size_t>(at) + 1, static_cast<unsigned>(d));
      for (std::size_t i = 0; i < per; ++i) out.set(n * per + i, row.get(i));
    }
  }));
  return out;
}
poplar::Tensor histogram(poplar::Graph &graph, const poplar::Tensor &input, const poplar::Tensor &levels, bool absoluteOfInput,
                         poplar::program::Sequence &prog, const poplar::DebugContext &debug, const poplar::OptionFlags &) {
  if (levels.rank() != 1 || levels.numElements() == 0) throw error("histogram: levels must be 1-D and not empty");
  poplar::Tensor counts = graph.addVariable(poplar::FLOAT, {levels.numElements() + 1}, debug);
  prog.add(poplar::program::Program::compute(debug.name(), [input, levels, counts, absoluteOfInput] {
    std::size_t n = levels.numElements();
    std::vector<double> bounds(n), tally(n + 1, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      bounds[i] = levels.get(i);
      if (i && bounds[i] < bounds[i - 1]) throw error("histogram: levels must be ascending");
    }
    for (std::size_t i = 0; i < input.numElements(); ++i) {
      double x = absoluteOfInput ? std::fabs(input.get(i)) : input.get(i);
      if (std::isnan(x)) continue;
      tally[static_cast<std::size_t>(std::upper_bound(bounds.begin(), bounds.end(), x) - bounds.begin())] += 1.0;
    }
    for (std::size_t i = 0; i <= n; ++i) counts.set(i, tally[i]);
  }));
  return counts;
}
} // namespace popops
