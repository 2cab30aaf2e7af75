// Host implementation of the Poplar SDK subset that ipu-mlir's --poplar-to-cpp emits.
// It exists only to check our emitted code (see ../README.md); it is not Poplar.
//
// Model: a Tensor is a list of element references into shared storage (as a Poplar tensor
// is a list of variable elements), so reshape / dimShuffle / slice are views and a Copy
// into a view writes the variable. Programs are an interpreted tree. Streams are callbacks
// over host buffers connected by the Engine. Elements are held as double and rounded to
// the tensor's type on every write, so a FLOAT tensor always holds float values.
//
// Replicas: a graph replicated R times keeps R copies of every variable. The engine runs the
// program for its replicas in lock step, node by node (a compute node once per replica, a
// collective once for all of them), and get / set reach the copy of the replica being run;
// outside a run (building the graph, a constant's values) set writes every copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <poplar/ArrayRef.hpp>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace poplar {

class Type {
public:
  enum class Kind { FLOAT, HALF, INT, UNSIGNED_INT, LONGLONG, BOOL, CHAR };
  constexpr explicit Type(Kind k) : kind_(k) {}
  Kind kind() const { return kind_; }
  bool operator==(const Type &o) const { return kind_ == o.kind_; }
  bool operator!=(const Type &o) const { return kind_ != o.kind_; }
  std::string toString() const;
  std::size_t hostBytes() const;   // bytes of one element in a host buffer
  bool isFloatingPoint() const { return kind_ == Kind::FLOAT || kind_ == Kind::HALF; }
  double round(double v) const;    // the value as this type holds it
  double load(const void *p) const;
  void store(void *p, double v) const;

private:
  Kind kind_;
};

inline constexpr Type FLOAT{Type::Kind::FLOAT};
inline constexpr Type HALF{Type::Kind::HALF};
inline constexpr Type INT{Type::Kind::INT};
inline constexpr Type UNSIGNED_INT{Type::Kind::UNSIGNED_INT};
inline constexpr Type LONGLONG{Type::Kind::LONGLONG};
inline constexpr Type BOOL{Type::Kind::BOOL};
inline constexpr Type CHAR{Type::Kind::CHAR};

class DebugContext {
public:
  DebugContext() = default;
  DebugContext(const char *s) : name_(s) {}
  DebugContext(std::string s) : name_(std::move(s)) {}
  const std::string &name() const { return name_; }

private:
  std::string name_;
};

class OptionFlags {
public:
  OptionFlags() = default;
  OptionFlags(std::initializer_list<std::pair<const std::string, std::string>> l) : flags_(l) {}
  void set(const std::string &k, const std::string &v) { flags_[k] = v; }
  // Host side only (not Poplar API): the flags, for the functions that check the ones they take.
  const std::map<std::string, std::string> &entries() const { return flags_; }

private:
  std::map<std::string, std::string> flags_;
};

namespace host {
// The replica whose copy of the variables get / set reach while the engine runs a node for
// it; kAllReplicas outside a run (set writes every copy, get reads replica 0's).
inline constexpr unsigned kAllReplicas = ~0u;
inline unsigned currentReplica = kAllReplicas;
// Runs f with `replica` as the current replica, restoring the previous one after.
template <typename F> void forReplica(unsigned replica, F &&f) {
  unsigned saved = currentReplica;
  currentReplica = replica;
  try { f(); } catch (...) { currentReplica = saved; throw; }
  currentReplica = saved;
}

// One variable's elements: `replicas` copies of `size` elements, replica after replica.
struct Storage {
  Type type;
  std::size_t size;
  unsigned replicas;
  std::vector<double> data;
  std::vector<int> tile;  // tile of each element, -1 until mapped (the same in every replica)
  std::string name;
  Storage(Type t, std::size_t n, std::string nm, unsigned r = 1)
      : type(t), size(n), replicas(r), data(n * r, 0.0), tile(n, -1), name(std::move(nm)) {}
  double get(std::size_t i) const { return data[(currentReplica == kAllReplicas ? 0 : currentReplica) * size + i]; }
  void set(std::size_t i, double v) {
    if (currentReplica != kAllReplicas) { data[currentReplica * size + i] = v; return; }
    for (unsigned r = 0; r < replicas; ++r) data[r * size + i] = v;
  }
};
// One element of a tensor: a variable and the position in it. A tensor may take its
// elements from several variables (poplar::concat).
struct Ref {
  Storage *storage;
  std::size_t index;
};
using Elements = std::vector<Ref>;
} // namespace host

