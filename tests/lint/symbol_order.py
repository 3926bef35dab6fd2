#!/usr/bin/env python3
"""librocjit-compiler.so is linked in the order of compiler/targets/symbol_order.txt (lld
--symbol-ordering-file, scripts/symbol-order.sh; docs/performance.md, "Compile latency"): the
functions a fresh process runs lie together, in the file's order, at the start of the text, with
the static initialisers first.

    symbol_order.py ORDER_FILE LIBRARY LLVM_NM

Fails when the link option is lost, or when the file has gone stale (fewer than 90% of its names
are functions of the library: rerun scripts/symbol-order.sh)."""
import subprocess
import sys


def main():
    order_file, library, nm = sys.argv[1:4]
    order = [line.strip() for line in open(order_file) if line.strip()]
    listing = subprocess.run([nm, "--defined-only", library], capture_output=True, text=True, check=True).stdout
    address = {}
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tT":
            address.setdefault(parts[2], int(parts[0], 16))
    present = [address[name] for name in order if name in address]
    problems = []
    if len(present) < 0.9 * len(order):
        problems.append(f"only {len(present)} of the {len(order)} names are functions of the library: "
                        "regenerate the file with scripts/symbol-order.sh")
    if len(present) >= 2:
        rising = sum(1 for a, b in zip(present, present[1:]) if b > a) / (len(present) - 1)
        if rising < 0.95:
            problems.append(f"only {rising:.0%} of consecutive listed functions are placed in the file's order")
        text_start = min(address.values())
        first = min(present)
        # Nothing unlisted before them but the few functions the linker places first (.init, PLT).
        if first - text_start > 64 * 1024:
            problems.append(f"the listed functions start {first - text_start} bytes into the text, not at its start")
        initialisers = [address[name] for name in order if name.startswith("_GLOBAL__sub_I_") and name in address]
        if initialisers and max(initialisers) - min(initialisers) > 2 * 1024 * 1024:
            problems.append(f"the {len(initialisers)} static initialisers span "
                            f"{(max(initialisers) - min(initialisers)) >> 10} KiB, not one stretch")
    for p in problems:
        print(f"symbol_order.py: {p}", file=sys.stderr)
    if not problems:
        print(f"{len(present)} of {len(order)} listed functions in order at the start of the text")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
