// Host implementation of popnn::addCodelets (see poplar/HostCore.hpp): the host library
// has no vertices, so this records the call. Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>

namespace popnn {
inline void addCodelets(poplar::Graph &graph) { graph.addCodelets("popnn"); }
} // namespace popnn
