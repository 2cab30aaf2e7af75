// Host implementation of popops::Operation (see poplar/HostCore.hpp).
#pragma once

namespace popops {
enum class Operation { ADD, MUL, MIN, MAX, LOGICAL_AND, LOGICAL_OR, SQUARE_ADD };
} // namespace popops
