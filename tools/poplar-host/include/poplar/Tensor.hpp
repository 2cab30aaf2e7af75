// Host implementation of poplar::Tensor (see HostCore.hpp). Checks our emitted code only.
#pragma once
#include <poplar/HostCore.hpp>
