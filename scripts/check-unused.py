#!/usr/bin/env python3
"""Lists the functions of dbtool's own code (DBToolCore, dbtool) that
nothing calls: a non-public `func` whose name appears nowhere else under
Sources/. Protocol witnesses (`run`, `validate`, ...) are called by name
from elsewhere and are left out. Exits 1 when it finds one (`make lint`)."""
import collections
import os
import re
import sys

OWN = ("Sources/DBToolCore", "Sources/dbtool")
# Requirements of protocols dbtool conforms to: called through the protocol.
WITNESSES = {"run", "validate", "encode", "hash", "main", "makeIterator", "next", "write", "read", "close", "finish", "publish",
             "abort", "callAsFunction"}
DECLARATION = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*((?:(?:public|open|internal|private|fileprivate|static|class|final|override|mutating|nonisolated)\s+)*)"
    r"func\s+([A-Za-z_]\w*)", re.M)

sources = {}
for directory, _, files in os.walk("Sources"):
    for name in files:
        if name.endswith(".swift"):
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as file:
                sources[path] = file.read()
uses = collections.Counter()
for text in sources.values():
    uses.update(re.findall(r"[A-Za-z_]\w*", text))
unused = []
for path, text in sorted(sources.items()):
    if not path.startswith(OWN):
        continue
    for match in DECLARATION.finditer(text):
        modifiers, name = match.group(1), match.group(2)
        if "public" in modifiers or "open" in modifiers or "override" in modifiers or name in WITNESSES:
            continue
        if uses[name] <= 1:
            unused.append(f"{path}:{text[:match.start()].count(chr(10)) + 1}: func {name} is never called")
print("\n".join(unused) if unused else "check-unused: every function of DBToolCore and dbtool is called")
sys.exit(1 if unused else 0)
