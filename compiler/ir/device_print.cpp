// Device output (dsl::print, dsl::device_assert): the site table, format checking, and the one
// decoder of print buffers every device uses (see device_print.hpp for the buffer's layout).
#include "rocjit/compiler/device_print.hpp"

#include <fmt/args.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <tuple>

#include "rocjit/compiler/float16.hpp"
#include "rocjit/support/log.h"

namespace rocjit {
namespace {

// One value of a record: its type (scalar or vector) and its lanes' bits.
struct PrintArg {
  ir::Type type;
  const uint64_t* lanes;
};

// One lane's bits formatted with `spec` as the C++ value of `type`.
std::string format_lane(ir::Type type, uint64_t bits, const std::string& spec) {
  const std::string pattern = "{:" + spec + "}";
  std::string out;
  const bool known = ir::with_cpp_type(type, [&](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same_v<T, bool>) {
      out = fmt::format(fmt::runtime(pattern), bits != 0);
    } else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
      out = fmt::format(fmt::runtime(pattern), static_cast<float>(T::from_bits(static_cast<uint16_t>(bits))));
    } else if constexpr (std::is_floating_point_v<T>) {
      T v;
      std::memcpy(&v, &bits, sizeof v);
      out = fmt::format(fmt::runtime(pattern), v);
    } else if constexpr (std::is_signed_v<T>) {
      T v;
      std::memcpy(&v, &bits, sizeof v);  // little-endian: the low bytes
      out = fmt::format(fmt::runtime(pattern), static_cast<int64_t>(v));
    } else {
      T v;
      std::memcpy(&v, &bits, sizeof v);
      out = fmt::format(fmt::runtime(pattern), static_cast<uint64_t>(v));
    }
  });
  if (!known) throw fmt::format_error("a value of type " + ir::type_name(type) + " cannot be printed");
  return out;
}

}  // namespace
}  // namespace rocjit

// Formats a value with the replacement field's spec: a scalar as its C++ type would be, a
// vector as "(lane0, lane1, ...)" with the spec applied to each lane.
template <>
struct fmt::formatter<rocjit::PrintArg> {
  std::string spec;
  auto parse(fmt::format_parse_context& ctx) {
    auto it = ctx.begin();
    while (it != ctx.end() && *it != '}') {
      if (*it == '{') throw fmt::format_error("a nested replacement field (dynamic width or precision) is not supported");
      ++it;
    }
    spec.assign(ctx.begin(), it);
    return it;
  }
  auto format(const rocjit::PrintArg& a, fmt::format_context& ctx) const {
    std::string text;
    if (a.type.lanes == 1) {
      text = rocjit::format_lane(a.type, a.lanes[0], spec);
    } else {
      text = "(";
      for (unsigned l = 0; l < a.type.lanes; ++l)
        text += (l ? ", " : "") + rocjit::format_lane(a.type.element_of(), a.lanes[l], spec);
      text += ")";
    }
    return std::copy(text.begin(), text.end(), ctx.out());
  }
};

namespace rocjit {
namespace {

// The number of values `format`'s replacement fields refer to, or an error.
std::string count_fields(std::string_view f, size_t& count) {
  size_t automatic = 0;
  long highest = -1;
  bool manual = false;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] == '}') {
      if (i + 1 < f.size() && f[i + 1] == '}') {
        ++i;
        continue;
      }
      return fmt::format("the '}}' at offset {} closes no replacement field (write '}}}}' for a brace)", i);
    }
    if (f[i] != '{') continue;
    if (i + 1 < f.size() && f[i + 1] == '{') {
      ++i;
      continue;
    }
    const size_t close = f.find_first_of("{}", i + 1);
    if (close == std::string_view::npos || f[close] == '{')
      return fmt::format("the replacement field at offset {} is not closed{}", i,
                         close == std::string_view::npos ? "" : " (nested fields such as a dynamic width are not supported)");
    std::string_view field = f.substr(i + 1, close - i - 1);
    std::string_view id = field.substr(0, field.find(':'));
    if (id.empty()) {
      ++automatic;
    } else if (id.find_first_not_of("0123456789") == std::string_view::npos && id.size() < 4) {
      manual = true;
      highest = std::max(highest, std::stol(std::string(id)));
    } else {
      return fmt::format("the replacement field '{{{}}}' names an argument; only positions such as {{0}} are supported",
                         field);
    }
    i = close;
  }
  if (manual && automatic) return "the format mixes numbered fields ({0}) and automatic ones ({})";
  count = manual ? static_cast<size_t>(highest + 1) : automatic;
  return {};
}