class Tensor;
Tensor concat(const Tensor &first, const Tensor &second, unsigned dimension = 0);
Tensor concat(const std::vector<Tensor> &tensors, unsigned dimension = 0);

class Tensor {
public:
  Tensor() = default;
  Type elementType() const { return type_; }
  const std::vector<std::size_t> &shape() const { return shape_; }
  unsigned rank() const { return static_cast<unsigned>(shape_.size()); }
  std::size_t dim(unsigned i) const;
  std::size_t numElements() const { return index_->size(); }
  bool valid() const { return static_cast<bool>(index_); }

  Tensor reshape(std::vector<std::size_t> shape) const;
  Tensor flatten() const { return reshape({numElements()}); }
  Tensor dimShuffle(std::vector<unsigned> permutation) const;
  Tensor transpose() const;  // swaps the last two dimensions
  Tensor slice(const std::vector<std::size_t> &begin, const std::vector<std::size_t> &end) const;
  Tensor slice(std::size_t begin, std::size_t end, unsigned dimension = 0) const;
  Tensor subSample(unsigned stride, unsigned dimension) const;
  Tensor expand(std::vector<std::size_t> indices) const;  // inserts singleton dims
  Tensor broadcast(unsigned n, unsigned dimension) const;
  Tensor reverse(unsigned dimension) const;

  // Host side only (not Poplar API): element access in row-major view order.
  double get(std::size_t i) const { const host::Ref &r = (*index_)[i]; return r.storage->get(r.index); }
  void set(std::size_t i, double v) const { const host::Ref &r = (*index_)[i]; r.storage->set(r.index, type_.round(v)); }
  const host::Elements &elements() const { return *index_; }
  static Tensor make(std::shared_ptr<host::Storage> s, std::vector<std::size_t> shape);

private:
  friend Tensor concat(const std::vector<Tensor> &tensors, unsigned dimension);
  std::vector<std::shared_ptr<host::Storage>> owners_;  // keeps the variables alive
  Type type_ = FLOAT;
  std::vector<std::size_t> shape_;
  std::shared_ptr<const host::Elements> index_;
};

namespace host {
struct StreamState {
  std::string name;
  Type type;
  std::size_t numElements;
  bool toDevice;
  char *begin = nullptr, *end = nullptr, *pos = nullptr;  // circular host buffer (one replica)
  // or a callback per transfer for each replica (connectStreamToCallback(handle, replica, f))
  std::vector<std::function<void(void *)>> callbacks;
  StreamState(std::string n, Type t, std::size_t e, bool d, unsigned replicas)
      : name(std::move(n)), type(t), numElements(e), toDevice(d), callbacks(replicas) {}
};
} // namespace host

class DataStream {
public:
  DataStream() = default;
  explicit DataStream(std::shared_ptr<host::StreamState> s) : state_(std::move(s)) {}
  const std::string &handle() const { return state_->name; }
  std::size_t numElements() const { return state_->numElements; }
  Type elementType() const { return state_->type; }
  host::StreamState &state() const { return *state_; }

private:
  std::shared_ptr<host::StreamState> state_;
};

// Streaming (off-chip) memory of `repeats` tensors of `numElements` elements each, one per
// replica; the host library keeps it as host storage, zero until written.
class RemoteBuffer {
public:
  RemoteBuffer() = default;
  RemoteBuffer(std::string handle, Type type, std::size_t numElements, std::size_t repeats, unsigned replicas = 1)
      : handle_(std::move(handle)), type_(type), numElements_(numElements), repeats_(repeats), replicas_(replicas),
        data_(std::make_shared<std::vector<double>>(numElements * repeats * replicas, 0.0)) {}
  const std::string &handle() const { return handle_; }
  Type elementType() const { return type_; }
  std::size_t numElements() const { return numElements_; }
  std::size_t getRepeats() const { return repeats_; }
  unsigned replicas() const { return replicas_; }  // host side only
  // Host side only: the replica's storage, repeat after repeat (the current replica's, or
  // replica 0's outside a run).
  double *data(unsigned replica) const { return data_->data() + replica * numElements_ * repeats_; }
  double *data() const {
    return data(host::currentReplica == host::kAllReplicas ? 0 : host::currentReplica);
  }

private:
  std::string handle_;
  Type type_ = FLOAT;
  std::size_t numElements_ = 0, repeats_ = 0;
  unsigned replicas_ = 1;
  std::shared_ptr<std::vector<double>> data_;
};

