// Host implementation of poplar::Graph (see HostCore.hpp). Checks our emitted code only.
#pragma once
#include <poplar/Target.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/Program.hpp>

namespace poplar {
// How many replicas of a graph run (Graph(target, replication_factor(n))).
struct replication_factor {
  explicit replication_factor(unsigned n) : value(n) {}
  unsigned value;
};

namespace host {
struct GraphState {
  Target target;      // of one replica
  unsigned replicas = 1;
  std::map<std::string, std::shared_ptr<StreamState>> streams;
  std::map<std::string, Tensor> hostWrites, hostReads;
  std::map<std::string, RemoteBuffer> remoteBuffers;
  std::map<std::string, HostFunction> hostFunctions;
  std::vector<std::string> codelets;
};
} // namespace host

class Graph {
public:
  explicit Graph(const Target &target);
  // `replicas` copies of the graph, each on target.getNumIPUs() / replicas IPUs: getTarget()
  // is one replica's target.
  Graph(const Target &target, replication_factor replicas);
  unsigned getReplicationFactor() const { return state_->replicas; }
  const Target &getTarget() const { return state_->target; }
  Graph createVirtualGraph(unsigned lowerTile, unsigned upperTile);
  unsigned getNumTiles() const { return upperTile_ - lowerTile_; }

  Tensor addVariable(const Type &type, std::vector<std::size_t> shape, const DebugContext &debug = {});
  template <typename T>
  Tensor addConstant(const Type &type, std::vector<std::size_t> shape, const T *values, const DebugContext &debug = {}) {
    Tensor t = addVariable(type, std::move(shape), debug);
    for (std::size_t i = 0; i < t.numElements(); ++i) t.set(i, static_cast<double>(values[i]));
    return t;
  }
  template <typename T>
  Tensor addConstant(const Type &type, std::vector<std::size_t> shape, T value, const DebugContext &debug = {}) {
    Tensor t = addVariable(type, std::move(shape), debug);
    for (std::size_t i = 0; i < t.numElements(); ++i) t.set(i, static_cast<double>(value));
    return t;
  }
  void setTileMapping(const Tensor &t, unsigned tile);
  unsigned getTileOf(const Tensor &t, std::size_t element) const;  // host side only

  DataStream addHostToDeviceFIFO(const std::string &handle, const Type &type, std::size_t numElements,
                                 const OptionFlags & = {});
  DataStream addDeviceToHostFIFO(const std::string &handle, const Type &type, std::size_t numElements,
                                 const OptionFlags & = {});
  RemoteBuffer addRemoteBuffer(const std::string &handle, const Type &type, std::size_t numElements, std::size_t repeats = 1,
                               bool rearrangeOnHost = false, bool optimiseMemory = false) {
    if (repeats == 0) throw std::runtime_error("poplar-host: addRemoteBuffer: repeats must be at least 1");
    if (state_->remoteBuffers.count(handle)) throw std::runtime_error("poplar-host: a second remote buffer '" + handle + "'");
    return state_->remoteBuffers.emplace(handle, RemoteBuffer(handle, type, numElements, repeats, state_->replicas)).first->second;
  }
  void createHostWrite(const std::string &handle, const Tensor &t);
  void createHostRead(const std::string &handle, const Tensor &t);
  Function addFunction(const program::Program &program) { return Function(program); }
  // A function the host runs when a program::Call calls it; Engine::connectHostFunction gives
  // its implementation.
  HostFunction addHostFunction(const std::string &handle, ArrayRef<HostFunctionArgument> inputs,
                               ArrayRef<HostFunctionArgument> outputs);
  void addCodelets(const std::string &src) { state_->codelets.push_back(src); }

  std::shared_ptr<host::GraphState> state() const { return state_; }  // host side only

private:
  std::shared_ptr<host::GraphState> state_;
  unsigned lowerTile_ = 0, upperTile_ = 0;
};
} // namespace poplar