std::string format_with(std::string_view format, const std::vector<PrintArg>& args) {
  fmt::dynamic_format_arg_store<fmt::format_context> store;
  for (const PrintArg& a : args) store.push_back(a);
  return fmt::vformat(fmt::string_view(format.data(), format.size()), store);
}

uint32_t read_u32(std::span<const uint8_t> b, size_t at) {
  uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}

struct Record {
  uint32_t site;
  std::array<uint32_t, 3> group, item;
  const uint64_t* words;
};

Record read_record(std::span<const uint8_t> b, size_t at) {
  Record r;
  r.site = read_u32(b, at);
  for (int d = 0; d < 3; ++d) {
    r.group[d] = read_u32(b, at + 4 + 4 * d);
    r.item[d] = read_u32(b, at + 16 + 4 * d);
  }
  r.words = reinterpret_cast<const uint64_t*>(b.data() + at + print_buffer::record_header);
  return r;
}

std::string where(const Record& r, bool one_d) {
  if (one_d) return fmt::format("group {} item {}", r.group[0], r.item[0]);
  return fmt::format("group ({},{},{}) item ({},{},{})", r.group[0], r.group[1], r.group[2], r.item[0], r.item[1],
                     r.item[2]);
}

}  // namespace

std::unordered_map<const ir::Op*, uint32_t> print_site_ids(const ir::Kernel& kernel) {
  std::unordered_map<const ir::Op*, uint32_t> ids;
  ir::walk(kernel.body, [&](const ir::Op& op) {
    if (op.kind == ir::OpKind::print || op.kind == ir::OpKind::assert_)
      ids.emplace(&op, static_cast<uint32_t>(ids.size()));
  });
  return ids;
}

PrintTable print_table(const ir::Kernel& kernel) {
  PrintTable table;
  ir::walk(kernel.body, [&](const ir::Op& op) {
    if (op.kind != ir::OpKind::print && op.kind != ir::OpKind::assert_) return;
    PrintSite site;
    site.is_assert = op.kind == ir::OpKind::assert_;
    site.format = op.format();
    site.loc = op.loc;
    for (size_t i = site.is_assert ? 1 : 0; i < op.operands.size(); ++i) {
      const ir::Type t = kernel.value_type(op.operands[i]);
      site.args.push_back(t);
      site.words += t.lanes;
    }
    if (site.is_assert) table.assert_slot_bytes = std::max(table.assert_slot_bytes, site.record_bytes());
    table.sites.push_back(std::move(site));
  });
  return table;
}