enum class SyncType { INTERNAL, EXTERNAL, GLOBAL };

namespace program {
namespace host {
// The replicas a node runs for, in lock step (all of the graph's, or those an If's branch took).
using Replicas = std::vector<unsigned>;
struct Node {
  virtual ~Node() = default;
  virtual void run(const Replicas &replicas) const = 0;
};
} // namespace host

class Program {
public:
  Program() = default;
  void run(const host::Replicas &replicas) const { if (node_) node_->run(replicas); }  // host side only
  // Host side only: a program node that runs a computation written as a host loop,
  // standing for the compute sets a PopLibs function would add (once for each replica).
  static Program compute(std::string name, std::function<void()> fn);
  // Host side only: a node that runs once for all the replicas running it (a cross-replica
  // collective): fn reads and writes each replica's copy inside poplar::host::forReplica.
  static Program collective(std::string name, std::function<void(const host::Replicas &)> fn);

protected:
  explicit Program(std::shared_ptr<host::Node> n) : node_(std::move(n)) {}
  std::shared_ptr<host::Node> node_;
  friend class Sequence;
};

class Sequence : public Program {
public:
  Sequence(const DebugContext & = {});
  Sequence(std::initializer_list<Program> programs, const DebugContext & = {});
  void add(const Program &p);

private:
  std::shared_ptr<std::vector<Program>> steps_;
};

class Repeat : public Program {
public:
  Repeat(unsigned count, const Program &body, const DebugContext & = {});
};

// Runs trueBody if the one-element `condition` is non-zero when the program reaches it, else falseBody.
class If : public Program {
public:
  If(const Tensor &condition, const Program &trueBody, const Program &falseBody, const DebugContext & = {});
};

class Copy : public Program {
public:
  Copy(const Tensor &src, const Tensor &dst, bool dontOutline = false, const DebugContext & = {});
  Copy(const DataStream &stream, const Tensor &dst, bool optimiseMemory = false, const DebugContext & = {});
  Copy(const Tensor &src, const DataStream &stream, bool optimiseMemory = false, const DebugContext & = {});
  // Between a remote buffer (repeat 0) and a tensor of its size and type.
  Copy(const RemoteBuffer &buffer, const Tensor &dst, const DebugContext & = {});
  Copy(const Tensor &src, const RemoteBuffer &buffer, const DebugContext & = {});
};

class PrintTensor : public Program {
public:
  PrintTensor(const std::string &title, const Tensor &t, const DebugContext & = {});  // to stdout
};

class Sync : public Program {
public:
  explicit Sync(SyncType type, const DebugContext & = {});
};
} // namespace program

class Function {
public:
  Function() = default;
  explicit Function(program::Program p) : body_(std::move(p)) {}
  const program::Program &body() const { return body_; }

private:
  program::Program body_;
};

// The element type and number of elements of a host function's input or output
// (Graph::addHostFunction).
struct HostFunctionArgument {
  Type type;
  std::size_t size;
};

namespace host {
struct HostFunctionState {
  std::string handle;
  std::vector<HostFunctionArgument> inputs, outputs;
  // Engine::connectHostFunction, per replica: called with each input's and output's host data
  std::vector<std::function<void(ArrayRef<const void *>, ArrayRef<void *>)>> callbacks;
};
} // namespace host

// A function the host runs where a program calls it (Graph::addHostFunction, program::Call):
// the inputs' elements go to the host, the callback connected to the handle runs, and its
// outputs come back into the output tensors.
class HostFunction {
public:
  HostFunction() = default;
  explicit HostFunction(std::shared_ptr<host::HostFunctionState> s) : state_(std::move(s)) {}
  const std::string &handle() const { return state_->handle; }
  host::HostFunctionState &state() const { return *state_; }  // host side only

private:
  std::shared_ptr<host::HostFunctionState> state_;
};

namespace program {
class Call : public Program {
public:
  explicit Call(const Function &f, const DebugContext & = {});
  // Calls a host function: inputs[i] / outputs[i] must match its arguments' types and sizes.
  Call(const HostFunction &f, ArrayRef<Tensor> inputs, ArrayRef<Tensor> outputs, const DebugContext & = {});
};
} // namespace program

} // namespace poplar
