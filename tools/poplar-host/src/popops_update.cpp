// Host implementation of popops::zero, encodeOneHot, multiUpdate / multiUpdateAdd / multiUpdateMax, sortKeyValueInPlace and
// topKWithPermutation as plain loops.
// It exists only to check ipu-mlir's emitted code; see ../README.md.
#include <popops/DynamicSlice.hpp>
#include <popops/Encoding.hpp>
#include <popops/Sort.hpp>
#include <popops/TopK.hpp>
#include <popops/Zero.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include "host_util.hpp"

namespace popops {
using poplar_host::error;

void zero(poplar::Graph &, const poplar::Tensor &t, poplar::program::Sequence &prog, const poplar::DebugContext &debug) {
  prog.add(poplar::program::Program::compute(debug.name(), [t] {
    for (std::size_t i = 0; i < t.numElements(); ++i) t.set(i, 0.0);
  }));
}

void encodeOneHot(poplar::Graph &, const poplar::Tensor &indices, const poplar::Tensor &encoded, poplar::program::Sequence &prog,
                  const poplar::DebugContext &debug) {
  if (indices.rank() != 1 || encoded.rank() != 2 || encoded.dim(0) != indices.dim(0))
    throw error("encodeOneHot: indices [N] and encoded [N][C]");
  if (indices.elementType().isFloatingPoint()) throw error("encodeOneHot: indices must be integers");
  prog.add(poplar::program::Program::compute(debug.name(), [indices, encoded] {
    std::size_t C = encoded.dim(1);
    for (std::size_t n = 0; n < indices.dim(0); ++n) {
      double at = indices.get(n);
      if (at < 0 || at >= static_cast<double>(C)) throw error("encodeOneHot: index " + std::to_string(at) + " out of range");
      for (std::size_t c = 0; c < C; ++c) encoded.set(n * C + c, static_cast<double>(c) == at ? 1.0 : 0.0);
    }
  }));
}

enum class Combine { COPY, ADD, MAX };

static void update(const char *fn, const poplar::Tensor &t, const poplar::Tensor &s, const poplar::Tensor &offsets,
                   const poplar::Tensor *scale, Combine combine, const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                   poplar::program::Sequence &prog, const poplar::DebugContext &debug) {
  if (dims.size() != 1 || sizes.size() != 1 || sizes[0] != 1 || dims[0] >= t.rank())
    throw error(std::string(fn) + ": the host library updates one dimension with size 1");
  if (offsets.rank() != 2 || offsets.dim(1) != 1) throw error(std::string(fn) + ": offsets must be [N][1]");
  if (scale && scale->numElements() != 1) throw error(std::string(fn) + ": scale must be a scalar");
  std::size_t d = dims[0], N = offsets.dim(0);
  std::vector<std::size_t> expected{N};
  for (unsigned k = 0; k < t.rank(); ++k) expected.push_back(k == d ? 1 : t.dim(k));
  if (s.shape() != expected) throw error(std::string(fn) + ": s must be [N] followed by t's shape with dims[0] of size 1");
  if ((combine == Combine::ADD) != (scale != nullptr)) throw error(std::string(fn) + ": a scale goes with an add only");
  poplar::Tensor factor = scale ? *scale : poplar::Tensor();
  std::string name = fn;
  prog.add(poplar::program::Program::compute(debug.name(), [t, s, offsets, factor, combine, d, N, name] {
    std::size_t per = s.numElements() / std::max<std::size_t>(N, 1);
    for (std::size_t n = 0; n < N; ++n) {
      double at = offsets.get(n);
      if (at < 0 || at >= static_cast<double>(t.dim(static_cast<unsigned>(d))))
        throw error(name + ": offset " + std::to_string(at) + " out of range");
      poplar::Tensor row = t.slice(static_cast<std::size_t>(at), static_cast<std::size_t>(at) + 1, static_cast<unsigned>(d));
      for (std::size_t i = 0; i < per; ++i) {
        double old = row.get(i), value = s.get(n * per + i);
        if (combine == Combine::ADD) row.set(i, old + t.elementType().round(factor.get(0) * value));
        else if (combine == Combine::MAX) row.set(i, std::isnan(old) || std::isnan(value) ? NAN : std::max(old, value));
        else row.set(i, value);
      }
    }
  }));
}

void multiUpdateAdd(poplar::Graph &, const poplar::Tensor &t, const poplar::Tensor &s, const poplar::Tensor &offsets,
                    const poplar::Tensor &scale, const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                    poplar::program::Sequence &prog, const SlicePlan &, const poplar::OptionFlags &,
                    const poplar::DebugContext &debug) {
  update("multiUpdateAdd", t, s, offsets, &scale, Combine::ADD, dims, sizes, prog, debug);
}

void multiUpdate(poplar::Graph &, const poplar::Tensor &t, const poplar::Tensor &s, const poplar::Tensor &offsets,
                 const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                 const SlicePlan &, const poplar::OptionFlags &, const poplar::DebugContext &debug) {
  update("multiUpdate", t, s, offsets, nullptr, Combine::COPY, dims, sizes, prog, debug);
}

void multiUpdateMax(poplar::Graph &, const poplar::Tensor &t, const poplar::Tensor &s, const poplar::Tensor &offsets,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                    const SlicePlan &, const poplar::OptionFlags &, const poplar::DebugContext &debug) {
  update("multiUpdateMax", t, s, offsets, nullptr, Combine::MAX, dims, sizes, prog, debug);
}

void sortKeyValueInPlace(poplar::Graph &, const poplar::Tensor &k, const poplar::Tensor &v, unsigned dim,
                         poplar::program::Sequence &prog, const poplar::DebugContext &debug) {
  if (k.shape() != v.shape() || dim >= k.rank()) throw error("sortKeyValueInPlace: k and v of one shape, dim within it");
  prog.add(poplar::program::Program::compute(debug.name(), [k, v, dim] {
    std::size_t size = k.dim(dim), inner = 1;
    for (unsigned d = dim + 1; d < k.rank(); ++d) inner *= k.dim(d);
    std::size_t outer = size ? k.numElements() / size / inner : 0;
    std::vector<std::size_t> order(size);
    std::vector<double> keys(size), values(size);
    for (std::size_t o = 0; o < outer; ++o)
      for (std::size_t i = 0; i < inner; ++i) {
        auto at = [&](std::size_t j) { return (o * size + j) * inner + i; };
        for (std::size_t j = 0; j < size; ++j) { keys[j] = k.get(at(j)); values[j] = v.get(at(j)); }
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
          return !std::isnan(keys[a]) && (std::isnan(keys[b]) || keys[a] < keys[b]);
        });
        for (std::size_t j = 0; j < size; ++j) { k.set(at(j), keys[order[j]]); v.set(at(j), values[order[j]]); }
      }
  }));
}

