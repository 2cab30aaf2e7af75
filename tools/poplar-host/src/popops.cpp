// Host implementation of popops::map / mapInPlace and the expression evaluation.
// It exists only to check ipu-mlir's emitted code; see ../README.md.
#include <popops/ElementWise.hpp>

#include <algorithm>
#include <cmath>

namespace popops {
namespace expr {
using poplar::Type;

static bool isInteger(const Type &t) { return !t.isFloatingPoint() && t != poplar::BOOL; }

// The type of a binary result, PyTorch's promotion: a tensor's type wins over a literal's
// of the same category; a float literal makes an integer tensor float.
static Value promote(const Value &a, const Value &b) {
  auto rank = [](const Type &t) {
    return t == poplar::BOOL ? 0 : t == poplar::INT || t == poplar::UNSIGNED_INT || t == poplar::CHAR ? 1
         : t == poplar::LONGLONG ? 2 : 3;
  };
  if (a.weak != b.weak) {
    const Value &tensor = a.weak ? b : a, &literal = a.weak ? a : b;
    if (literal.type.isFloatingPoint() && !tensor.type.isFloatingPoint()) return {0, poplar::FLOAT, false};
    return {0, tensor.type, false};
  }
  return {0, rank(a.type) >= rank(b.type) ? a.type : b.type, a.weak};
}

static Value make(double v, Type t, bool weak) { return {t.round(v), t, weak}; }

Value PlaceHolder::eval(const std::vector<Value> &args) const {
  if (index_ == 0 || index_ > args.size()) throw std::runtime_error("poplar-host: placeholder _" + std::to_string(index_) + " has no operand");
  return args[index_ - 1];
}

Value Cast::eval(const std::vector<Value> &args) const {
  Value a = a_->eval(args);
  double v = a.v;
  if (!type_.isFloatingPoint() && type_ != poplar::BOOL) v = std::trunc(v);
  return make(v, type_, false);
}

Value UnaryOp::eval(const std::vector<Value> &args) const {
  Value a = a_->eval(args);
  Type same = a.type, real = a.type.isFloatingPoint() ? a.type : poplar::FLOAT;
  double x = a.v;
  switch (type_) {
  case UnaryOpType::ABSOLUTE: return make(std::fabs(x), same, a.weak);
  case UnaryOpType::ASIN: return make(std::asin(x), real, a.weak);
  case UnaryOpType::BITWISE_NOT: return make(static_cast<double>(~static_cast<int64_t>(x)), same, a.weak);
  case UnaryOpType::CEILING: return make(std::ceil(x), same, a.weak);
  case UnaryOpType::COS: return make(std::cos(x), real, a.weak);
  case UnaryOpType::ERF: return make(std::erf(x), real, a.weak);
  case UnaryOpType::EXPONENT: return make(std::exp(x), real, a.weak);
  case UnaryOpType::EXPONENT_MINUS_ONE: return make(std::expm1(x), real, a.weak);
  case UnaryOpType::FLOOR: return make(std::floor(x), same, a.weak);
  case UnaryOpType::INVERSE: return make(1.0 / x, real, a.weak);
  case UnaryOpType::IS_FINITE: return make(std::isfinite(x), poplar::BOOL, false);
  case UnaryOpType::IS_INF: return make(std::isinf(x), poplar::BOOL, false);
  case UnaryOpType::IS_NAN: return make(std::isnan(x), poplar::BOOL, false);
  case UnaryOpType::LOGARITHM: return make(std::log(x), real, a.weak);
  case UnaryOpType::LOGARITHM_ONE_PLUS: return make(std::log1p(x), real, a.weak);
  case UnaryOpType::LOGICAL_NOT: return make(x == 0.0, poplar::BOOL, false);
  case UnaryOpType::NEGATE: return make(-x, same, a.weak);
  case UnaryOpType::RELU: return make(x > 0.0 ? x : 0.0, same, a.weak);
  case UnaryOpType::ROUND: return make(std::nearbyint(x), same, a.weak);  // half to even, as torch.round
  case UnaryOpType::RSQRT: return make(1.0 / std::sqrt(x), real, a.weak);
  case UnaryOpType::SIGMOID: return make(1.0 / (1.0 + std::exp(-x)), real, a.weak);
  case UnaryOpType::SIGNUM: return make(static_cast<double>((x > 0) - (x < 0)), same, a.weak);
  case UnaryOpType::SIN: return make(std::sin(x), real, a.weak);
  case UnaryOpType::SQRT: return make(std::sqrt(x), real, a.weak);
  case UnaryOpType::SQUARE: return make(x * x, same, a.weak);
  case UnaryOpType::TAN: return make(std::tan(x), real, a.weak);
  case UnaryOpType::TANH: return make(std::tanh(x), real, a.weak);
  case UnaryOpType::TRUNC: return make(std::trunc(x), same, a.weak);
  }
  throw std::runtime_error("poplar-host: unknown unary operation");
}

Value BinaryOp::eval(const std::vector<Value> &args) const {
  Value a = a_->eval(args), b = b_->eval(args);
  Value p = promote(a, b);
  double x = a.v, y = b.v;
  auto logical = [&](bool r) { return make(r, poplar::BOOL, false); };
  auto integral = [&](int64_t r) { return make(static_cast<double>(r), p.type, p.weak); };
  switch (type_) {
  case BinaryOpType::ADD: return make(x + y, p.type, p.weak);
  case BinaryOpType::SUBTRACT: return make(x - y, p.type, p.weak);
  case BinaryOpType::MULTIPLY: return make(x * y, p.type, p.weak);
  case BinaryOpType::DIVIDE:  // integer division truncates, as Poplar's
    return isInteger(p.type) ? integral(static_cast<int64_t>(x) / static_cast<int64_t>(y)) : make(x / y, p.type, p.weak);
  case BinaryOpType::POWER: return make(std::pow(x, y), p.type.isFloatingPoint() ? p.type : poplar::FLOAT, p.weak);
  case BinaryOpType::ATAN2: return make(std::atan2(x, y), p.type.isFloatingPoint() ? p.type : poplar::FLOAT, p.weak);
  case BinaryOpType::MAXIMUM: return make(std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y), p.type, p.weak);
  case BinaryOpType::MINIMUM: return make(std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y), p.type, p.weak);
  case BinaryOpType::REMAINDER:  // C's fmod (the sign of the dividend), as Poplar's
    return isInteger(p.type) ? integral(static_cast<int64_t>(x) % static_cast<int64_t>(y)) : make(std::fmod(x, y), p.type, p.weak);
  case BinaryOpType::EQUAL: return logical(x == y);
  case BinaryOpType::NOT_EQUAL: return logical(x != y);
  case BinaryOpType::LESS_THAN: return logical(x < y);
  case BinaryOpType::LESS_THAN_EQUAL: return logical(x <= y);
  case BinaryOpType::GREATER_THAN: return logical(x > y);
  case BinaryOpType::GREATER_THAN_EQUAL: return logical(x >= y);
  case BinaryOpType::LOGICAL_AND: return logical(x != 0 && y != 0);
  case BinaryOpType::LOGICAL_OR: return logical(x != 0 || y != 0);
  case BinaryOpType::BITWISE_AND: return integral(static_cast<int64_t>(x) & static_cast<int64_t>(y));
  case BinaryOpType::BITWISE_OR: return integral(static_cast<int64_t>(x) | static_cast<int64_t>(y));
  case BinaryOpType::BITWISE_XOR: return integral(static_cast<int64_t>(x) ^ static_cast<int64_t>(y));
  }
  throw std::runtime_error("poplar-host: unknown binary operation");
}

