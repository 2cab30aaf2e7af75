// Host implementation of poplar::HostFunction and HostFunctionArgument (see HostCore.hpp).
// Checks our emitted code only.
#pragma once
#include <poplar/HostCore.hpp>
