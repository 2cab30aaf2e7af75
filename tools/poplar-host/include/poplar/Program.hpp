// Host implementation of poplar::program (see HostCore.hpp). Checks our emitted code only.
#pragma once
#include <poplar/HostCore.hpp>
