// Host implementation of poprand::addCodelets (see poplar/HostCore.hpp): the host library
// has no vertices, so this records the call. Checks our emitted code only.
#pragma once
#include <poplar/Graph.hpp>

namespace poprand {
inline void addCodelets(poplar::Graph &graph) { graph.addCodelets("poprand"); }
} // namespace poprand
