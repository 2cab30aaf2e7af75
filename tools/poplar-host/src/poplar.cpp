// Host implementation of the Poplar core subset (tensors, graph, programs, engine).
// It exists only to check ipu-mlir's emitted code; see ../README.md.
#include <poplar/DeviceManager.hpp>
#include <poplar/Engine.hpp>
#include <poplar/Graph.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include "host_util.hpp"

namespace poplar {

using poplar_host::error;

std::string Type::toString() const {
  switch (kind_) {
  case Kind::FLOAT: return "float";
  case Kind::HALF: return "half";
  case Kind::INT: return "int";
  case Kind::UNSIGNED_INT: return "unsigned int";
  case Kind::LONGLONG: return "long long";
  case Kind::BOOL: return "bool";
  case Kind::CHAR: return "char";
  }
  return "?";
}

std::size_t Type::hostBytes() const {
  switch (kind_) {
  case Kind::FLOAT: case Kind::INT: case Kind::UNSIGNED_INT: return 4;
  case Kind::HALF: return 2;
  case Kind::LONGLONG: return 8;
  case Kind::BOOL: case Kind::CHAR: return 1;
  }
  return 0;
}

double Type::round(double v) const {
  switch (kind_) {
  case Kind::FLOAT: return static_cast<double>(static_cast<float>(v));
  case Kind::HALF: throw error("HALF tensors are not implemented by the host library");
  case Kind::INT: return static_cast<double>(static_cast<int32_t>(v));
  case Kind::UNSIGNED_INT: return static_cast<double>(static_cast<uint32_t>(v));
  case Kind::LONGLONG: return static_cast<double>(static_cast<int64_t>(v));
  case Kind::BOOL: return v != 0.0 ? 1.0 : 0.0;
  case Kind::CHAR: return static_cast<double>(static_cast<int8_t>(v));
  }
  return v;
}

double Type::load(const void *p) const {
  switch (kind_) {
  case Kind::FLOAT: { float v; std::memcpy(&v, p, 4); return v; }
  case Kind::INT: { int32_t v; std::memcpy(&v, p, 4); return v; }
  case Kind::UNSIGNED_INT: { uint32_t v; std::memcpy(&v, p, 4); return v; }
  case Kind::LONGLONG: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
  case Kind::BOOL: case Kind::CHAR: { int8_t v; std::memcpy(&v, p, 1); return v; }
  case Kind::HALF: break;
  }
  throw error("cannot read " + toString() + " host data");
}

void Type::store(void *p, double v) const {
  switch (kind_) {
  case Kind::FLOAT: { float x = static_cast<float>(v); std::memcpy(p, &x, 4); return; }
  case Kind::INT: { int32_t x = static_cast<int32_t>(v); std::memcpy(p, &x, 4); return; }
  case Kind::UNSIGNED_INT: { uint32_t x = static_cast<uint32_t>(v); std::memcpy(p, &x, 4); return; }
  case Kind::LONGLONG: { int64_t x = static_cast<int64_t>(v); std::memcpy(p, &x, 8); return; }
  case Kind::BOOL: case Kind::CHAR: { int8_t x = static_cast<int8_t>(v); std::memcpy(p, &x, 1); return; }
  case Kind::HALF: break;
  }
  throw error("cannot write " + toString() + " host data");
}

// ---- Tensor views -------------------------------------------------------------------

static std::size_t product(const std::vector<std::size_t> &shape) {
  return std::accumulate(shape.begin(), shape.end(), std::size_t{1}, std::multiplies<>());
}

static std::vector<std::size_t> stridesOf(const std::vector<std::size_t> &shape) {
  std::vector<std::size_t> strides(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

Tensor Tensor::make(std::shared_ptr<host::Storage> s, std::vector<std::size_t> shape) {
  Tensor t;
  host::Elements index(s->size);
  for (std::size_t i = 0; i < index.size(); ++i) index[i] = {s.get(), i};
  t.type_ = s->type;
  t.owners_ = {std::move(s)};
  t.shape_ = std::move(shape);
  t.index_ = std::make_shared<const host::Elements>(std::move(index));
  return t;
}

std::size_t Tensor::dim(unsigned i) const {
  if (i >= shape_.size()) throw error("dim(" + std::to_string(i) + ") of a rank " + std::to_string(rank()) + " tensor");
  return shape_[i];
}

Tensor Tensor::reshape(std::vector<std::size_t> shape) const {
  if (product(shape) != numElements()) throw error("reshape changes the number of elements");
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::dimShuffle(std::vector<unsigned> perm) const {
  if (perm.size() != rank()) throw error("dimShuffle permutation has the wrong rank");
  std::vector<std::size_t> shape(rank());
  for (unsigned d = 0; d < rank(); ++d) shape[d] = shape_[perm[d]];
  auto inStrides = stridesOf(shape_);
  host::Elements index(numElements());
  std::vector<std::size_t> pos(rank(), 0);
  for (std::size_t i = 0; i < index.size(); ++i) {
    std::size_t src = 0;
    for (unsigned d = 0; d < rank(); ++d) src += pos[d] * inStrides[perm[d]];
    index[i] = (*index_)[src];
    for (unsigned d = rank(); d-- > 0;) { if (++pos[d] < shape[d]) break; pos[d] = 0; }
  }
  Tensor t = *this;
  t.shape_ = std::move(shape);
  t.index_ = std::make_shared<const host::Elements>(std::move(index));
  return t;
}

Tensor Tensor::transpose() const {
  if (rank() < 2) throw error("transpose of a tensor of rank < 2");
  std::vector<unsigned> perm(rank());
  std::iota(perm.begin(), perm.end(), 0u);
  std::swap(perm[rank() - 1], perm[rank() - 2]);
  return dimShuffle(perm);
}

Tensor Tensor::slice(const std::vector<std::size_t> &begin, const std::vector<std::size_t> &end) const {
  Tensor t = *this;
  for (unsigned d = 0; d < rank(); ++d) t = t.slice(begin.at(d), end.at(d), d);
  return t;
}

Tensor Tensor::slice(std::size_t begin, std::size_t end, unsigned d) const {
  if (d >= rank() || begin > end || end > shape_[d]) throw error("slice out of range");
  std::vector<std::size_t> shape = shape_;
  shape[d] = end - begin;
  auto strides = stridesOf(shape_);
  std::size_t outer = product(std::vector<std::size_t>(shape_.begin(), shape_.begin() + d));
  host::Elements index;
  index.reserve(product(shape));
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t k = begin; k < end; ++k)
      for (std::size_t i = 0; i < strides[d]; ++i) index.push_back((*index_)[o * shape_[d] * strides[d] + k * strides[d] + i]);
  Tensor t = *this;
  t.shape_ = std::move(shape);
  t.index_ = std::make_shared<const host::Elements>(std::move(index));
  return t;
}

Tensor Tensor::subSample(unsigned stride, unsigned d) const {
  if (d >= rank() || stride == 0) throw error("subSample out of range");
  std::vector<std::size_t> shape = shape_;
  shape[d] = (shape_[d] + stride - 1) / stride;
  auto strides = stridesOf(shape_);
  std::size_t outer = product(std::vector<std::size_t>(shape_.begin(), shape_.begin() + d));
  host::Elements index;
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t k = 0; k < shape_[d]; k += stride)
      for (std::size_t i = 0; i < strides[d]; ++i) index.push_back((*index_)[o * shape_[d] * strides[d] + k * strides[d] + i]);
  Tensor t = *this;
  t.shape_ = std::move(shape);
  t.index_ = std::make_shared<const host::Elements>(std::move(index));
  return t;
}

Tensor Tensor::expand(std::vector<std::size_t> indices) const {
  std::vector<std::size_t> shape = shape_;
  for (std::size_t k = 0; k < indices.size(); ++k) shape.insert(shape.begin() + static_cast<long>(indices[k]), 1);
  return reshape(shape);
}

Tensor Tensor::broadcast(unsigned n, unsigned d) const {
  if (d >= rank()) throw error("broadcast dimension out of range");
  std::vector<std::size_t> shape = shape_;
  shape[d] *= n;
  auto strides = stridesOf(shape_);
  std::size_t outer = product(std::vector<std::size_t>(shape_.begin(), shape_.begin() + d));
  host::Elements index;
  for (std::size_t o = 0; o < outer; ++o)
    for (unsigned r = 0; r < n; ++r)
      for (std::size_t k = 0; k < shape_[d] * strides[d]; ++k) index.push_back((*index_)[o * shape_[d] * strides[d] + k]);
  Tensor t = *this;
  t.shape_ = std::move(shape);
  t.index_ = std::make_shared<const host::Elements>(std::move(index));
  return t;
}

Tensor Tensor::reverse(unsigned d) const {
  if (d >= rank()) throw error("reverse dimension out of range");
  auto strides = stridesOf(shape_);
  host::Elements index(numElements());
  for (std::size_t i = 0; i < index.size(); ++i) {
    std::size_t k = (i / strides[d]) % shape_[d];
    index[i] = (*index_)[i + (shape_[d] - 1 - 2 * k) * strides[d]];
  }
  Tensor t = *this;
  t.index_ = std::make_shared<const host::Elements>(std::move(index));
  return t;
}

Tensor concat(const Tensor &first, const Tensor &second, unsigned d) { return concat(std::vector<Tensor>{first, second}, d); }

Tensor concat(const std::vector<Tensor> &ts, unsigned d) {
  if (ts.empty()) throw error("concat of no tensors");
  std::vector<std::size_t> shape = ts[0].shape();
  if (d >= shape.size()) throw error("concat dimension out of range");
  shape[d] = 0;
  for (const Tensor &t : ts) {
    if (t.rank() != ts[0].rank() || t.elementType() != ts[0].elementType()) throw error("concat of tensors of different ranks or types");
    for (unsigned k = 0; k < t.rank(); ++k)
      if (k != d && t.dim(k) != ts[0].dim(k)) throw error("concat of tensors whose other dimensions differ");
    shape[d] += t.dim(d);
  }
  std::size_t outer = product(std::vector<std::size_t>(shape.begin(), shape.begin() + d));
  host::Elements index;
  Tensor out;
  for (std::size_t o = 0; o < outer; ++o)
    for (const Tensor &t : ts) {
      std::size_t block = t.numElements() / std::max<std::size_t>(outer, 1);
      for (std::size_t i = 0; i < block; ++i) index.push_back(t.elements()[o * block + i]);
    }
  for (const Tensor &t : ts) out.owners_.insert(out.owners_.end(), t.owners_.begin(), t.owners_.end());
  out.type_ = ts[0].elementType();
  out.shape_ = std::move(shape);
  out.index_ = std::make_shared<const host::Elements>(std::move(index));
  return out;
}

// ---- Graph -------------------------------------------------------------------------

Target Target::createIPUTarget(unsigned numIPUs, const std::string &systemType, const OptionFlags &) {
  if (systemType != "ipu2" && systemType != "ipu1") throw error("unknown system type '" + systemType + "'");
  Target t;
  t.numIPUs_ = numIPUs;
  t.tilesPerIPU_ = systemType == "ipu2" ? 1472 : 1216;
  return t;
}

Graph::Graph(const Target &target) : state_(std::make_shared<host::GraphState>()), upperTile_(target.getNumTiles()) {
  state_->target = target;
}

static Target replicaTarget(const Target &target, unsigned replicas) {
  if (replicas == 0 || target.getNumIPUs() % replicas != 0)
    throw error("replication_factor(" + std::to_string(replicas) + ") does not divide the target's " +
                std::to_string(target.getNumIPUs()) + " IPU(s)");
  return target.replicaTarget(replicas);
}

Graph::Graph(const Target &target, replication_factor replicas) : Graph(replicaTarget(target, replicas.value)) {
  state_->replicas = replicas.value;
}

Graph Graph::createVirtualGraph(unsigned lowerTile, unsigned upperTile) {
  if (lowerTile >= upperTile || upperTile > upperTile_ - lowerTile_) throw error("virtual graph tiles out of range");
  Graph g = *this;
  g.lowerTile_ = lowerTile_ + lowerTile;
  g.upperTile_ = lowerTile_ + upperTile;
  return g;
}

Tensor Graph::addVariable(const Type &type, std::vector<std::size_t> shape, const DebugContext &debug) {
  std::size_t n = product(shape);  // before `shape` is moved
  return Tensor::make(std::make_shared<host::Storage>(type, n, debug.name(), state_->replicas), std::move(shape));
}

void Graph::setTileMapping(const Tensor &t, unsigned tile) {
  if (tile >= getNumTiles())
    throw error("tile " + std::to_string(tile) + " outside the graph's " + std::to_string(getNumTiles()) + " tiles");
  for (const host::Ref &r : t.elements()) r.storage->tile[r.index] = static_cast<int>(lowerTile_ + tile);
}

unsigned Graph::getTileOf(const Tensor &t, std::size_t element) const {
  const host::Ref &r = t.elements().at(element);
  int tile = r.storage->tile[r.index];
  if (tile < 0) throw error("element " + std::to_string(element) + " of '" + r.storage->name + "' has no tile");
  return static_cast<unsigned>(tile) - lowerTile_;
}

static DataStream addStream(host::GraphState &g, const std::string &handle, const Type &type, std::size_t n, bool toDevice) {
  if (g.streams.count(handle)) throw error("stream '" + handle + "' added twice");
  auto s = std::make_shared<host::StreamState>(handle, type, n, toDevice, g.replicas);
  g.streams[handle] = s;
  return DataStream(s);
}

DataStream Graph::addHostToDeviceFIFO(const std::string &handle, const Type &type, std::size_t n, const OptionFlags &) {
  return addStream(*state_, handle, type, n, true);
}

DataStream Graph::addDeviceToHostFIFO(const std::string &handle, const Type &type, std::size_t n, const OptionFlags &) {
  return addStream(*state_, handle, type, n, false);
}

HostFunction Graph::addHostFunction(const std::string &handle, ArrayRef<HostFunctionArgument> inputs,
                                    ArrayRef<HostFunctionArgument> outputs) {
  if (state_->hostFunctions.count(handle)) throw error("a second host function '" + handle + "'");
  auto s = std::make_shared<host::HostFunctionState>();
  s->handle = handle;
  s->inputs = inputs.vec();
  s->outputs = outputs.vec();
  s->callbacks.resize(state_->replicas);
  return state_->hostFunctions.emplace(handle, HostFunction(s)).first->second;
}

void Graph::createHostWrite(const std::string &handle, const Tensor &t) { state_->hostWrites[handle] = t; }
void Graph::createHostRead(const std::string &handle, const Tensor &t) { state_->hostReads[handle] = t; }

// ---- Programs ----------------------------------------------------------------------

namespace program {
namespace {
// A node that runs the same way for each replica, one after the other, as the current replica.
struct PerReplicaNode : host::Node {
  virtual void runOne() const = 0;
  void run(const host::Replicas &replicas) const override {
    for (unsigned r : replicas) poplar::host::forReplica(r, [this] { runOne(); });
  }
};
struct ComputeNode : PerReplicaNode {
  std::string name;
  std::function<void()> fn;
  void runOne() const override { fn(); }
};
struct CollectiveNode : host::Node {
  std::string name;
  std::function<void(const host::Replicas &)> fn;
  void run(const host::Replicas &replicas) const override { fn(replicas); }
};
struct SequenceNode : host::Node {
  std::shared_ptr<std::vector<Program>> steps;
  void run(const host::Replicas &replicas) const override { for (const Program &p : *steps) p.run(replicas); }
};
struct RepeatNode : host::Node {
  unsigned count;
  Program body;
  void run(const host::Replicas &replicas) const override { for (unsigned i = 0; i < count; ++i) body.run(replicas); }
};
struct IfNode : host::Node {
  Tensor condition;
  Program then, otherwise;
  // Each replica takes the branch its own condition names: the replicas taking one branch
  // run it in lock step, then those taking the other.
  void run(const host::Replicas &replicas) const override {
    host::Replicas taken, other;
    for (unsigned r : replicas)
      poplar::host::forReplica(r, [&] { (condition.get(0) != 0.0 ? taken : other).push_back(r); });
    if (!taken.empty()) then.run(taken);
    if (!other.empty()) otherwise.run(other);
  }
};
struct CopyNode : PerReplicaNode {
  Tensor src, dst;
  void runOne() const override {
    std::vector<double> values(src.numElements());  // read all first: source and destination may overlap
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = src.get(i);
    for (std::size_t i = 0; i < values.size(); ++i) dst.set(i, values[i]);
  }
};
struct StreamNode : PerReplicaNode {
  DataStream stream;
  Tensor tensor;
  void runOne() const override {
    poplar::host::StreamState &s = stream.state();
    std::size_t bytes = s.type.hostBytes();
    const auto &callback = s.callbacks.at(poplar::host::currentReplica);
    if (callback) {  // one transfer through the callback's host data
      std::vector<char> data(s.numElements * bytes);
      if (s.toDevice) callback(data.data());
      for (std::size_t i = 0; i < s.numElements; ++i) {
        if (s.toDevice) tensor.set(i, s.type.load(data.data() + i * bytes));
        else s.type.store(data.data() + i * bytes, tensor.get(i));
      }
      if (!s.toDevice) callback(data.data());
      return;
    }
    if (!s.begin)
      throw error("stream '" + s.name + "' of replica " + std::to_string(poplar::host::currentReplica) +
                  " is not connected to a host buffer or callback");
    for (std::size_t i = 0; i < s.numElements; ++i) {
      if (s.pos >= s.end) s.pos = s.begin;  // circular buffer
      if (s.toDevice) tensor.set(i, s.type.load(s.pos));
      else s.type.store(s.pos, tensor.get(i));
      s.pos += bytes;
    }
  }
};
struct CallNode : host::Node {
  Function f;
  void run(const host::Replicas &replicas) const override { f.body().run(replicas); }
};
struct HostCallNode : PerReplicaNode {
  HostFunction f;
  std::vector<Tensor> inputs, outputs;
  void runOne() const override {
    poplar::host::HostFunctionState &s = f.state();
    const auto &callback = s.callbacks.at(poplar::host::currentReplica);
    if (!callback)
      throw error("host function '" + s.handle + "' is called by replica " + std::to_string(poplar::host::currentReplica) +
                  " but no callback is connected for it (Engine::connectHostFunction)");
    std::vector<std::vector<char>> in(inputs.size()), out(outputs.size());
    std::vector<const void *> inPointers;
    std::vector<void *> outPointers;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      std::size_t bytes = s.inputs[k].type.hostBytes();
      in[k].resize(inputs[k].numElements() * bytes);
      for (std::size_t i = 0; i < inputs[k].numElements(); ++i) s.inputs[k].type.store(in[k].data() + i * bytes, inputs[k].get(i));
      inPointers.push_back(in[k].data());
    }
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      out[k].assign(outputs[k].numElements() * s.outputs[k].type.hostBytes(), 0);
      outPointers.push_back(out[k].data());
    }
    callback(inPointers, outPointers);
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      std::size_t bytes = s.outputs[k].type.hostBytes();
      for (std::size_t i = 0; i < outputs[k].numElements(); ++i) outputs[k].set(i, s.outputs[k].type.load(out[k].data() + i * bytes));
    }
  }
};
struct SyncNode : host::Node {
  void run(const host::Replicas &) const override {}  // lock step: every tile and replica is always in step
};
} // namespace

