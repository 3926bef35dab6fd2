// A haloed-tile stencil, run by the end-to-end tests on every device and by the unit tests against
// the reference interpreter: an 8x8 work-group stages a 10x10 tile cell by cell through
// tile(c / 10, c % 10) (the index pair every back end addresses as element c), cells outside the
// array holding `outside`, then writes the 5-point Laplacian 4 * centre - the four neighbours.
#pragma once

#include <rocjit/rocjit.hpp>

#include <string>
#include <vector>

namespace rocjit::testing {

inline Kernel staged_halo_kernel(const std::string& name, float outside) {
  using namespace rocjit::dsl;
  return kernel(name, [outside](Array<float, 2> in, Array<float, 2> out) {
    auto tile = shared::array<float>({10, 10}, "tile");
    Int tx = local_id(0), ty = local_id(1);
    Int x = group_id(0) * 8 + tx, y = group_id(1) * 8 + ty;
    Int rows = in.shape(0), cols = in.shape(1);
    for (int r = 0; r < 2; ++r) {  // 100 cells, 64 work-items: up to two each
      Int c = ty * 8 + tx + r * 64;
      If(c < 100, [&] {
        Int ly = c / 10, lx = c % 10;
        Int gy = group_id(1) * 8 + ly - 1, gx = group_id(0) * 8 + lx - 1;
        tile(ly, lx) = outside;
        If(gy >= 0 && gy < rows && gx >= 0 && gx < cols, [&] { tile(ly, lx) = in(gy, gx); });
      });
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    If(y < rows && x < cols, [&] {
      out(y, x) = tile(ty + 1, tx + 1) * 4.0f - tile(ty, tx + 1) - tile(ty + 2, tx + 1) - tile(ty + 1, tx) -
                  tile(ty + 1, tx + 2);
    });
  }, {.max_block_size = 64});
}

// What staged_halo_kernel writes at (i, j) of a rows x cols array `in` (small integers: exact).
inline float staged_halo_reference(const std::vector<float>& in, int rows, int cols, int i, int j, float outside) {
  auto at = [&](int r, int c) { return r < 0 || c < 0 || r >= rows || c >= cols ? outside : in[r * cols + c]; };
  return at(i, j) * 4.0f - at(i - 1, j) - at(i + 1, j) - at(i, j - 1) - at(i, j + 1);
}

}  // namespace rocjit::testing
