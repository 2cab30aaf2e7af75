// Host implementation of poplar::Target (see HostCore.hpp). Checks our emitted code only.
#pragma once
#include <poplar/HostCore.hpp>

namespace poplar {
enum class TargetType { IPU, IPU_MODEL, CPU };

class Target {
public:
  Target() = default;
  static Target createIPUTarget(unsigned numIPUs, const std::string &systemType, const OptionFlags & = {});
  unsigned getNumIPUs() const { return numIPUs_; }
  unsigned getTilesPerIPU() const { return tilesPerIPU_; }
  unsigned getNumTiles() const { return numIPUs_ * tilesPerIPU_; }
  // Host side only: the target of one of `replicas` replicas (its share of the IPUs).
  Target replicaTarget(unsigned replicas) const { Target t = *this; t.numIPUs_ = numIPUs_ / replicas; return t; }

private:
  unsigned numIPUs_ = 1, tilesPerIPU_ = 1472;
};
} // namespace poplar