Program Program::compute(std::string name, std::function<void()> fn) {
  auto n = std::make_shared<ComputeNode>();
  n->name = std::move(name);
  n->fn = std::move(fn);
  return Program(n);
}

Program Program::collective(std::string name, std::function<void(const host::Replicas &)> fn) {
  auto n = std::make_shared<CollectiveNode>();
  n->name = std::move(name);
  n->fn = std::move(fn);
  return Program(n);
}

Sequence::Sequence(const DebugContext &) : steps_(std::make_shared<std::vector<Program>>()) {
  auto n = std::make_shared<SequenceNode>();
  n->steps = steps_;
  node_ = n;
}

Sequence::Sequence(std::initializer_list<Program> programs, const DebugContext &d) : Sequence(d) {
  for (const Program &p : programs) add(p);
}

void Sequence::add(const Program &p) { steps_->push_back(p); }

Repeat::Repeat(unsigned count, const Program &body, const DebugContext &) {
  auto n = std::make_shared<RepeatNode>();
  n->count = count;
  n->body = body;
  node_ = n;
}

If::If(const Tensor &condition, const Program &trueBody, const Program &falseBody, const DebugContext &) {
  if (condition.numElements() != 1) throw error("If: the condition must have one element");
  auto n = std::make_shared<IfNode>();
  n->condition = condition;
  n->then = trueBody;
  n->otherwise = falseBody;
  node_ = n;
}

