// Host implementation of popops::expr (see poplar/HostCore.hpp): expression trees that
// popops::map evaluates element by element. Checks our emitted code only.
#pragma once
#include <poplar/HostCore.hpp>
#include <popops/ExprOp.hpp>

namespace popops {
namespace expr {

// A value while an expression is evaluated: the number, its type, and whether it is a
// literal ("weak": it takes the tensor operand's type, as a scalar does in PyTorch).
struct Value {
  double v;
  poplar::Type type;
  bool weak;
};

class Expr {
public:
  virtual ~Expr() = default;
  virtual std::unique_ptr<Expr> clone() const = 0;
  virtual Value eval(const std::vector<Value> &args) const = 0;  // host side only
};

template <typename T> class ExprType : public Expr {
public:
  std::unique_ptr<Expr> clone() const override { return std::make_unique<T>(static_cast<const T &>(*this)); }
};

class Const : public ExprType<Const> {
public:
  Const(float x) : value_{x, poplar::FLOAT, true} {}
  Const(double x) : value_{static_cast<float>(x), poplar::FLOAT, true} {}
  Const(int x) : value_{static_cast<double>(x), poplar::INT, true} {}
  Const(long long x) : value_{static_cast<double>(x), poplar::LONGLONG, true} {}
  Const(bool x) : value_{x ? 1.0 : 0.0, poplar::BOOL, true} {}
  Value eval(const std::vector<Value> &) const override { return value_; }

private:
  Value value_;
};

class PlaceHolder : public ExprType<PlaceHolder> {
public:
  explicit constexpr PlaceHolder(unsigned index) : index_(index) {}
  Value eval(const std::vector<Value> &args) const override;

private:
  unsigned index_;
};

inline const PlaceHolder _1(1), _2(2), _3(3), _4(4), _5(5), _6(6), _7(7), _8(8), _9(9), _10(10), _11(11), _12(12),
    _13(13), _14(14), _15(15), _16(16), _17(17), _18(18), _19(19), _20(20);

class Cast : public ExprType<Cast> {
public:
  Cast(const Expr &a, const poplar::Type &type) : a_(a.clone()), type_(type) {}
  Cast(const Cast &o) : a_(o.a_->clone()), type_(o.type_) {}
  Value eval(const std::vector<Value> &args) const override;

private:
  std::unique_ptr<Expr> a_;
  poplar::Type type_;
};

class UnaryOp : public ExprType<UnaryOp> {
public:
  UnaryOp(UnaryOpType type, const Expr &a) : type_(type), a_(a.clone()) {}
  UnaryOp(const UnaryOp &o) : type_(o.type_), a_(o.a_->clone()) {}
  Value eval(const std::vector<Value> &args) const override;

private:
  UnaryOpType type_;
  std::unique_ptr<Expr> a_;
};

class BinaryOp : public ExprType<BinaryOp> {
public:
  BinaryOp(BinaryOpType type, const Expr &a, const Expr &b) : type_(type), a_(a.clone()), b_(b.clone()) {}
  BinaryOp(const BinaryOp &o) : type_(o.type_), a_(o.a_->clone()), b_(o.b_->clone()) {}
  Value eval(const std::vector<Value> &args) const override;

private:
  BinaryOpType type_;
  std::unique_ptr<Expr> a_, b_;
};

// SELECT(a, b, c) is c ? a : b; CLAMP(a, b, c) is min(max(a, b), c).
class TernaryOp : public ExprType<TernaryOp> {
public:
  TernaryOp(TernaryOpType type, const Expr &a, const Expr &b, const Expr &c)
      : type_(type), a_(a.clone()), b_(b.clone()), c_(c.clone()) {}
  TernaryOp(const TernaryOp &o) : type_(o.type_), a_(o.a_->clone()), b_(o.b_->clone()), c_(o.c_->clone()) {}
  Value eval(const std::vector<Value> &args) const override;

private:
  TernaryOpType type_;
  std::unique_ptr<Expr> a_, b_, c_;
};

} // namespace expr
} // namespace popops
