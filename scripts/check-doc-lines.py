#!/usr/bin/env python3
"""Checks the file:line references in the docs: each "`Symbol` (File.swift:N)" or
"`Symbol`, File.swift:N" must name a line of that file (found anywhere under Sources/) that
mentions the symbol's last part. Prints what moved; exits 1 when something did. With --fix, a reference whose symbol is declared once in
its file is moved to that line.

The frame trace in docs/architecture.md cites lines; this keeps it true when code moves."""
import pathlib, re, sys

root = pathlib.Path(__file__).resolve().parent.parent
files = {}
for p in (root / "Sources").rglob("*.swift"):
    files.setdefault(p.name, []).append(p)

ref = re.compile(r"`([A-Za-z_][\w.()]*?)(?:\(\S*\))?`[^`]{0,40}?\(?([A-Z][\w+]*\.swift):(\d+)")
fix = "--fix" in sys.argv
docs = [a for a in sys.argv[1:] if a != "--fix"] or ["docs/architecture.md"]
bad = 0
for doc in docs:
    text = (root / doc).read_text()
    edits = []
    for m in ref.finditer(text):
        symbol, name, line = m.group(1), m.group(2), int(m.group(3))
        part = symbol.rstrip("()").split(".")[-1].split("(")[0]
        paths = files.get(name, [])
        if len(paths) != 1:
            print(f"{doc}: {name}:{line}: {'no such file' if not paths else 'more than one file of that name'}")
            bad += 1
            continue
        lines = paths[0].read_text().splitlines()
        if not (0 < line <= len(lines)) or part not in lines[line - 1]:
            near = [i + 1 for i, l in enumerate(lines) if re.search(rf"\b(func|var|let|class|struct|init)\s*{re.escape(part)}\b", l)]
            if fix and len(near) == 1:
                edits.append((m.start(3), m.end(3), str(near[0])))
                continue
            print(f"{doc}: `{symbol}` is not at {name}:{line}" + (f" (declared at line {', '.join(map(str, near))})" if near else ""))
            bad += 1
    for start, end, new in reversed(edits):
        text = text[:start] + new + text[end:]
    if edits:
        (root / doc).write_text(text)
        print(f"{doc}: {len(edits)} line references moved")
sys.exit(1 if bad else 0)