Copy::Copy(const Tensor &src, const Tensor &dst, bool, const DebugContext &) {
  if (src.numElements() != dst.numElements() || src.elementType() != dst.elementType())
    throw error("Copy between tensors of different sizes or types");
  auto n = std::make_shared<CopyNode>();
  n->src = src;
  n->dst = dst;
  node_ = n;
}

Copy::Copy(const DataStream &stream, const Tensor &dst, bool, const DebugContext &) {
  if (!stream.state().toDevice || stream.numElements() != dst.numElements() || stream.elementType() != dst.elementType())
    throw error("Copy from stream '" + stream.handle() + "' into a tensor that does not match it");
  auto n = std::make_shared<StreamNode>();
  n->stream = stream;
  n->tensor = dst;
  node_ = n;
}

Copy::Copy(const Tensor &src, const DataStream &stream, bool, const DebugContext &) {
  if (stream.state().toDevice || stream.numElements() != src.numElements() || stream.elementType() != src.elementType())
    throw error("Copy to stream '" + stream.handle() + "' from a tensor that does not match it");
  auto n = std::make_shared<StreamNode>();
  n->stream = stream;
  n->tensor = src;
  node_ = n;
}

PrintTensor::PrintTensor(const std::string &title, const Tensor &t, const DebugContext &) {
  auto n = std::make_shared<ComputeNode>();
  n->name = title;
  n->fn = [title, t] {
    std::printf("%s: [", title.c_str());
    for (std::size_t i = 0; i < t.numElements(); ++i) std::printf(i ? ", %g" : "%g", t.get(i));
    std::printf("]\n");
  };
  node_ = n;
}

