// Helpers shared by poplar-host's sources (not part of the emulated Poplar API).
#pragma once

#include <poplar/Graph.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace poplar_host {

// The error every poplar-host function throws: its message starts with "poplar-host: ".
inline std::runtime_error error(const std::string &what) { return std::runtime_error("poplar-host: " + what); }

// The number of matrices in a [..., M, N] tensor's flattened batch.
inline std::size_t batchesOf(const poplar::Tensor &t) {
  std::size_t n = 1;
  for (unsigned d = 0; d + 2 < t.rank(); ++d) n *= t.dim(d);
  return n;
}

// Matrix m of t's flattened batch (`count` elements each), as doubles.
inline std::vector<double> loadMatrix(const poplar::Tensor &t, std::size_t m, std::size_t count) {
  std::vector<double> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = t.get(m * count + i);
  return out;
}

// Writes v as matrix m of t's flattened batch (v.size() elements each).
inline void storeMatrix(const poplar::Tensor &t, std::size_t m, const std::vector<double> &v) {
  for (std::size_t i = 0; i < v.size(); ++i) t.set(m * v.size() + i, v[i]);
}

}  // namespace poplar_host
