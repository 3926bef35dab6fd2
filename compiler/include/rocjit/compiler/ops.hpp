// The op definitions: every rocjit IR operation and every member of its sub-enum, declared once.
//
// ir.hpp builds from these lists the enums (OpKind, BinaryOp, ...), the registry (op_info,
// family_members), the typed attribute struct of each kind (the last column, held in
// Op::attrs), default attributes and regions (Op(OpKind)), and the Visitor/Mutator hooks; ir.cpp
// builds copy, equality and hashing from each attribute struct's field list, and the names,
// spellings, operand counts and member ranges that the parser and the verifier's generic checks
// read. Collective behaviour comes from the `convergent`, `sync` and `result` columns
// (ir::is_sync_point, ir::computes_collectively), not from naming kinds.
//
// Adding a family member (a math function, a wave op) is one line here; every switch over the
// family that must handle it then fails to build (-Werror=switch, and no switch over op kinds
// or members has a default: label — ctest lint-exhaustive-op-dispatch checks).
// Adding an op kind is one line in ROCJIT_OPS (and an attribute struct in ir.hpp if its
// attributes are new). The build then fails, naming the kind, at each place that must decide
// what the op means — 9 switches in 6 files: printer.cpp (text form), parser.cpp (text form),
// verifier.cpp (type rule), uniformity.cpp (divergence; origin description), interpret.cpp
// (scheduling, execution, collectives), targets/lowering.cpp (LLVM IR for both back ends, which
// override its hooks where they differ). What the compiler cannot ask for: the DSL entry point
// (dsl/), tests, and, for new machine instructions, amdsim. A complete new op kind therefore
// touches about 10 files: ops.hpp, ir.hpp (attributes, if new), those 6, a DSL source file and
// its header, and the tests.
#pragma once

// Sub-enum members: X(enumerator, spelling, operands, divergent).
//   operands:  value operands the member takes (after the indices, for atomics)
//   divergent: the result may differ between the work-items of a group whatever the operands
#define ROCJIT_BINARY_OPS(X)                                                                       \
  X(add, "add", 2, false) X(sub, "sub", 2, false) X(mul, "mul", 2, false) X(div, "div", 2, false)  \
  X(rem, "rem", 2, false) X(min, "min", 2, false) X(max, "max", 2, false)                           \
  X(and_, "and", 2, false) X(or_, "or", 2, false) X(xor_, "xor", 2, false)                          \
  X(shl, "shl", 2, false) X(shr, "shr", 2, false)

#define ROCJIT_UNARY_OPS(X) X(neg, "neg", 1, false) X(not_, "not", 1, false) X(abs, "abs", 1, false)

#define ROCJIT_COMPARE_PREDS(X)                                                                    \
  X(eq, "eq", 2, false) X(ne, "ne", 2, false) X(lt, "lt", 2, false) X(le, "le", 2, false)          \
  X(gt, "gt", 2, false) X(ge, "ge", 2, false)

// Math functions, in three domains (ir::math_fn_domain): floating-point functions of one to three
// f32/f64 operands, named and defined as in C's <math.h>; integer functions of one or two integer
// operands of the result's type; and ldexp (a float and an i32 exponent).
#define ROCJIT_FLOAT_MATH_FNS(X)                                                                   \
  X(sqrt, "sqrt", 1, false) X(rsqrt, "rsqrt", 1, false) X(exp, "exp", 1, false)                     \
  X(exp2, "exp2", 1, false) X(log, "log", 1, false) X(log2, "log2", 1, false)                      \
  X(sin, "sin", 1, false) X(cos, "cos", 1, false) X(tan, "tan", 1, false) X(pow, "pow", 2, false)  \
  X(fma, "fma", 3, false) X(fabs, "fabs", 1, false) X(floor, "floor", 1, false)                    \
  X(ceil, "ceil", 1, false) X(fmin, "fmin", 2, false) X(fmax, "fmax", 2, false)                    \
  X(asin, "asin", 1, false) X(acos, "acos", 1, false) X(atan, "atan", 1, false)                    \
  X(atan2, "atan2", 2, false) X(sinh, "sinh", 1, false) X(cosh, "cosh", 1, false)                  \
  X(tanh, "tanh", 1, false) X(asinh, "asinh", 1, false) X(acosh, "acosh", 1, false)                \
  X(atanh, "atanh", 1, false) X(exp10, "exp10", 1, false) X(expm1, "expm1", 1, false)              \
  X(log10, "log10", 1, false) X(log1p, "log1p", 1, false) X(cbrt, "cbrt", 1, false)                \
  X(hypot, "hypot", 2, false) X(erf, "erf", 1, false) X(erfc, "erfc", 1, false)                    \
  X(tgamma, "tgamma", 1, false) X(lgamma, "lgamma", 1, false) X(fmod, "fmod", 2, false)            \
  X(remainder, "remainder", 2, false) X(trunc, "trunc", 1, false) X(round, "round", 1, false)      \
  X(rint, "rint", 1, false) X(copysign, "copysign", 2, false) X(nextafter, "nextafter", 2, false)
