// SALU: carries, shifts, bit-field extracts, selects, saveexec, compares and branches, with the
// values the ISA manuals' pseudo-code gives.
#include "sim.hpp"

using namespace amdsim_test;

SIM_TEST(salu_add_sub_carry) {
  sim.s(0) = 0xffffffffu, sim.s(1) = 2;
  sim.run("s_add_u32 s2, s0, s1");
  CHECK(sim.s(2) == 1u);
  CHECK(sim.w.scc_bit);  // carry out
  sim.s(10) = 5, sim.s(11) = 7;
  sim.run("s_addc_u32 s3, s10, s11");  // SCC = 1 from before: 5 + 7 + 1
  CHECK(sim.s(3) == 13u);
  CHECK(!sim.w.scc_bit);
  // 64-bit add as LLVM emits it: lo with carry, hi with carry in.
  sim.w.set_s64(4, 0x00000001ffffffffull), sim.w.set_s64(6, 0x0000000200000001ull);
  sim.run("s_add_u32 s8, s4, s6\ns_addc_u32 s9, s5, s7");
  CHECK(sim.w.s64(8) == 0x0000000400000000ull);
  CHECK(!sim.w.scc_bit);
  sim.s(0) = 1, sim.s(1) = 2;
  sim.run("s_sub_u32 s2, s0, s1");
  CHECK(sim.s(2) == 0xffffffffu);
  CHECK(sim.w.scc_bit);  // borrow
  sim.run("s_subb_u32 s3, s1, s0");  // 2 - 1 - 1
  CHECK(sim.s(3) == 0u);
  CHECK(!sim.w.scc_bit);
  sim.s(0) = 0x7fffffffu, sim.s(1) = 1;
  sim.run("s_add_i32 s2, s0, s1");
  CHECK(sim.s(2) == 0x80000000u);
  CHECK(sim.w.scc_bit);  // signed overflow
  sim.run("s_add_i32 s2, s1, s1");
  CHECK(!sim.w.scc_bit);
  sim.s(0) = 0xfffffff0u;
  sim.run("s_mul_i32 s2, s0, -3");
  CHECK(sim.s(2) == 48u);
}

SIM_TEST(salu_shifts_and_bitfields) {
  sim.s(0) = 0x80000001u, sim.s(1) = 33;  // shift amounts use the low 5 bits
  sim.run("s_lshl_b32 s2, s0, s1");
  CHECK(sim.s(2) == 2u);
  CHECK(sim.w.scc_bit);
  sim.run("s_lshr_b32 s3, s0, 4\ns_ashr_i32 s4, s0, 4");
  CHECK(sim.s(3) == 0x08000000u);
  CHECK(sim.s(4) == 0xf8000000u);
  sim.s(0) = 0x80000000u;
  sim.run("s_lshl_b32 s2, s0, 1");
  CHECK(sim.s(2) == 0u);
  CHECK(!sim.w.scc_bit);
  sim.w.set_s64(6, 0x8000000000000010ull);
  sim.run("s_lshr_b64 s[8:9], s[6:7], 4\ns_ashr_i64 s[10:11], s[6:7], 68\ns_lshl_b64 s[12:13], s[6:7], 1");
  CHECK(sim.w.s64(8) == 0x0800000000000001ull);
  CHECK(sim.w.s64(10) == 0xf800000000000001ull);
  CHECK(sim.w.s64(12) == 0x20ull);
  // s_bfe: offset in bits [4:0], width in [22:16].
  sim.s(0) = 0x12345678u, sim.s(1) = (8u << 16) | 4;
  sim.run("s_bfe_u32 s2, s0, s1");
  CHECK(sim.s(2) == 0x67u);
  sim.s(0) = 0x000000f0u, sim.s(1) = (4u << 16) | 4;
  sim.run("s_bfe_i32 s2, s0, s1");
  CHECK(sim.s(2) == 0xffffffffu);
  sim.s(1) = (5u << 16) | 4;  // 5-bit field 01111: positive
  sim.run("s_bfe_i32 s2, s0, s1");
  CHECK(sim.s(2) == 0xfu);
  sim.s(1) = 4;  // width 0
  sim.run("s_bfe_u32 s2, s0, s1");
  CHECK(sim.s(2) == 0u);
  CHECK(!sim.w.scc_bit);
  sim.w.set_s64(4, 0xabcd000000000000ull), sim.s(1) = (16u << 16) | 48;
  sim.run("s_bfe_u64 s[6:7], s[4:5], s1\ns_bfe_i64 s[8:9], s[4:5], s1");
  CHECK(sim.w.s64(6) == 0xabcdull);
  CHECK(sim.w.s64(8) == 0xffffffffffffabcdull);
  sim.s(0) = 0x00f0f000u;
  sim.run("s_ff1_i32_b32 s2, s0\ns_flbit_i32_b32 s3, s0\ns_bcnt1_i32_b32 s4, s0");
  CHECK(sim.s(2) == 12u);
  CHECK(sim.s(3) == 8u);
  CHECK(sim.s(4) == 8u);
  sim.s(0) = 0;
  sim.run("s_ff1_i32_b32 s2, s0\ns_flbit_i32_b32 s3, s0");
  CHECK(sim.s(2) == 0xffffffffu);
  CHECK(sim.s(3) == 0xffffffffu);
}

