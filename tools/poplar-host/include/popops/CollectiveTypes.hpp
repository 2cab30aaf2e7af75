// Host implementation of popops::CollectiveOperator (see poplar/HostCore.hpp): the reduction
// of a cross-replica collective (gcl/Collectives.hpp). Checks our emitted code only.
#pragma once

namespace popops {
enum class CollectiveOperator { ADD, MEAN, MUL, MIN, MAX, LOGICAL_AND, LOGICAL_OR, SQUARE_ADD, LOCAL };
} // namespace popops
