# lit configuration for rocjit's compiler tests: each .rjir/.test file runs rocjit-dump (or a sample
# with ROCJIT_DUMP set) and checks its output (or its error message) with FileCheck.
#
# ctest passes the directories as parameters (tests/CMakeLists.txt); run by hand with
#   lit -sv --param rocjit_bin_dir=build/bin tests/lit
import os

import lit.formats

config.name = "rocjit"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".rjir", ".test"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))

params = lit_config.params
repo = os.path.dirname(os.path.dirname(config.test_source_root))
bin_dir = os.path.abspath(params.get("rocjit_bin_dir", os.path.join(repo, "build", "bin")))
llvm_bin_dir = params.get("llvm_bin_dir", "/usr/lib/llvm-22/bin")
# Output/ goes to the build tree, never next to the sources.
config.test_exec_root = params.get("exec_root", os.path.join(os.path.dirname(bin_dir), "tests", "lit"))

dump = os.path.join(bin_dir, "rocjit-dump")
if not os.path.isfile(dump):
    lit_config.fatal(f"rocjit-dump not found at {dump}; build it or pass --param rocjit_bin_dir=DIR")
for tool in ("FileCheck", "not", "llvm-readelf", "llvm-objdump", "llc"):
    if not os.path.isfile(os.path.join(llvm_bin_dir, tool)):
        lit_config.fatal(f"{tool} not found in {llvm_bin_dir}; pass --param llvm_bin_dir=DIR")

for sample in ("sample-saxpy", "sample-matmul"):  # dump-hooks.test runs programs that embed rocjit
    if not os.path.isfile(os.path.join(bin_dir, sample)):
        lit_config.fatal(f"{sample} not found in {bin_dir}; build the samples")
# Never read or fill the user's kernel cache from the tests.
config.environment["ROCJIT_CACHE"] = "0"
config.environment["PATH"] = os.pathsep.join([bin_dir, llvm_bin_dir, os.environ.get("PATH", "")])
config.substitutions.append(("%rocjit-dump", dump))
# rocjit-opt (tests/lit/passes/) is found on PATH, like FileCheck.
if not os.path.isfile(os.path.join(bin_dir, "rocjit-opt")):
    lit_config.fatal(f"rocjit-opt not found in {bin_dir}; build it")

# The checks read LLVM IR and assembly without debug-info noise (!dbg, .loc): line tables are off
# except in line-tables.rjir, which turns them on.
config.environment["ROCJIT_LINE_TABLES"] = "0"
