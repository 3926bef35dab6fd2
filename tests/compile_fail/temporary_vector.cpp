// Launches refuse a temporary std::vector at compile time: its memory would be freed when the
// call returns, possibly before an asynchronous launch has used it. Built twice by ctest: with
// ROCJIT_TEMPORARY_VECTOR the build must fail with the static_assert's message; without it (a
// named vector) it must compile.
#include <rocjit/rocjit.hpp>

#include <vector>

using namespace rocjit;
using namespace rocjit::dsl;

void launch_it(const Kernel& k, const Stream& s) {
#ifdef ROCJIT_TEMPORARY_VECTOR
  k.forall(4, s)(std::vector<float>(4, 1.0f));
#else
  std::vector<float> named(4, 1.0f);
  k.forall(4, s)(named);
#endif
}
