// Host implementation of poplar::Engine (include/poplar/Engine.hpp): runs the program tree for
// every replica in lock step, connects streams and host functions, writes and reads tensors
// and remote buffers. It exists only to check ipu-mlir's emitted code; see ../README.md.
#include <poplar/Engine.hpp>
#include "host_util.hpp"

namespace poplar {

using poplar_host::error;

// ---- Engine ------------------------------------------------------------------------

Engine::Engine(const Graph &graph, std::vector<program::Program> programs, const OptionFlags &)
    : graph_(graph.state()), programs_(std::move(programs)) {}

void Engine::load(const Device &device) {
  if (!device.isAttached()) throw error("Engine::load: the device is not attached");
  if (device.getTarget().getNumIPUs() < graph_->target.getNumIPUs() * graph_->replicas)
    throw error("Engine::load: the device has too few IPUs");
  loaded_ = true;
}

void Engine::run(unsigned index, const std::string &) {
  if (!loaded_) throw error("Engine::run before Engine::load");
  program::host::Replicas all(graph_->replicas);
  for (unsigned r = 0; r < all.size(); ++r) all[r] = r;
  programs_.at(index).run(all);
}

void Engine::connectStream(const std::string &handle, void *begin, void *end) {
  auto it = graph_->streams.find(handle);
  if (it == graph_->streams.end()) throw error("no stream '" + handle + "'");
  host::StreamState &s = *it->second;
  if (graph_->replicas != 1)
    throw error("stream '" + handle + "': connectStream of a graph of " + std::to_string(graph_->replicas) +
                " replicas; connect each replica's stream with connectStreamToCallback(handle, replica, f)");
  std::size_t bytes = static_cast<std::size_t>(static_cast<char *>(end) - static_cast<char *>(begin));
  if (bytes == 0 || bytes % (s.numElements * s.type.hostBytes()) != 0)
    throw error("stream '" + handle + "': the host buffer is not a whole number of transfers");
  s.begin = s.pos = static_cast<char *>(begin);
  s.end = static_cast<char *>(end);
  s.callbacks.assign(s.callbacks.size(), nullptr);
}

void Engine::connectStreamToCallback(const std::string &handle, unsigned index, std::function<void(void *)> f) {
  auto it = graph_->streams.find(handle);
  if (it == graph_->streams.end()) throw error("no stream '" + handle + "'");
  if (index >= graph_->replicas)
    throw error("stream '" + handle + "': no replica " + std::to_string(index) + " (the graph has " +
                std::to_string(graph_->replicas) + ")");
  if (!f) throw error("stream '" + handle + "': an empty callback");
  it->second->callbacks[index] = std::move(f);
  it->second->begin = it->second->end = it->second->pos = nullptr;
}

void Engine::connectHostFunction(const std::string &handle, unsigned index,
                                 std::function<void(ArrayRef<const void *>, ArrayRef<void *>)> f) {
  auto it = graph_->hostFunctions.find(handle);
  if (it == graph_->hostFunctions.end()) throw error("no host function '" + handle + "'");
  if (index >= graph_->replicas)
    throw error("host function '" + handle + "': no replica " + std::to_string(index) + " (the graph has " +
                std::to_string(graph_->replicas) + ")");
  if (!f) throw error("host function '" + handle + "': an empty callback");
  it->second.state().callbacks[index] = std::move(f);
}

void Engine::connectStream(const std::string &handle, void *p) {
  auto it = graph_->streams.find(handle);
  if (it == graph_->streams.end()) throw error("no stream '" + handle + "'");
  char *begin = static_cast<char *>(p);
  connectStream(handle, begin, begin + it->second->numElements * it->second->type.hostBytes());
}

void Engine::writeTensor(const std::string &handle, const void *begin, const void *end) {
  auto it = graph_->hostWrites.find(handle);
  if (it == graph_->hostWrites.end()) throw error("no host write '" + handle + "'");
  const Tensor &t = it->second;
  std::size_t bytes = t.elementType().hostBytes(), part = t.numElements() * bytes;
  if (static_cast<std::size_t>(static_cast<const char *>(end) - static_cast<const char *>(begin)) != part * graph_->replicas)
    throw error("writeTensor('" + handle + "'): wrong buffer size (the elements of each of the " +
                std::to_string(graph_->replicas) + " replica(s), replica after replica)");
  for (unsigned r = 0; r < graph_->replicas; ++r)
    host::forReplica(r, [&] {
      const char *from = static_cast<const char *>(begin) + r * part;
      for (std::size_t i = 0; i < t.numElements(); ++i) t.set(i, t.elementType().load(from + i * bytes));
    });
}

void Engine::readTensor(const std::string &handle, void *begin, void *end) {
  auto it = graph_->hostReads.find(handle);
  if (it == graph_->hostReads.end()) throw error("no host read '" + handle + "'");
  const Tensor &t = it->second;
  std::size_t bytes = t.elementType().hostBytes(), part = t.numElements() * bytes;
  if (static_cast<std::size_t>(static_cast<char *>(end) - static_cast<char *>(begin)) != part * graph_->replicas)
    throw error("readTensor('" + handle + "'): wrong buffer size (the elements of each of the " +
                std::to_string(graph_->replicas) + " replica(s), replica after replica)");
  for (unsigned r = 0; r < graph_->replicas; ++r)
    host::forReplica(r, [&] {
      char *to = static_cast<char *>(begin) + r * part;
      for (std::size_t i = 0; i < t.numElements(); ++i) t.elementType().store(to + i * bytes, t.get(i));
    });
}

static RemoteBuffer &remote(host::GraphState &graph, const std::string &handle, uint64_t repeat, unsigned replica) {
  auto it = graph.remoteBuffers.find(handle);
  if (it == graph.remoteBuffers.end()) throw error("no remote buffer '" + handle + "'");
  if (repeat >= it->second.getRepeats()) throw error("remote buffer '" + handle + "' has no repeat " + std::to_string(repeat));
  if (replica >= it->second.replicas())
    throw error("remote buffer '" + handle + "': no replica " + std::to_string(replica) + " (the graph has " +
                std::to_string(it->second.replicas()) + ")");
  return it->second;
}

void Engine::copyToRemoteBuffer(void *data, const std::string &handle, uint64_t repeat, unsigned replica) {
  RemoteBuffer &b = remote(*graph_, handle, repeat, replica);
  std::size_t bytes = b.elementType().hostBytes();
  for (std::size_t i = 0; i < b.numElements(); ++i)
    b.data(replica)[repeat * b.numElements() + i] = b.elementType().round(b.elementType().load(static_cast<const char *>(data) + i * bytes));
}

void Engine::copyFromRemoteBuffer(const std::string &handle, void *data, uint64_t repeat, unsigned replica) {
  RemoteBuffer &b = remote(*graph_, handle, repeat, replica);
  std::size_t bytes = b.elementType().hostBytes();
  for (std::size_t i = 0; i < b.numElements(); ++i)
    b.elementType().store(static_cast<char *>(data) + i * bytes, b.data(replica)[repeat * b.numElements() + i]);
}

} // namespace poplar
