// The print buffer's decoder (compiler/ir/device_print.cpp) on buffers built by hand: records,
// the mark a record that did not fit leaves (also in the last 4 bytes), the assert slot, and
// malformed buffers, which are LaunchErrors, never reads outside the buffer.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include <rocjit/rocjit.hpp>

#include "rocjit/compiler/device_print.hpp"

using namespace rocjit;
using Catch::Matchers::Contains;

namespace {

PrintTable table_with_print_and_assert() {
  PrintTable t;
  PrintSite print;
  print.format = "v={} w={:.1f}";
  print.args = {ir::Type::i32, ir::Type::f32};
  print.words = 2;
  print.loc = {"app.cpp", 7, 1};
  PrintSite assertion;
  assertion.is_assert = true;
  assertion.format = "bad {}";
  assertion.args = {ir::Type::u64};
  assertion.words = 1;
  assertion.loc = {"app.cpp", 9, 1};
  t.sites = {print, assertion};
  t.assert_slot_bytes = assertion.record_bytes();
  return t;
}

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) { std::memcpy(b.data() + at, &v, 4); }
void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) { std::memcpy(b.data() + at, &v, 8); }

// A record of site 0 (i32, f32) for work-item `item` of group `group` at record-area offset `at`.
void put_print(std::vector<uint8_t>& b, const PrintTable& t, uint32_t at, uint32_t group, uint32_t item, int32_t v,
               float w) {
  const size_t p = t.records_offset() + at;
  put_u32(b, p, 0);
  put_u32(b, p + 4, group);
  put_u32(b, p + 16, item);
  put_u64(b, p + 32, static_cast<uint32_t>(v));
  uint32_t bits;
  std::memcpy(&bits, &w, 4);
  put_u64(b, p + 40, bits);
}

struct Output {
  std::vector<std::string> lines;
  Output() {
    set_print_handler([this](std::string_view s) { lines.emplace_back(s); });
  }
  ~Output() { set_print_handler(nullptr); }
};

}  // namespace

TEST_CASE("deliver_prints decodes records, stops at the mark of one that did not fit, and raises the assert") {
  const PrintTable t = table_with_print_and_assert();
  const uint32_t record = t.sites[0].record_bytes();  // 48
  const uint32_t capacity = 2 * record + 8;           // a third record claimed at 96 leaves a mark
  std::vector<uint8_t> b = print_buffer_header(t, capacity);
  b.resize(t.records_offset() + capacity);
  put_print(b, t, 0, 1, 5, -3, 2.5f);
  put_print(b, t, record, 0, 2, 4, 0.25f);
  put_u32(b, t.records_offset() + 2 * record, UINT32_MAX);  // in the last 8 bytes
  put_u32(b, print_buffer::used, 3 * record);
  put_u32(b, print_buffer::dropped, 1);
  put_u32(b, print_buffer::failures, 2);
  put_u32(b, print_buffer::assert_slot, 1);
  put_u32(b, print_buffer::assert_slot + 4, 3);
  put_u32(b, print_buffer::assert_slot + 16, 9);
  put_u64(b, print_buffer::assert_slot + 32, 42);
  Output out;
  PrintDelivery d = deliver_prints(t, b, "k", Dim3(4), Dim3(64), /*sorted=*/true);
  CHECK(out.lines == std::vector<std::string>{"[group 0 item 2] v=4 w=0.2\n", "[group 1 item 5] v=-3 w=2.5\n"});
  CHECK(d.records == 2);
  CHECK(d.dropped == 1);
  REQUIRE(d.assertion);
  CHECK(d.assertion->line == 9);
  CHECK(d.assertion->text == "bad 42");
  CHECK(d.assertion->failures == 2);
  CHECK_THAT(d.assertion->what(), Contains("kernel 'k': device assertion failed at app.cpp:9 in group 3 item 9: bad 42 "
                                           "(2 work-items failed"));
}

