// Host implementation of poplar::DeviceManager (see HostCore.hpp): one host device of the
// requested number of IPUs. Checks our emitted code only.
#pragma once
#include <poplar/Device.hpp>

namespace poplar {
class DeviceManager {
public:
  static DeviceManager createDeviceManager() { return DeviceManager(); }
  std::vector<Device> getDevices(TargetType type, unsigned requiredNumIPUs, const OptionFlags & = {}) const {
    if (type != TargetType::IPU) return {};
    std::vector<Device> devices;
    devices.emplace_back(Target::createIPUTarget(requiredNumIPUs, "ipu2"));
    return devices;
  }
};
} // namespace poplar
