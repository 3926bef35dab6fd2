#!/usr/bin/env python3
"""The workaround table (include/rocjit/workarounds.def) is the only place workarounds for LLVM bugs
exist: every entry must be consulted somewhere in compiler/ (Workaround::<name>, through
workaround_enabled), its reproducer files must exist under tests/smith/known-external/, and its
regression checks must exist in tools/rocjit-smith/regressions.cpp.
usage: workaround_table.py <source dir>"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
table = (root / "include/rocjit/workarounds.def").read_text()
chunks = re.split(r'^(?=ROCJIT_WORKAROUND\()', table, flags=re.M)[1:]
if not chunks:
    sys.exit("no entries found in include/rocjit/workarounds.def")
sources = "\n".join(p.read_text() for p in (root / "compiler").rglob("*") if p.suffix in (".cpp", ".h"))
regressions = (root / "tools/rocjit-smith/regressions.cpp").read_text()
problems = []
for chunk in chunks:
    name = re.match(r'ROCJIT_WORKAROUND\(([a-z0-9_]+),', chunk).group(1)
    strings = re.findall(r'"([^"]*)"', chunk)
    if len(strings) != 5:
        problems.append(f"{name}: expected 5 strings (component, reproducer, regression, shows_on, what), found {len(strings)}")
        continue
    _, reproducer, regression, _, _ = strings
    if not re.search(rf"Workaround::{name}\b", sources):
        problems.append(f"{name}: no site in compiler/ asks for Workaround::{name}")
    for f in filter(None, (x.strip() for x in reproducer.split(","))):
        if not (root / "tests/smith/known-external" / f).is_file():
            problems.append(f"{name}: reproducer tests/smith/known-external/{f} is missing")
    for check in filter(None, (x.strip() for x in regression.split(","))):
        if f'check("{check}"' not in regressions:
            problems.append(f"{name}: regression check '{check}' is not in tools/rocjit-smith/regressions.cpp")
print("\n".join(problems) if problems else f"{len(chunks)} workarounds, each with a site, reproducers and checks")
sys.exit(1 if problems else 0)
