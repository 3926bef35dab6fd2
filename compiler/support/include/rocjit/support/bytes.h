// Little-endian byte records: the kernel cache's entries (compiler/cache), the host entries'
// facts and the print table (compiler/ir/device_print.cpp) are written and read with these, so
// reading an entry needs no LLVM. The reader never reads past its input: a short or inconsistent
// record makes it fail (ok() false, and every later read gives zeros and empty strings).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace rocjit::support {

static_assert(std::endian::native == std::endian::little, "rocjit's byte records are little-endian");

class ByteWriter {
 public:
  explicit ByteWriter(std::string& out) : out_(out) {}
  template <class T>
  void put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  // A length of type L, then the bytes.
  template <class L = uint64_t>
  void text(std::string_view v) {
    put<L>(static_cast<L>(v.size()));
    out_.append(v);
  }
  void bytes(std::string_view v) { out_.append(v); }

 private:
  std::string& out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view in, size_t at = 0) : in_(in), at_(at), ok_(at <= in.size()) {}
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v{};
    if (!ok_ || in_.size() - at_ < sizeof v) {
      ok_ = false;
      return T{};
    }
    std::memcpy(&v, in_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  // `n` bytes, or an empty view (and failure) when fewer are left.
  std::string_view bytes(uint64_t n) {
    if (!ok_ || in_.size() - at_ < n) {
      ok_ = false;
      return {};
    }
    std::string_view v = in_.substr(at_, n);
    at_ += n;
    return v;
  }
  // What ByteWriter::text<L> wrote.
  template <class L = uint64_t>
  std::string text() {
    return std::string(bytes(get<L>()));
  }
  // Fails the reader (a value it read is out of range): later reads give nothing.
  void fail() { ok_ = false; }
  bool ok() const { return ok_; }
  // Whether every byte was read, and nothing failed.
  bool whole() const { return ok_ && at_ == in_.size(); }
  size_t offset() const { return at_; }
  std::string_view input() const { return in_; }

 private:
  std::string_view in_;
  size_t at_;
  bool ok_;
};

}  // namespace rocjit::support
