#!/usr/bin/env python3
"""Every switch over an op kind or an op family's members (OpKind, BinaryOp, UnaryOp, ComparePred,
MathFn, WorkItem, AtomicOp, WaveOp) in library and tool code must list every enumerator and have
no `default:` label, so that -Werror=switch turns a forgotten op kind or member into a build error
(issue 34: exhaustive dispatch). Prints each offending switch as file:line and exits 1."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
# The controlling expression of a switch over op kinds or family members.
subject = re.compile(
    r"switch \((?:[\w>.-]*\b(?:kind)|[\w>.-]*\b(?:binary_op|unary_op|pred|math_fn|workitem|atomic_op|wave_op)\(\)"
    r"|(?:op|fn|o|w|p|f|k))\)")
# Variables named above must have one of the op enum types: checked by looking at their declaration
# in the enclosing function (a parameter or local of type OpKind, BinaryOp, ...).
op_enum = re.compile(r"\b(?:ir::)?(?:OpKind|BinaryOp|UnaryOp|ComparePred|MathFn|WorkItem|AtomicOp|WaveOp)\b")

bad = []
for path in sorted(list(root.glob("compiler/**/*.cpp")) + list(root.glob("compiler/**/*.h")) +
                   list(root.glob("dsl/**/*.cpp")) + list(root.glob("runtime/**/*.cpp"))):
    text = path.read_text()
    for m in subject.finditer(text):
        expr = m.group(0)[len("switch ("):-1]
        line = text.count("\n", 0, m.start()) + 1
        if re.fullmatch(r"\w+", expr) and expr != "kind":
            # A bare variable: an op enum only if declared with one of those types nearby.
            before = text[max(0, m.start() - 3000):m.start()]
            decl = re.findall(r"(\b[\w:]+)\s+" + re.escape(expr) + r"\b\s*[,)=;]", before)
            if not decl or not op_enum.search(decl[-1]):
                continue
        if expr.endswith("kind") and ("arg.kind" in expr or "Frame" in expr or "f.kind" == expr):
            continue
        # The switch body: from the first '{' after the switch to its matching '}'.
        start = text.index("{", m.end())
        depth, i = 0, start
        while True:
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        body = text[start:i]
        if re.search(r"\bdefault\s*:", body) and not re.search(r"switch \(", body[: body.find("default")]):
            bad.append(f"{path.relative_to(root)}:{line}: `{m.group(0)}` has a default: label")
for b in bad:
    print(b)
print(f"{len(bad)} switch(es) over op kinds or members with a default: label")
sys.exit(1 if bad else 0)
