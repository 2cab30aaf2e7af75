// Host implementation of popops::multiSlice (see poplar/HostCore.hpp): offsets [N][1]
// (UNSIGNED_INT) pick N slices of size 1 along dims[0]; an offset out of range is an error.
// multiUpdateAdd adds scale * s[n] into the slice of t at offsets[n]; multiUpdateMax keeps the larger.
// Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>

namespace popops {
class SlicePlan {
public:
  SlicePlan() = default;
};
poplar::Tensor multiSlice(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &offsets,
                          const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                          poplar::program::Sequence &prog, const SlicePlan &plan, const poplar::OptionFlags &options,
                          const poplar::DebugContext &debug = {});
// t[offsets[n]] += scale * s[n] along dims[0] (sizes {1}); s [N][1][...], offsets [N][1]
// (UNSIGNED_INT), scale a FLOAT scalar. Offsets may repeat (their updates add up).
void multiUpdateAdd(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s, const poplar::Tensor &offsets,
                    const poplar::Tensor &scale, const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes,
                    poplar::program::Sequence &prog, const SlicePlan &plan, const poplar::OptionFlags &options,
                    const poplar::DebugContext &debug = {});
// t[offsets[n]] = s[n] along dims[0] (sizes {1}), in order of n (a later offset equal to an
// earlier one overwrites it); shapes as multiUpdateAdd.
void multiUpdate(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s, const poplar::Tensor &offsets,
                 const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                 const SlicePlan &plan, const poplar::OptionFlags &options, const poplar::DebugContext &debug = {});
// t[offsets[n]] = max(t[offsets[n]], s[n]) along dims[0] (sizes {1}), in order of n; a NaN
// on either side gives NaN. Shapes as multiUpdateAdd.
void multiUpdateMax(poplar::Graph &graph, const poplar::Tensor &t, const poplar::Tensor &s, const poplar::Tensor &offsets,
                    const std::vector<std::size_t> &dims, const std::vector<std::size_t> &sizes, poplar::program::Sequence &prog,
                    const SlicePlan &plan, const poplar::OptionFlags &options, const poplar::DebugContext &debug = {});
} // namespace popops
