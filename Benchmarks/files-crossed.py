#!/usr/bin/env python3
"""Lists the source files whose code a request runs, from two callgrind profiles of one workload.

Usage: files-crossed.py <binary with debug info> <profile of N requests> <profile of 2N requests> <profiled file name>
The profiles come from a copy of the binary without its debug info (valgrind cannot read Swift's),
recorded with --dump-instr=yes. An instruction counts when it ran more often in the second profile:
work per request, not the set-up. Each one is mapped to its source lines with addr2line -i, so code
inlined from another file counts for that file too. Prints the files under Sources/, by module.
"""
import collections
import re
import subprocess
import sys


def per_address(path, binary_name):
    """Instructions executed at each address of `binary_name` in a callgrind profile."""
    names, cost = {}, collections.Counter()
    current, last, after_calls = None, 0, False
    position = re.compile(r"^(0x[0-9a-f]+|\+\d+|-\d+|\*)\s+\S+\s+(\d+)")
    for line in open(path):
        if line.startswith(("ob=", "cob=")):
            match = re.match(r"c?ob=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
            if match.group(2):
                names[match.group(1)] = match.group(2)
            if line.startswith("ob="):
                current = names.get(match.group(1), "")
            continue
        if line.startswith("calls="):
            after_calls = True
            continue
        match = position.match(line)
        if not match:
            continue
        text = match.group(1)
        if text.startswith("0x"):
            last = int(text, 16)
        elif text[0] in "+-":
            last += int(text)
        if after_calls:
            after_calls = False  # the inclusive cost of a call, not this address's own
        elif current and current.endswith(binary_name):
            cost[last] += int(match.group(2))
    return cost


def main():
    binary, small, large = sys.argv[1:4]
    name = "/" + sys.argv[4] if len(sys.argv) > 4 else ""
    before, after = per_address(small, name), per_address(large, name)
    hot = [address for address, count in after.items() if count > before.get(address, 0)]
    lines = subprocess.run(["addr2line", "-e", binary, "-i"], input="\n".join(hex(a) for a in hot),
                           capture_output=True, text=True, check=True).stdout.splitlines()
    files = collections.Counter()
    for line in lines:
        match = re.search(r"/Sources/([^:]+):", line)
        if match:
            files[match.group(1)] += 1
    modules = collections.defaultdict(list)
    for path in sorted(files):
        modules[path.split("/")[0]].append(path)
    for module, paths in modules.items():
        print(f"{module}: {len(paths)} files")
        for path in paths:
            print(f"  {path}")


if __name__ == "__main__":
    main()