#define ROCJIT_INTEGER_MATH_FNS(X)                                                                 \
  X(popcount, "popcount", 1, false) X(clz, "clz", 1, false) X(ctz, "ctz", 1, false)                \
  X(bitreverse, "bitreverse", 1, false) X(rotl, "rotl", 2, false) X(rotr, "rotr", 2, false)        \
  X(mul_hi, "mul_hi", 2, false)
#define ROCJIT_LDEXP_MATH_FNS(X) X(ldexp, "ldexp", 2, false)
#define ROCJIT_MATH_FNS(X) ROCJIT_FLOAT_MATH_FNS(X) ROCJIT_INTEGER_MATH_FNS(X) ROCJIT_LDEXP_MATH_FNS(X)

#define ROCJIT_WORKITEMS(X)                                                                        \
  X(local_id, "local_id", 0, true) X(group_id, "group_id", 0, false)                               \
  X(local_size, "local_size", 0, false) X(num_groups, "num_groups", 0, false)                      \
  X(global_id, "global_id", 0, true) X(global_size, "global_size", 0, false)                       \
  X(lane_id, "lane_id", 0, true) X(wave_size, "wave_size", 0, false)

#define ROCJIT_ATOMIC_OPS(X)                                                                       \
  X(add, "add", 1, false) X(sub, "sub", 1, false) X(min, "min", 1, false) X(max, "max", 1, false)  \
  X(and_, "and", 1, false) X(or_, "or", 1, false) X(xor_, "xor", 1, false)                          \
  X(exchange, "exchange", 1, false) X(compare_exchange, "compare_exchange", 2, false)                \
  X(load, "load", 0, false) X(store, "store", 1, false)

// Wave operations (the op `wave`, spelled wave.<member>): every lane of the wavefront takes part.
// Their results may differ between the waves of a group, so all count as divergent there; the
// flag says whether they may also differ between the lanes of one wave (shuffles, scans) or give
// the whole wave one value (broadcasts of a wave-uniform lane, votes, reductions).
#define ROCJIT_WAVE_OPS(X)                                                                         \
  X(shuffle, "shuffle", 2, true) X(shuffle_xor, "shuffle_xor", 2, true)                            \
  X(shuffle_up, "shuffle_up", 2, true) X(shuffle_down, "shuffle_down", 2, true)                    \
  X(broadcast, "broadcast", 2, false) X(read_first, "read_first", 1, false)                        \
  X(ballot, "ballot", 1, false) X(any, "any", 1, false) X(all, "all", 1, false)                    \
  X(count, "count", 1, false) X(reduce_add, "reduce_add", 1, false)                                \
  X(reduce_min, "reduce_min", 1, false) X(reduce_max, "reduce_max", 1, false)                      \
  X(reduce_and, "reduce_and", 1, false) X(reduce_or, "reduce_or", 1, false)                        \
  X(reduce_xor, "reduce_xor", 1, false) X(inclusive_scan_add, "inclusive_scan_add", 1, true)       \
  X(exclusive_scan_add, "exclusive_scan_add", 1, true)

// Memory orders and scopes of atomics and fences: X(enumerator, spelling).
#define ROCJIT_MEMORY_ORDERS(X)                                                                    \
  X(relaxed, "relaxed") X(acquire, "acquire") X(release, "release") X(acq_rel, "acq_rel")          \
  X(seq_cst, "seq_cst")
#define ROCJIT_MEMORY_SCOPES(X)                                                                    \
  X(wavefront, "wavefront") X(workgroup, "workgroup") X(device, "device") X(system, "system")