TEST_CASE("deliver_prints refuses malformed buffers without reading outside them") {
  const PrintTable t = table_with_print_and_assert();
  std::vector<uint8_t> b = print_buffer_header(t, 64);
  b.resize(t.records_offset() + 64);
  put_u32(b, print_buffer::used, 64);
  put_u32(b, t.records_offset(), 7);  // no such site
  CHECK_THROWS_WITH(deliver_prints(t, b, "k", Dim3(1), Dim3(1), false), Contains("site 7 is not one of"));
  put_u32(b, t.records_offset(), 1);  // an assert site in the record area
  CHECK_THROWS_AS(deliver_prints(t, b, "k", Dim3(1), Dim3(1), false), LaunchError);
  put_u32(b, t.records_offset(), 0);
  put_u32(b, print_buffer::used, 60);  // the 48-byte record fits; a second would run past `used`
  put_u32(b, t.records_offset() + 48, 0);
  CHECK_THROWS_WITH(deliver_prints(t, b, "k", Dim3(1), Dim3(1), false), Contains("runs past the bytes written"));
  std::vector<uint8_t> short_buffer(8);
  CHECK_THROWS_WITH(deliver_prints(t, short_buffer, "k", Dim3(1), Dim3(1), false), Contains("less than its"));
}

TEST_CASE("check_print_format counts fields and checks specs against the value types") {
  const ir::Type f32[] = {ir::Type::f32};
  const ir::Type two[] = {ir::Type::i32, ir::Type::f64};
  CHECK(check_print_format("{} {:.3e}", two).empty());
  CHECK(check_print_format("{1} {0} {0}", two).empty());
  CHECK(check_print_format("{{literal}} {}", f32).empty());
  CHECK_THAT(check_print_format("{:d}", f32), Contains("does not fit its values' types (f32)"));
  CHECK_THAT(check_print_format("{} {}", f32), Contains("2 replacement fields but 1 value"));
  CHECK_THAT(check_print_format("{0} {}", two), Contains("mixes numbered fields"));
  CHECK_THAT(check_print_format("}", f32), Contains("closes no replacement field"));
  CHECK_THAT(check_print_format("{:{}}", two), Contains("nested fields"));
}

TEST_CASE("the print table round-trips through the cache entry format; truncated or bad bytes are refused") {
  PrintTable t = table_with_print_and_assert();
  t.sites[0].args = {ir::Type::i32, ir::Type(ir::Type::Code::float_, 16, 4)};  // a vector value too
  t.sites[0].words = 5;
  std::string bytes = "prefix";
  write_print_table(bytes, t);
  bytes += "rest";
  size_t at = 6;
  PrintTable back;
  REQUIRE(read_print_table(bytes, at, back));
  CHECK(bytes.substr(at) == "rest");
  CHECK(back.assert_slot_bytes == t.assert_slot_bytes);
  REQUIRE(back.sites.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(back.sites[i].is_assert == t.sites[i].is_assert);
    CHECK(back.sites[i].format == t.sites[i].format);
    CHECK(back.sites[i].args == t.sites[i].args);
    CHECK(back.sites[i].words == t.sites[i].words);
    CHECK(back.sites[i].loc == t.sites[i].loc);
  }
  CHECK(back.records_offset() == t.records_offset());
  // Every truncation is refused, never read past.
  const std::string whole = bytes.substr(6, bytes.size() - 6 - 4);
  for (size_t n = 0; n < whole.size(); ++n) {
    size_t from = 0;
    PrintTable cut;
    CHECK_FALSE(read_print_table(std::string_view(whole).substr(0, n), from, cut));
  }
  // A type code beyond the known ones, and an assert larger than the slot the table reserves.
  std::string bad;
  write_print_table(bad, t);
  const size_t code_at = 4 + 4 + 1 + 4 + t.sites[0].format.size() + 4;  // site 0's first type code
  bad[code_at] = char(99);
  size_t from = 0;
  PrintTable refused;
  CHECK_FALSE(read_print_table(bad, from, refused));
  PrintTable small_slot = t;
  small_slot.assert_slot_bytes = 8;
  bad.clear();
  write_print_table(bad, small_slot);
  from = 0;
  CHECK_FALSE(read_print_table(bad, from, refused));
}