Sync::Sync(SyncType, const DebugContext &) { node_ = std::make_shared<SyncNode>(); }

Call::Call(const Function &f, const DebugContext &) {
  auto n = std::make_shared<CallNode>();
  n->f = f;
  node_ = n;
}

Call::Call(const HostFunction &f, ArrayRef<Tensor> inputs, ArrayRef<Tensor> outputs, const DebugContext &) {
  const poplar::host::HostFunctionState &s = f.state();
  auto check = [&](ArrayRef<Tensor> tensors, const std::vector<HostFunctionArgument> &arguments, const char *what) {
    if (tensors.size() != arguments.size())
      throw error("Call of host function '" + s.handle + "' with " + std::to_string(tensors.size()) + " " + what + ", it takes " +
                  std::to_string(arguments.size()));
    for (std::size_t k = 0; k < tensors.size(); ++k)
      if (tensors[k].elementType() != arguments[k].type || tensors[k].numElements() != arguments[k].size)
        throw error("Call of host function '" + s.handle + "': " + what + " " + std::to_string(k) + " is " +
                    std::to_string(tensors[k].numElements()) + " " + tensors[k].elementType().toString() + ", the function takes " +
                    std::to_string(arguments[k].size) + " " + arguments[k].type.toString());
  };
  check(inputs, s.inputs, "inputs");
  check(outputs, s.outputs, "outputs");
  auto n = std::make_shared<HostCallNode>();
  n->f = f;
  n->inputs = inputs.vec();
  n->outputs = outputs.vec();
  node_ = n;
}
} // namespace program

namespace program {
static void checkRemote(const RemoteBuffer &b, const Tensor &t) {
  if (b.numElements() != t.numElements() || b.elementType() != t.elementType())
    throw error("Copy between remote buffer '" + b.handle() + "' and a tensor of another size or type");
}

Copy::Copy(const RemoteBuffer &buffer, const Tensor &dst, const DebugContext &debug) {
  checkRemote(buffer, dst);
  auto n = std::make_shared<ComputeNode>();
  n->name = debug.name();
  n->fn = [buffer, dst] {
    for (std::size_t i = 0; i < dst.numElements(); ++i) dst.set(i, buffer.data()[i]);
  };
  node_ = n;
}

Copy::Copy(const Tensor &src, const RemoteBuffer &buffer, const DebugContext &debug) {
  checkRemote(buffer, src);
  auto n = std::make_shared<ComputeNode>();
  n->name = debug.name();
  n->fn = [src, buffer] {
    for (std::size_t i = 0; i < src.numElements(); ++i) buffer.data()[i] = src.get(i);
  };
  node_ = n;
}
} // namespace program
} // namespace poplar