Value TernaryOp::eval(const std::vector<Value> &args) const {
  Value a = a_->eval(args), b = b_->eval(args), c = c_->eval(args);
  if (type_ == TernaryOpType::SELECT) {
    Value p = promote(a, b);
    return make(c.v != 0.0 ? a.v : b.v, p.type, p.weak);
  }
  double v = std::isnan(a.v) ? a.v : std::min(std::max(a.v, b.v), c.v);
  return make(v, a.type, a.weak);
}
} // namespace expr

namespace host {
std::vector<std::size_t> broadcastShape(const std::vector<poplar::Tensor> &ts) {
  std::size_t rank = 0;
  for (const auto &t : ts) rank = std::max<std::size_t>(rank, t.rank());
  std::vector<std::size_t> shape(rank, 1);
  for (const auto &t : ts)
    for (std::size_t d = 0; d < t.rank(); ++d) {
      std::size_t &s = shape[rank - t.rank() + d];
      std::size_t n = t.dim(static_cast<unsigned>(d));
      if (n != 1 && s != 1 && n != s) throw std::runtime_error("poplar-host: operands do not broadcast");
      if (n != 1) s = n;
    }
  return shape;
}

std::size_t broadcastIndex(const poplar::Tensor &t, const std::vector<std::size_t> &shape, std::size_t i) {
  std::size_t index = 0, stride = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    std::size_t coord = i % shape[d];
    i /= shape[d];
    std::size_t td = d + t.rank();
    if (td < shape.size()) continue;  // a leading dimension t lacks
    std::size_t n = t.dim(static_cast<unsigned>(td - shape.size()));
    index += (n == 1 ? 0 : coord) * stride;
    stride *= n;
  }
  return index;
}
} // namespace host

static void evaluate(const expr::Expr &e, const std::vector<poplar::Tensor> &ts, const poplar::Tensor &out) {
  std::vector<std::size_t> shape = out.shape();
  std::vector<expr::Value> args(ts.size(), expr::Value{0, poplar::FLOAT, false});
  std::vector<double> result(out.numElements());
  for (std::size_t i = 0; i < result.size(); ++i) {
    for (std::size_t k = 0; k < ts.size(); ++k) args[k] = {ts[k].get(host::broadcastIndex(ts[k], shape, i)), ts[k].elementType(), false};
    result[i] = e.eval(args).v;
  }
  for (std::size_t i = 0; i < result.size(); ++i) out.set(i, result[i]);
}

poplar::Tensor map(poplar::Graph &graph, const expr::Expr &e, const std::vector<poplar::Tensor> &ts,
                   poplar::program::Sequence &prog, const poplar::DebugContext &debug, const poplar::OptionFlags &) {
  std::vector<std::size_t> shape = host::broadcastShape(ts);
  // The result type: the expression's type, which depends on the operand types only.
  std::vector<expr::Value> probe;
  for (const auto &t : ts) probe.push_back({1.0, t.elementType(), false});
  poplar::Type type = e.eval(probe).type;
  poplar::Tensor out = graph.addVariable(type, shape, debug);
  auto fn = e.clone();
  std::shared_ptr<const expr::Expr> shared(std::move(fn));
  prog.add(poplar::program::Program::compute(debug.name(), [shared, ts, out] { evaluate(*shared, ts, out); }));
  return out;
}

void mapInPlace(poplar::Graph &, const expr::Expr &e, const std::vector<poplar::Tensor> &ts,
                poplar::program::Sequence &prog, const poplar::DebugContext &debug, const poplar::OptionFlags &) {
  if (ts.empty()) throw std::runtime_error("poplar-host: mapInPlace without operands");
  std::shared_ptr<const expr::Expr> shared(e.clone());
  poplar::Tensor out = ts[0];
  prog.add(poplar::program::Program::compute(debug.name(), [shared, ts, out] { evaluate(*shared, ts, out); }));
}
} // namespace popops
