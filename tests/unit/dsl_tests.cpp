// Tracing lambdas into IR: the printed form of small kernels.
#include <catch2/catch.hpp>

#include "sample_kernels.hpp"

using namespace rocjit;
using namespace rocjit::dsl;

TEST_CASE("saxpy traces into a load, fma-like arithmetic and a guarded store") {
  Kernel k = samples::saxpy();
  std::string text = k.print(false);
  INFO(text);
  CHECK(text.find("kernel @saxpy(%1 a: f32, @x: array<f32, 1, C>, @y: array<f32, 1, C>)") != std::string::npos);
  CHECK(text.find("global_id 0 : i32") != std::string::npos);
  CHECK(text.find("store @y[") != std::string::npos);
}
