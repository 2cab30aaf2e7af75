// Host implementation of poplar::Engine (see HostCore.hpp): runs the program tree on the
// host. Checks our emitted code only.
#pragma once
#include <poplar/Device.hpp>
#include <poplar/Graph.hpp>

namespace poplar {
class Engine {
public:
  Engine(const Graph &graph, std::vector<program::Program> programs, const OptionFlags & = {});
  Engine(const Graph &graph, const program::Program &program, const OptionFlags & = {})
      : Engine(graph, std::vector<program::Program>{program}) {}
  void load(const Device &device);
  // Runs the program for every replica of the graph, in lock step.
  void run(unsigned programIndex = 0, const std::string &debugName = "");
  // A circular host buffer (a graph of one replica; a replicated graph's streams are
  // connected per replica with connectStreamToCallback).
  void connectStream(const std::string &handle, void *begin, void *end);
  void connectStream(const std::string &handle, void *p);
  // The stream of replica `index` calls f with each transfer's host data:
  // f fills it (host to device) or reads it (device to host).
  void connectStreamToCallback(const std::string &handle, unsigned index, std::function<void(void *)> f);
  // The host function `handle` of replica `index` calls f with each input's
  // host data (read) and each output's (to fill), raw elements in row-major order.
  void connectHostFunction(const std::string &handle, unsigned index,
                           std::function<void(ArrayRef<const void *>, ArrayRef<void *>)> f);
  // The tensor's elements for each replica, replica after replica.
  void writeTensor(const std::string &handle, const void *begin, const void *end);
  void readTensor(const std::string &handle, void *begin, void *end);
  // A remote buffer's repeat in replica `replicationIndex`, from / to host memory of its elements.
  void copyToRemoteBuffer(void *data, const std::string &handle, uint64_t repeatIndex, unsigned replicationIndex = 0);
  void copyFromRemoteBuffer(const std::string &handle, void *data, uint64_t repeatIndex, unsigned replicationIndex = 0);

private:
  std::shared_ptr<host::GraphState> graph_;
  std::vector<program::Program> programs_;
  bool loaded_ = false;
};
} // namespace poplar