// Op kinds: X(enumerator, spelling, family, operands, reference, result, effect, convergent,
//             sync, regions, attributes).
//   spelling:   the op's name in .rjir; a family's members are spelled <prefix><member>
//   family:     the sub-enum held in Op::sub (OpFamily)
//   operands:   value operands besides indices; by_member: the family member's count; by_lanes:
//               the result type's lane count; variadic: any number (print, assert)
//   reference:  what Op::ref names (OpReference); `indexed` ops take one index per array dimension
//               before their value operands
//   result:     OpResult
//   effect:     OpEffect
//   convergent: every work-item of the sync scope must reach it together (uniform control flow)
//   sync:       SyncScope of a synchronisation point (barrier fission splits the host body there)
//   regions:    nested regions the op owns (while: condition, body and step, the step run after the
//               body and after a continue, as a C for loop's increment; it may be empty)
//   attributes: the struct of typed attributes the op carries in Op::attrs (ir.hpp: ConstantAttrs,
//               AtomicAttrs, ...; NoAttrs for none). An attribute exists only on the ops whose
//               struct names it; copy, equality and hashing come from the struct's fields.
// fence orders memory (Op::order, Op::scope) without waiting for anyone; uniform is the user's
// promise that its operand is the same for every work-item of the group (its result counts as
// uniform; every back end checks the promise under ROCJIT_BOUNDS_CHECK).
// Atomics carry an order and a scope too (default relaxed, device); atomic.load and atomic.store
// are the plain accesses with those guarantees.
// print and assert (device output, dsl::print / dsl::device_assert) format their operands with
// PrintAttrs::format, fmt-style; assert's first operand is the i1 condition, the rest the
// message's values. The records go to the kernel's print buffer, an explicit argument every
// target passes (AbiArgument::Kind::print_buffer; layout in rocjit/compiler/device_print.hpp).
// Vectors (types with 2 to 4 lanes, Type::lanes): `vector` builds one from its lanes, `extract`
// reads lane Op::dim, and load/store move one whole vector: on a one-dimensional array of the
// lanes' type, index i names elements N*i ... N*i+N-1, read or written as one access. No other op
// takes or makes a vector, but print and assert, which print them (the DSL's Vec<T, N> computes
// lane by lane; LLVM packs the lanes again).
// mma (dsl::mma) is a matrix multiply-accumulate over the wave: operands C, A, B, each the wave's
// fragment of its tile (rocjit/compiler/mma.hpp: layout, shapes, numerics), result the new C.
// Fragments are vectors of up to 16 lanes (scalars when a lane holds one element); they are
// built with `vector` and read with `extract`.
// clang-format off
#define ROCJIT_OPS(X)                                                                                              \
  X(constant,    "const",       none,     0,         none,    value,     none,          false, none,      0, ConstantAttrs)  \
  X(binary,      "binary",      binary,   by_member, none,    value,     none,          false, none,      0, BinaryAttrs)    \
  X(unary,       "unary",       unary,    by_member, none,    value,     none,          false, none,      0, UnaryAttrs)     \
  X(compare,     "cmp",         compare,  by_member, none,    value,     none,          false, none,      0, CompareAttrs)   \
  X(select,      "select",      none,     3,         none,    value,     none,          false, none,      0, NoAttrs)        \
  X(cast,        "cast",        none,     1,         none,    value,     none,          false, none,      0, NoAttrs)        \
  X(bitcast,     "bitcast",     none,     1,         none,    value,     none,          false, none,      0, NoAttrs)        \
  X(math,        "math",        math,     by_member, none,    value,     none,          false, none,      0, MathAttrs)      \
  X(workitem,    "workitem",    workitem, by_member, none,    value,     none,          false, none,      0, WorkItemAttrs)  \
  X(shape,       "shape",       none,     0,         memory,  value,     none,          false, none,      0, ShapeAttrs)     \
  X(load,        "load",        none,     0,         indexed, value,     reads_memory,  false, none,      0, AccessAttrs)    \
  X(store,       "store",       none,     1,         indexed, none,      writes_memory, false, none,      0, AccessAttrs)    \
  X(atomic,      "atomic",      atomic,   by_member, indexed, optional,  writes_memory, false, none,      0, AtomicAttrs)    \
  X(var_load,    "var.load",    none,     0,         slot,    value,     none,          false, none,      0, SlotAttrs)      \
  X(var_store,   "var.store",   none,     1,         slot,    none,      writes_memory, false, none,      0, SlotAttrs)      \
  X(barrier,     "barrier",     fence,    0,         none,    none,      synchronizes,  true,  workgroup, 0, BarrierAttrs)   \
  X(wavebarrier, "wavebarrier", none,     0,         none,    none,      synchronizes,  true,  wavefront, 0, NoAttrs)        \
  X(fence,       "fence",       none,     0,         none,    none,      synchronizes,  false, none,      0, FenceAttrs)     \
  X(uniform,     "uniform",     none,     1,         none,    value,     none,          false, none,      0, NoAttrs)        \
  X(make_vector, "vector",      none,     by_lanes,  none,    value,     none,          false, none,      0, NoAttrs)        \
  X(extract,     "extract",     none,     1,         none,    value,     none,          false, none,      0, ExtractAttrs)   \
  X(print,       "print",       none,     variadic,  none,    none,      writes_memory, false, none,      0, PrintAttrs)     \
  X(assert_,     "assert",      none,     variadic,  none,    none,      writes_memory, false, none,      0, PrintAttrs)     \
  X(wave,        "wave",        wave,     by_member, none,    value,     synchronizes,  true,  wavefront, 0, WaveAttrs)      \
  X(mma,         "mma",         none,     3,         none,    value,     synchronizes,  true,  wavefront, 0, MmaAttrs)       \
  X(if_,         "if",          none,     1,         none,    none,      control_flow,  false, none,      2, NoAttrs)        \
  X(for_,        "for",         none,     3,         none,    induction, control_flow,  false, none,      1, LoopAttrs)      \
  X(while_,      "while",       none,     0,         none,    none,      control_flow,  false, none,      3, LoopAttrs)      \
  X(condition,   "condition",   none,     1,         none,    none,      none,          false, none,      0, NoAttrs)        \
  X(break_,      "break",       none,     0,         none,    none,      control_flow,  false, none,      0, NoAttrs)        \
  X(continue_,   "continue",    none,     0,         none,    none,      control_flow,  false, none,      0, NoAttrs)        \
  X(return_,     "return",      none,     0,         none,    none,      control_flow,  false, none,      0, NoAttrs)
// clang-format on