std::pair<poplar::Tensor, poplar::Tensor> topKWithPermutation(poplar::Graph &graph, poplar::program::Sequence &prog,
                                                              const poplar::Tensor &t, const TopKParams &params,
                                                              const poplar::DebugContext &debug) {
  if (t.rank() == 0 || params.k > t.dim(t.rank() - 1)) throw error("topKWithPermutation: k exceeds the innermost dimension");
  std::vector<std::size_t> shape = t.shape();
  std::size_t size = shape.back(), k = params.k;
  shape.back() = k;
  poplar::Tensor values = graph.addVariable(t.elementType(), shape, debug);
  poplar::Tensor indices = graph.addVariable(poplar::UNSIGNED_INT, shape, debug);
  bool largest = params.largest;
  prog.add(poplar::program::Program::compute(debug.name(), [t, values, indices, size, k, largest] {
    std::vector<std::size_t> order(size);
    std::vector<double> line(size);
    for (std::size_t row = 0; size && row < t.numElements() / size; ++row) {
      for (std::size_t j = 0; j < size; ++j) line[j] = t.get(row * size + j);
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        double x = line[a], y = line[b];  // NaN is the largest
        if (largest) return std::isnan(x) ? !std::isnan(y) : (!std::isnan(y) && x > y);
        return std::isnan(y) ? !std::isnan(x) : (!std::isnan(x) && x < y);
      });
      for (std::size_t j = 0; j < k; ++j) {
        values.set(row * k + j, line[order[j]]);
        indices.set(row * k + j, static_cast<double>(order[j]));
      }
    }
  }));
  return {values, indices};
}
} // namespace popops
