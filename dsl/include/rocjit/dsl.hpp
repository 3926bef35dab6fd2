// The kernel-side DSL: everything a kernel lambda uses. `using namespace rocjit::dsl;`
#pragma once

#include "rocjit/compiler/error.hpp"
#include "rocjit/dsl/array.hpp"
#include "rocjit/dsl/builtins.hpp"
#include "rocjit/dsl/control.hpp"
#include "rocjit/dsl/debug.hpp"
#include "rocjit/dsl/mma.hpp"
#include "rocjit/dsl/kernel.hpp"
#include "rocjit/dsl/value.hpp"
#include "rocjit/dsl/vector.hpp"
