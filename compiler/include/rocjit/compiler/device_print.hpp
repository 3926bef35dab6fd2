// Device output: dsl::print and dsl::device_assert. A kernel with print or assert ops gets one
// more explicit argument, the print buffer (AbiArgument::Kind::print_buffer), a pointer to device
// memory the host sets up before the launch and reads after it. Every executor writes the same
// records (the CPU and AMDGPU lowerings, targets/lowering.cpp; the interpreter), and one decoder,
// deliver_prints(), turns them into output and a DeviceAssertion.
//
// The buffer, all little-endian:
//   offset  0  u32 used      record bytes claimed so far (may pass `capacity`: those are dropped)
//   offset  4  u32 capacity  bytes of the record area (the host writes it)
//   offset  8  u32 dropped   print records that did not fit
//   offset 12  u32 failures  work-items whose assert failed
//   offset 32  the assert slot (PrintTable::assert_slot_bytes): the record of the first failure
//   then       the record area (PrintTable::records_offset())
// A record: u32 site (index into PrintTable::sites), u32 group[3], u32 local id[3], u32 zero,
// then one u64 per value lane (the value's bits, zero-extended; i1 as 0 or 1).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rocjit/compiler/error.hpp"
#include "rocjit/compiler/host.hpp"  // Dim3
#include "rocjit/compiler/ir.hpp"

namespace rocjit {

/// Byte offsets of the print buffer's fields (see the file comment).
namespace print_buffer {
inline constexpr uint32_t used = 0;          ///< u32: record bytes claimed so far (may pass `capacity`)
inline constexpr uint32_t capacity = 4;      ///< u32: bytes of the record area (the host writes it)
inline constexpr uint32_t dropped = 8;       ///< u32: print records that did not fit
inline constexpr uint32_t failures = 12;     ///< u32: work-items whose assert failed
inline constexpr uint32_t assert_slot = 32;  ///< the record of the first failed assert
/// Bytes of a record before its values.
inline constexpr uint32_t record_header = 32;
/// Values (lanes) one print or assert may carry.
inline constexpr uint32_t max_values = 32;
}  // namespace print_buffer

/// One print or assert op of a kernel.
struct PrintSite {
  bool is_assert = false;      ///< device_assert (else print)
  std::string format;           ///< fmt-style
  std::vector<ir::Type> args;   ///< the values' types (vectors allowed)
  ir::SourceLoc loc;            ///< where the op was made
  uint32_t words = 0;           ///< u64 words of its values (the sum of their lanes)
  /// Bytes of one record.
  uint32_t record_bytes() const { return print_buffer::record_header + 8 * words; }
};

/// The print and assert ops of a kernel, in the order ir::walk meets them: a record's site is
/// its index here.
struct PrintTable {
  std::vector<PrintSite> sites;    ///< the sites, indexed by a record's site
  uint32_t assert_slot_bytes = 0;  ///< the largest assert record; 0 without asserts
  /// Where the record area starts.
  uint32_t records_offset() const { return print_buffer::assert_slot + assert_slot_bytes; }
  /// Whether the kernel has no print or assert ops.
  bool empty() const { return sites.empty(); }
};

/// The table of `kernel`'s print and assert ops.
PrintTable print_table(const ir::Kernel& kernel);

/// `table` appended to `out` in the kernel cache's entry format (little-endian; no LLVM needed to
/// read it back): u32 assert_slot_bytes, u32 site count, then per site u8 is_assert, the format
/// (u32 length + bytes), u32 argument count and each type (u8 code, u8 bits, u16 lanes), the
/// location (u32 length + file, u32 line, u32 column).
void write_print_table(std::string& out, const PrintTable& table);
/// Reads what write_print_table wrote, starting at `at` (advanced past it). False, with `at`
/// unspecified, when the bytes are not a well-formed table (a corrupt cache entry).
bool read_print_table(std::string_view in, size_t& at, PrintTable& table);
/// Each print or assert op's site index (pointer identity; valid while `kernel` is unchanged).
std::unordered_map<const ir::Op*, uint32_t> print_site_ids(const ir::Kernel& kernel);

/// What is wrong with `format` for values of `types` ("" if nothing): a malformed replacement
/// field, a format spec a value's type does not take, or a count of fields other than the
/// count of values.
std::string check_print_format(std::string_view format, std::span<const ir::Type> types);

/// `site`'s format applied to the values in `words` (site.words of them).
std::string format_print(const PrintSite& site, const uint64_t* words);

/// The first record_offset() bytes of a fresh print buffer with a record area of `capacity` bytes.
std::vector<uint8_t> print_buffer_header(const PrintTable& table, uint32_t capacity);

/// What one launch's buffer held, as deliver_prints() reports it.
struct PrintDelivery {
  size_t records = 0;    ///< records printed
  uint32_t dropped = 0;  ///< records that did not fit
  std::optional<DeviceAssertion> assertion;  ///< the first assert failure, if any
};

/// Decodes a launch's print buffer (`buffer`: at least its header and record area as the device
/// left them): each record is printed through the print handler (set_print_handler), prefixed
/// with its work-item ("[group 3 item 17] " for 1-D launches, "[group (3,1,0) item (17,0,0)] "
/// otherwise); ordered by (group, work-item) when `sorted`. Dropped records are reported as a
/// warning through the log handler. A failed assert comes back as the DeviceAssertion to raise.
/// A malformed buffer (a device wrote where it should not) is a LaunchError.
PrintDelivery deliver_prints(const PrintTable& table, std::span<const uint8_t> buffer, const std::string& kernel,
                             Dim3 grid, Dim3 block, bool sorted);

}  // namespace rocjit