SIM_TEST(salu_select_and_compare) {
  sim.s(0) = 0xffffffffu, sim.s(1) = 1;  // -1 (signed) vs 1
  sim.run("s_cmp_lt_i32 s0, s1");
  CHECK(sim.w.scc_bit);
  sim.run("s_cmp_lt_u32 s0, s1");
  CHECK(!sim.w.scc_bit);
  sim.run("s_cmp_gt_u32 s0, s1\ns_cselect_b32 s2, 10, 20");
  CHECK(sim.w.scc_bit);
  CHECK(sim.s(2) == 10u);
  sim.run("s_cmp_eq_u32 s0, s1\ns_cselect_b32 s2, 10, 20");
  CHECK(sim.s(2) == 20u);
  sim.run("s_cmp_lg_u32 s0, s1");
  CHECK(sim.w.scc_bit);
  sim.w.set_s64(4, 0x100000000ull), sim.w.set_s64(6, 0);
  sim.run("s_cmp_lg_u64 s[4:5], s[6:7]\ns_cselect_b64 s[8:9], s[4:5], s[6:7]");
  CHECK(sim.w.scc_bit);
  CHECK(sim.w.s64(8) == 0x100000000ull);
  sim.s(0) = 5;
  sim.run("s_cmpk_lt_i32 s0, -2");
  CHECK(!sim.w.scc_bit);
  sim.run("s_cmpk_gt_u32 s0, 0xfffe");  // the constant is zero-extended
  CHECK(!sim.w.scc_bit);
  // s_cmpk_ge/le: the signed forms sign-extend the 16-bit constant, the unsigned ones zero-extend it.
  sim.run("s_cmpk_ge_i32 s0, -2");
  CHECK(sim.w.scc_bit);
  sim.run("s_cmpk_le_i32 s0, 5");
  CHECK(sim.w.scc_bit);
  sim.run("s_cmpk_le_i32 s0, 4");
  CHECK(!sim.w.scc_bit);
  sim.run("s_cmpk_ge_u32 s0, 0xff");
  CHECK(!sim.w.scc_bit);
  sim.run("s_cmpk_ge_u32 s0, 5");
  CHECK(sim.w.scc_bit);
  sim.s(0) = 0xffffff00u;
  sim.run("s_cmpk_le_u32 s0, 0xffff");  // 0xffff, not -1: 0xffffff00 is larger
  CHECK(!sim.w.scc_bit);
  sim.run("s_cmpk_ge_i32 s0, -256");
  CHECK(sim.w.scc_bit);
  sim.run("s_cmpk_ge_i32 s0, -255");
  CHECK(!sim.w.scc_bit);
  sim.s(0) = 5;
  sim.run("s_bitcmp1_b32 s0, 2");
  CHECK(sim.w.scc_bit);
}

SIM_TEST(salu_saveexec) {
  uint64_t exec = sim.wave32() ? 0xf0f0f0f0ull : 0xff00ff00f0f0f0f0ull;
  uint64_t cond = sim.wave32() ? 0x0000ffffull : 0x00000000ffffffffull;
  sim.w.set_exec(exec);
  if (sim.wave32()) sim.s(6) = uint32_t(cond);
  else sim.w.set_s64(6, cond);
  sim.run("s_and_saveexec_" + sim.b() + " " + sim.mask(4) + ", " + sim.mask(6));
  CHECK(sim.s64(4) == exec);  // the old EXEC
  CHECK(sim.w.exec() == (exec & cond));
  CHECK(sim.w.scc_bit);
  // The destination may be the source: sources are read before anything is written.
  sim.w.set_exec(exec);
  sim.run("s_or_saveexec_" + sim.b() + " " + sim.mask(6) + ", " + sim.mask(6));
  CHECK(sim.s64(6) == exec);
  CHECK(sim.w.exec() == (exec | cond));
  // Restoring EXEC and an empty mask.
  sim.w.set_exec(0);
  sim.run("s_and_saveexec_" + sim.b() + " " + sim.mask(8) + ", " + sim.mask(6));
  CHECK(sim.w.exec() == 0);
  CHECK(!sim.w.scc_bit);
  sim.run("s_or_" + sim.b() + " " + sim.exec_name() + ", " + sim.exec_name() + ", " + sim.mask(4));
  CHECK(sim.w.exec() == exec);
}

SIM_TEST(salu_branches) {
  // A loop: s0 counts down from 5, s1 accumulates; s_cbranch_scc1 jumps back.
  sim.s(0) = 5, sim.s(1) = 0;
  sim.run(R"(
  loop:
    s_add_u32 s1, s1, s0
    s_sub_u32 s0, s0, 1
    s_cmp_lg_u32 s0, 0
    s_cbranch_scc1 loop
    s_mov_b32 s2, 77
  )");
  CHECK(sim.s(1) == 15u);
  CHECK(sim.s(0) == 0u);
  CHECK(sim.s(2) == 77u);
  // Forward branches skip code; execz / vccz / s_branch.
  sim.s(2) = 0;
  sim.w.set_exec(0);
  sim.run(R"(
    s_cbranch_execz skip
    s_mov_b32 s2, 1
  skip:
    s_mov_b32 s3, 2
    s_branch over
    s_mov_b32 s3, 3
  over:
  )");
  CHECK(sim.s(2) == 0u);
  CHECK(sim.s(3) == 2u);
  sim.w.set_exec(sim.all());
  sim.s(106) = 0, sim.s(107) = sim.wave32() ? 1 : 0;  // vcc_hi is not part of wave32's VCC
  sim.run(R"(
    s_mov_b32 s4, 0
    s_cbranch_vccnz taken
    s_mov_b32 s4, 9
  taken:
    s_endpgm
    s_mov_b32 s4, 10
  )");
  CHECK(sim.s(4) == 9u);
  CHECK(sim.w.status == amdsim::Wave::Status::ended);
}
