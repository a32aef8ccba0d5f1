"""A pipe of ctx-* filters over a corpus on a Dask cluster, into a tree.

    python3 examples/dask/filter.py [--scheduler ADDR] -o OUT 'PIPE' DIR|FILE ...
    python3 examples/dask/filter.py [--scheduler ADDR] --lines SIZE -o OUT 'PIPE' FILE ...

writes what `ctx-X -o OUT` writes: each transcript through PIPE (a shell
pipe of ctx-* filters, `ctx-dedupe | ctx-truncate | ctx-summarize`) into
OUT, a file found in a directory at its path under it, a FILE at its name;
the same bytes as the pipe run on one machine. A bad file is said on stderr
and left out, the others done, and the exit status is 1. Tasks take whole
sessions (a Claude Code session with its sub-agents' files).

With --lines, each FILE is JSONL of one trajectory a line (PIPE takes
--each-line): it is cut into ranges of SIZE bytes (64M, 500k) at line
boundaries, each range goes through PIPE on its own, and the outputs are
joined in order into OUT/<name>: one output line for each input line, as
one run gives. See docs/scale.md.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import ctxdask

# A pipe's exit statuses that leave a whole output: 0, and ctx-summarize's
# 3 (over its budget, the smallest history it could write).
KEPT = (0, 3)


def through(bins, pipe, src, dst, cwd, start=0, end=None):
    """Runs src's bytes (those from start to end, at line boundaries) through
    the pipe into dst, written whole or not at all. Returns the pipe's
    exit status and its stderr."""
    dst = os.path.join(cwd, dst)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    tmp = hidden(dst, ".tmp")
    env = ctxdask.env_with(bins)
    with open(os.path.join(cwd, src), "rb") as f, open(tmp, "wb") as out, tempfile.TemporaryFile() as err:
        cmd = ["bash", "-o", "pipefail", "-c", pipe]
        if end is None:  # a whole file: the pipe reads it as a file
            code = subprocess.run(cmd, cwd=cwd, env=env, stdin=f, stdout=out, stderr=err).returncode
        else:
            p = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=out, stderr=err)
            if start > 0:  # the line that starts before start is the range before's
                f.seek(start - 1)
                f.readline()
            try:
                while f.tell() < end and (line := f.readline()):
                    p.stdin.write(line)
                p.stdin.close()
            except BrokenPipeError:
                pass
            code = p.wait()
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    if code in KEPT or end is not None and code == 1:  # --each-line: bad lines' records in place
        os.replace(tmp, dst)
    else:
        os.remove(tmp)
    return code, stderr


def files_task(bins, pipe, pairs, cwd):
    """A task: whole files through the pipe, one after the other."""
    said, codes = [], set()
    for src, dst in pairs:
        code, err = through(bins, pipe, src, dst, cwd)
        if code:
            said.append(f"{src}: exit status {code}: " + err.strip().replace("\n", f"\n{src}: "))
        codes.add(code)
    return said, codes


def range_task(bins, pipe, src, start, end, dst, cwd):
    """A task: a range of a file's lines through the pipe."""
    code, err = through(bins, pipe, src, dst, cwd, start, end)
    return ([f"{src} bytes {start}-{end}: exit status {code}: {err.strip()}"] if code else []), {code}


def join_task(parts, dst, cwd, ranges):
    """A task: the ranges' outputs joined in order into dst; none, if a
    range has none (the pipe failed on it: said)."""
    dst = os.path.join(cwd, dst)
    ranges = [os.path.join(cwd, r) for r in ranges]
    if all(os.path.exists(r) for r in ranges):
        tmp = hidden(dst, ".tmp")
        with open(tmp, "wb") as out:
            for r in ranges:
                with open(r, "rb") as f:
                    shutil.copyfileobj(f, out, 1 << 20)
        os.replace(tmp, dst)
    for r in ranges:
        if os.path.exists(r):
            os.remove(r)
    said = [s for p in parts for s in p[0]]
    return said, set().union(*(p[1] for p in parts))


def hidden(path, suffix):
    """A file beside path that no directory walk takes."""
    return os.path.join(os.path.dirname(path), "." + os.path.basename(path) + suffix)


def size(s):
    """64M, 500k, 1G or a number of bytes."""
    m = re.fullmatch(r"(\d+)([kKmMgG]?)", s)
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: {s}")
    return int(m[1]) << {"": 0, "k": 10, "m": 20, "g": 30}[m[2].lower()]


def outputs(inputs, out):
    """Each transcript and where -o OUT puts it: a file found in a directory
    at its path under it, a file given at its name."""
    for arg in inputs:
        for path in ctxdask.walk(arg):
            rel = os.path.relpath(path, os.path.normpath(arg)) if os.path.isdir(arg) else os.path.basename(path)
            yield path, os.path.join(out, rel)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output-dir", required=True, metavar="OUT")
    ap.add_argument("--lines", type=size, metavar="SIZE", help="cut each FILE, one trajectory a line, into ranges of SIZE bytes")
    ap.add_argument("--scheduler", help="the scheduler's address, tcp://HOST:PORT (default: $DASK_SCHEDULER_ADDRESS, else a local cluster)")
    ap.add_argument("--bin", help="where the ctx-* binaries to ship are (default: bin/, then the PATH)")
    ap.add_argument("pipe", metavar="PIPE")
    ap.add_argument("inputs", nargs="+", metavar="INPUT")
    a = ap.parse_args()
    names = sorted(set(re.findall(r"\bctx-[a-z]+", a.pipe)))
    if not names:
        ap.error("PIPE runs no ctx-* binary")
    cwd = os.getcwd()
    pairs = list(outputs(a.inputs, a.output_dir))
    with ctxdask.connect(a.scheduler) as client:
        bins = ctxdask.ship(client, names, a.bin)
        if a.lines:
            done = []
            for src, dst in pairs:
                n = os.path.getsize(src)
                ranges = [(i, min(i + a.lines, n)) for i in range(0, max(n, 1), a.lines)]
                parts = [hidden(dst, f".{k:06d}") for k in range(len(ranges))]
                futures = [client.submit(range_task, bins, a.pipe, src, s, e, part, cwd, pure=False)
                           for (s, e), part in zip(ranges, parts)]
                done.append(client.submit(join_task, futures, dst, cwd, parts, pure=False))
        else:
            by_src = dict(pairs)
            tasks = ctxdask.cut([s for s, _ in pairs], ctxdask.per_task([s for s, _ in pairs], client))
            done = [client.submit(files_task, bins, a.pipe, [(s, by_src[s]) for s in t], cwd, pure=False) for t in tasks]
        codes = set()
        for said, code in client.gather(done):  # said: lines for stderr; code: the exit statuses
            for line in said:
                print(line, file=sys.stderr)
            codes |= code
    # A failure wins over ctx-summarize's over-budget, as in one run.
    return 1 if codes - set(KEPT) else max(codes | {0})


if __name__ == "__main__":
    sys.exit(main())
