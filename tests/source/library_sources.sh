#!/usr/bin/env bash
# One configuration and one log sink (issue 34): in the library's sources (compiler/, dsl/,
# runtime/, include/), environment variables are read only by compiler/support/settings.cpp,
# messages reach stderr only through compiler/support/log.cpp, mallopt is called only by
# compiler/targets/codegen.cpp (when Settings::tune_malloc asks), and the environment is changed
# only to tell libamdsim-hip its processors (runtime/hip/hip_device.cpp). Comment lines are skipped.
# usage: library_sources.sh <source dir>
set -uo pipefail
cd "$1" || exit 2
status=0
check() {  # check <what> <extended regex> <the files allowed to match>...
  local what=$1 pattern=$2
  shift 2
  local hits
  hits=$(grep -rnE --include='*.cpp' --include='*.h' --include='*.hpp' "$pattern" compiler dsl runtime include |
         grep -vE '^[^:]+:[0-9]+:[[:space:]]*(//|/?\*)')
  for allowed in "$@"; do hits=$(grep -v "^$allowed:" <<<"$hits"); done
  if [[ -n $hits ]]; then
    echo "$what outside $*:"
    echo "$hits"
    status=1
  fi
}
check "environment variables read" '\b(secure_)?getenv\b|\benviron\b' compiler/support/settings.cpp
check "messages written to the terminal" '\bstderr\b|\bstdout\b|std::cerr|std::clog|std::cout|\bperror\b' \
  compiler/support/log.cpp
check "malloc tuned" '\bmallopt\b' compiler/targets/codegen.cpp
check "environment changed" '\b(setenv|putenv|unsetenv|clearenv)\b' runtime/hip/hip_device.cpp
exit $status
