// Host implementation of popnn::PoolingType (see poplar/HostCore.hpp).
#pragma once

namespace popnn {
enum class PoolingType { MAX, AVG, SUM };
} // namespace popnn
