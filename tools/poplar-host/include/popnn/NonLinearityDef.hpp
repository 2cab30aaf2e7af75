// Host implementation of popnn::NonLinearityType (see poplar/HostCore.hpp).
#pragma once

namespace popnn {
enum class NonLinearityType { SIGMOID, HARD_SIGMOID, RELU, TANH, GELU, GELU_ERF, SWISH, SOFTMAX, SOFTMAX_STABLE };
} // namespace popnn
