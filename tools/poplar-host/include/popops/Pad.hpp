// Host implementation of popops::pad (see poplar/HostCore.hpp): constant padding as a
// concatenation with constants; a negative padding crops. Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>
#include <cstddef>

namespace popops {
namespace padding { enum class MappingMethod { NONE, ZERO, EDGE }; }
poplar::Tensor pad(poplar::Graph &graph, const poplar::Tensor &t, const std::vector<std::ptrdiff_t> &paddingLower,
                   const std::vector<std::ptrdiff_t> &paddingUpper, float val = 0.0f,
                   padding::MappingMethod mappingMethod = padding::MappingMethod::ZERO);
} // namespace popops
