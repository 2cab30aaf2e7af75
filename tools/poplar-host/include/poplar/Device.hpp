// Host implementation of poplar::Device (see HostCore.hpp). Checks our emitted code only.
#pragma once
#include <poplar/Target.hpp>

namespace poplar {
class Device {
public:
  Device() = default;
  explicit Device(Target t) : target_(t), valid_(true) {}
  const Target &getTarget() const { return target_; }
  bool attach() { attached_ = valid_; return attached_; }
  void detach() { attached_ = false; }
  bool isAttached() const { return attached_; }

private:
  Target target_;
  bool valid_ = false, attached_ = false;
};
} // namespace poplar
