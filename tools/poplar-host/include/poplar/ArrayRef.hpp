// Host implementation of poplar::ArrayRef (see HostCore.hpp): a non-owning view of
// contiguous elements, as Poplar's API takes lists. Checks our emitted code only.
#pragma once
#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <vector>

namespace poplar {
template <typename T>
class ArrayRef {
public:
  ArrayRef() = default;
  ArrayRef(const T &one) : data_(&one), size_(1) {}
  ArrayRef(const T *data, std::size_t size) : data_(data), size_(size) {}
  ArrayRef(const std::vector<T> &v) : data_(v.data()), size_(v.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"  // a parameter's list lives for the call, as in Poplar
#endif
  ArrayRef(std::initializer_list<T> l) : data_(l.begin()), size_(l.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T *begin() const { return data_; }
  const T *end() const { return data_ + size_; }
  const T &operator[](std::size_t i) const { return data_[i]; }
  const T &at(std::size_t i) const {
    if (i >= size_) throw std::out_of_range("poplar-host: ArrayRef index out of range");
    return data_[i];
  }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

private:
  const T *data_ = nullptr;
  std::size_t size_ = 0;
};
} // namespace poplar
