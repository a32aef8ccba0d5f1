"""ctx-count --by (or --cost) over a directory tree on a Dask cluster.

    python3 examples/dask/count.py --by KEY [--scheduler ADDR] DIR ...
    python3 examples/dask/count.py --cost [--by KEY] [--scheduler ADDR] DIR ...

prints the JSON that `ctx-count --by KEY --json DIR ...` (or --cost) prints,
byte for byte. The files are cut into tasks, whole sessions each; a task
counts its files with `ctx-count --partial`; the partial counts are merged
on the workers, a few at a time, in a tree (`ctx-count --merge --partial`),
and the last merge prints the report. The client gets the report and the
tasks' error lines, not the sessions' counts. Without --scheduler, a
cluster of two workers is started here. See docs/scale.md.
"""

import argparse
import os
import sys
import tempfile

import ctxdask

FAN_IN = 4  # partial counts merged by one task


def count(bins, files, flags, cwd):
    """A task: the partial count of its files, one at a time (--jobs 1: a
    worker's thread is one core). Exit 1 is a bad file, said on stderr and
    left out of the count; anything else fails the job."""
    code, out, err = ctxdask.run(bins, ["ctx-count", "--partial", "--jobs", "1", "--quiet"] + flags + ["--"] + files, cwd)
    if code not in (0, 1):
        raise RuntimeError(err)
    return out, err, code


def merge(bins, parts, cwd, final=False):
    """A task: partial counts merged, in order, into one, or (final) into
    the report. Their error lines and exit statuses go on with it."""
    with tempfile.TemporaryFile() as f:  # ctx-count --merge reads them one after the other
        for out, _, _ in parts:
            f.write(out)
        f.seek(0)
        code, out, err = ctxdask.run(bins, ["ctx-count", "--merge", "--json" if final else "--partial"], cwd, stdin=f)
    if code not in (0, 1):
        raise RuntimeError(err)
    return out, "".join(p[1] for p in parts) + err, max([code] + [p[2] for p in parts])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--by", help="project, day, session, tool, kind, file or model (as ctx-count --by)")
    ap.add_argument("--cost", action="store_true", help="what the sessions cost (as ctx-count --cost)")
    for name in ("since", "until", "encoding"):
        ap.add_argument("--" + name, help=f"as ctx-count --{name}")
    ap.add_argument("--scheduler", help="the scheduler's address, tcp://HOST:PORT (default: $DASK_SCHEDULER_ADDRESS, else a local cluster)")
    ap.add_argument("--bin", help="where the ctx-count to ship is (default: bin/, then the PATH)")
    ap.add_argument("dirs", nargs="+", metavar="DIR")
    a = ap.parse_args()
    if not a.by and not a.cost:
        ap.error("give --by KEY or --cost")
    flags = ["--cost"] if a.cost else []
    for name in ("by", "since", "until", "encoding"):
        if getattr(a, name):
            flags += ["--" + name, getattr(a, name)]

    with ctxdask.connect(a.scheduler) as client:
        bins = ctxdask.ship(client, ["ctx-count"], a.bin)
        cwd = os.getcwd()
        files = [p for d in a.dirs for p in ctxdask.walk(d)]
        # A request repeated in a resumed session's file counts once: --cost
        # keeps each directory's files in one task.
        key = (lambda p: os.path.dirname(ctxdask.session_of(p))) if a.cost else ctxdask.session_of
        tasks = ctxdask.cut(files, ctxdask.per_task(files, client), key)
        parts = [client.submit(count, bins, t, flags, cwd, pure=False) for t in tasks]
        # The reduce, on the cluster: FAN_IN partial counts a task, in order.
        while len(parts) > FAN_IN:
            parts = [client.submit(merge, bins, parts[i:i + FAN_IN], cwd, pure=False) for i in range(0, len(parts), FAN_IN)]
        report, errors, code = client.submit(merge, bins, parts, cwd, True, pure=False).result()
    sys.stderr.write(errors)
    sys.stdout.buffer.write(report)
    return code

if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as e:  # a binary's usage error, from a task
        sys.exit(f"count.py: {str(e).strip()}")