namespace {

template <class T>
void put(std::string& out, T v) {
  static_assert(std::endian::native == std::endian::little, "cache entries are little-endian");
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void put_text(std::string& out, std::string_view v) {
  put<uint32_t>(out, static_cast<uint32_t>(v.size()));
  out.append(v);
}

template <class T>
bool take(std::string_view in, size_t& at, T& v) {
  if (at > in.size() || in.size() - at < sizeof v) return false;
  std::memcpy(&v, in.data() + at, sizeof v);
  at += sizeof v;
  return true;
}

bool take_text(std::string_view in, size_t& at, std::string& v) {
  uint32_t n = 0;
  if (!take(in, at, n) || in.size() - at < n) return false;
  v.assign(in.substr(at, n));
  at += n;
  return true;
}

}  // namespace

void write_print_table(std::string& out, const PrintTable& table) {
  put<uint32_t>(out, table.assert_slot_bytes);
  put<uint32_t>(out, static_cast<uint32_t>(table.sites.size()));
  for (const PrintSite& site : table.sites) {
    put<uint8_t>(out, site.is_assert ? 1 : 0);
    put_text(out, site.format);
    put<uint32_t>(out, static_cast<uint32_t>(site.args.size()));
    for (ir::Type t : site.args) {
      put<uint8_t>(out, static_cast<uint8_t>(t.code));
      put<uint8_t>(out, t.bits);
      put<uint16_t>(out, t.lanes);
    }
    put_text(out, site.loc.file);
    put<uint32_t>(out, site.loc.line);
    put<uint32_t>(out, site.loc.column);
  }
}

bool read_print_table(std::string_view in, size_t& at, PrintTable& table) {
  uint32_t count = 0;
  table = PrintTable{};
  if (!take(in, at, table.assert_slot_bytes) || !take(in, at, count) || count > (1u << 20)) return false;
  table.sites.resize(count);
  for (PrintSite& site : table.sites) {
    uint8_t is_assert = 0;
    uint32_t args = 0;
    if (!take(in, at, is_assert) || is_assert > 1 || !take_text(in, at, site.format) || !take(in, at, args) ||
        args > print_buffer::max_values)
      return false;
    site.is_assert = is_assert == 1;
    for (uint32_t i = 0; i < args; ++i) {
      uint8_t code = 0, bits = 0;
      uint16_t lanes = 0;
      if (!take(in, at, code) || !take(in, at, bits) || !take(in, at, lanes) ||
          code > static_cast<uint8_t>(ir::Type::Code::bfloat) || lanes == 0)
        return false;
      site.args.push_back(ir::Type(static_cast<ir::Type::Code>(code), bits, lanes));
      site.words += lanes;
    }
    if (site.words > print_buffer::max_values || !take_text(in, at, site.loc.file) || !take(in, at, site.loc.line) ||
        !take(in, at, site.loc.column))
      return false;
    // The record sizes the decoder relies on follow from the sites: a table that disagrees is corrupt.
    if (site.is_assert && site.record_bytes() > table.assert_slot_bytes) return false;
  }
  return true;
}

std::string check_print_format(std::string_view format, std::span<const ir::Type> types) {
  size_t fields = 0;
  if (std::string e = count_fields(format, fields); !e.empty()) return e;
  if (fields != types.size())
    return fmt::format("the format has {} replacement field{} but {} value{} given", fields, fields == 1 ? "" : "s",
                       types.size(), types.size() == 1 ? " was" : "s were");
  uint32_t lanes = 0;
  for (ir::Type t : types) lanes += t.lanes;
  if (lanes > print_buffer::max_values)
    return fmt::format("{} values (vector lanes counted) are more than the {} one print may carry", lanes,
                       print_buffer::max_values);
  static const uint64_t zeros[16] = {};
  std::vector<PrintArg> args;
  for (ir::Type t : types) args.push_back({t, zeros});
  try {
    (void)format_with(format, args);
  } catch (const fmt::format_error& e) {
    std::string names;
    for (ir::Type t : types) names += (names.empty() ? "" : ", ") + ir::type_name(t);
    return fmt::format("the format does not fit its values' types ({}): {}", names, e.what());
  }
  return {};
}

std::string format_print(const PrintSite& site, const uint64_t* words) {
  std::vector<PrintArg> args;
  for (ir::Type t : site.args) {
    args.push_back({t, words});
    words += t.lanes;
  }
  try {
    return format_with(site.format, args);
  } catch (const fmt::format_error& e) {  // checked when traced; a parsed .rjir may hold anything
    return fmt::format("<format error at {}: {}>", site.loc.str(), e.what());
  }
}

std::vector<uint8_t> print_buffer_header(const PrintTable& table, uint32_t capacity) {
  std::vector<uint8_t> header(table.records_offset(), 0);
  std::memcpy(header.data() + print_buffer::capacity, &capacity, 4);
  return header;
}

PrintDelivery deliver_prints(const PrintTable& table, std::span<const uint8_t> buffer, const std::string& kernel,
                             Dim3 grid, Dim3 block, bool sorted) {
  PrintDelivery out;
  const size_t start = table.records_offset();
  if (buffer.size() < start)
    throw LaunchError(fmt::format("kernel '{}': the print buffer is {} bytes, less than its {}-byte header", kernel,
                                  buffer.size(), start));
  const uint32_t capacity = std::min<uint64_t>(read_u32(buffer, print_buffer::capacity), buffer.size() - start);
  const uint32_t used = std::min(read_u32(buffer, print_buffer::used), capacity);
  out.dropped = read_u32(buffer, print_buffer::dropped);
  const uint32_t failures = read_u32(buffer, print_buffer::failures);
  const bool one_d = grid.y == 1 && grid.z == 1 && block.y == 1 && block.z == 1;
  auto bad = [&](size_t at, const std::string& what) {
    return LaunchError(fmt::format("kernel '{}': the print buffer holds a bad record at byte {}: {} (device memory "
                                   "was overwritten)",
                                   kernel, at, what));
  };

  std::vector<Record> records;
  for (size_t at = 0; at + 4 <= used;) {
    // The site first: a record that did not fit leaves only its 4-byte mark, maybe at the very end.
    const uint32_t site = read_u32(buffer, start + at);
    if (site == UINT32_MAX) break;  // a record that did not fit: nothing follows
    if (site >= table.sites.size() || table.sites[site].is_assert)
      throw bad(at, fmt::format("site {} is not one of the kernel's {} print sites", site, table.sites.size()));
    const uint32_t bytes = table.sites[site].record_bytes();
    if (at + bytes > used) throw bad(at, "the record runs past the bytes written");
    records.push_back(read_record(buffer, start + at));
    at += bytes;
  }
  if (sorted)
    std::stable_sort(records.begin(), records.end(), [](const Record& a, const Record& b) {
      return std::tie(a.group[2], a.group[1], a.group[0], a.item[2], a.item[1], a.item[0]) <
             std::tie(b.group[2], b.group[1], b.group[0], b.item[2], b.item[1], b.item[0]);
    });
  for (const Record& r : records) {
    std::string text = fmt::format("[{}] {}", where(r, one_d), format_print(table.sites[r.site], r.words));
    if (text.back() != '\n') text += '\n';
    support::print_output(text);
  }
  out.records = records.size();
  if (out.dropped)
    support::log(LogLevel::warning,
                 "kernel '{}': {} device print record{} did not fit in the {}-byte print buffer and {} dropped "
                 "(ROCJIT_PRINT_BUFFER / Settings::print_buffer_bytes sets its size)",
                 kernel, out.dropped, out.dropped == 1 ? "" : "s", capacity, out.dropped == 1 ? "was" : "were");

  if (failures) {
    if (table.assert_slot_bytes < print_buffer::record_header)
      throw bad(print_buffer::assert_slot, "asserts failed in a kernel that has none");
    const Record r = read_record(buffer, print_buffer::assert_slot);
    if (r.site >= table.sites.size() || !table.sites[r.site].is_assert ||
        table.sites[r.site].record_bytes() > table.assert_slot_bytes)
      throw bad(print_buffer::assert_slot, fmt::format("site {} is not one of the kernel's assert sites", r.site));
    const PrintSite& site = table.sites[r.site];
    const std::string text = format_print(site, r.words);
    DeviceAssertion e(fmt::format("kernel '{}': device assertion failed at {} in {}: {}{}", kernel, site.loc.str(),
                                  where(r, one_d), text,
                                  failures > 1 ? fmt::format(" ({} work-items failed; this is the first recorded)",
                                                             failures)
                                               : std::string()));
    e.kernel = kernel;
    e.file = site.loc.file;
    e.line = site.loc.line;
    e.group = r.group;
    e.item = r.item;
    e.text = text;
    e.failures = failures;
    out.assertion = std::move(e);
  }
  return out;
}

}  // namespace rocjit
