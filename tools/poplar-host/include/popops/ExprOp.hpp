// Host implementation of popops::expr operation types (see poplar/HostCore.hpp).
#pragma once

namespace popops {
namespace expr {
enum class UnaryOpType {
  ABSOLUTE, ASIN, BITWISE_NOT, CEILING, COS, ERF, EXPONENT, EXPONENT_MINUS_ONE, FLOOR, INVERSE, IS_FINITE, IS_INF,
  IS_NAN, LOGARITHM, LOGARITHM_ONE_PLUS, LOGICAL_NOT, NEGATE, RELU, ROUND, RSQRT, SIGMOID, SIGNUM, SIN, SQRT, SQUARE,
  TAN, TANH, TRUNC
};
enum class BinaryOpType {
  ADD, ATAN2, BITWISE_AND, BITWISE_OR, BITWISE_XOR, DIVIDE, EQUAL, GREATER_THAN_EQUAL, GREATER_THAN, LESS_THAN_EQUAL,
  LESS_THAN, LOGICAL_AND, LOGICAL_OR, MAXIMUM, MINIMUM, MULTIPLY, NOT_EQUAL, POWER, REMAINDER, SUBTRACT
};
enum class TernaryOpType { CLAMP, SELECT };
} // namespace expr
} // namespace popops
