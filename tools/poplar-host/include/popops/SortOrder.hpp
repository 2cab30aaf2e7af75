// Host implementation of popops::SortOrder (see poplar/HostCore.hpp).
#pragma once

namespace popops {
enum class SortOrder { NONE, ASCENDING, DESCENDING };
} // namespace popops
