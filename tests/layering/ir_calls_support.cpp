// The control of ir_calls_passes.cpp (layering test): the IR layer calling the support layer
// below it links.
#include "rocjit/compiler/ir.hpp"
#include "rocjit/compiler/printer.hpp"
#include "rocjit/support/log.h"
#include "rocjit/support/settings.h"

namespace rocjit::layering_test {
void log_from_ir(const ir::Kernel& kernel) {
  if (support::current_settings()->log_passes != PassLog::off) support::log(LogLevel::info, "{}", ir::print(kernel));
}
}  // namespace rocjit::layering_test
