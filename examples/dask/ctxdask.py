"""What the Dask jobs of ctxkit share: the cluster, the binaries on the
workers, the sessions of a directory tree and how they are cut into tasks.

The work is the ctx-* binaries'; Dask only hands each worker its share. A
task runs a binary over whole files, so a worker holds one session at a
time, never the corpus. See docs/scale.md.
"""

import contextlib
import hashlib
import os
import stat
import subprocess
import sys

import dask
from distributed import Client, LocalCluster, WorkerPlugin, get_worker

# The names a directory walk takes, as ctx-* binaries walk a directory.
EXTS = (".jsonl", ".json", ".traj")


@contextlib.contextmanager
def connect(scheduler):
    """A client of the scheduler at ADDR (else Dask's own setting,
    DASK_SCHEDULER_ADDRESS); without one, of a cluster of two
    single-threaded worker processes started here, stopped at the end."""
    scheduler = scheduler or dask.config.get("scheduler-address", None)
    if scheduler:
        with Client(scheduler) as client:
            client.upload_file(__file__)  # the tasks call this module on the workers
            yield client
        return
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster) as client:
        client.upload_file(__file__)
        yield client


class Binaries(WorkerPlugin):
    """Ships ctx-* binaries to every worker, as Spark's addFile does: the
    bytes travel with the plugin, and each worker (those that join later
    too) writes them into a directory of its own named by their hash. Go
    binaries need nothing else on the worker; build them for its system
    (GOOS, GOARCH; CGO_ENABLED=0 for any Linux)."""

    def __init__(self, paths):
        self.files = {}
        for path in paths:
            with open(path, "rb") as f:
                self.files[os.path.basename(path)] = f.read()
        digest = hashlib.sha256(b"".join(n.encode() + self.files[n] for n in sorted(self.files)))
        self.name = "ctxkit-bin-" + digest.hexdigest()[:16]

    def setup(self, worker):
        where = os.path.join(worker.local_directory, self.name)
        os.makedirs(where, exist_ok=True)
        for name, data in self.files.items():
            tmp = os.path.join(where, "." + name)
            with open(tmp, "wb") as f:
                f.write(data)
            os.chmod(tmp, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP)
            os.replace(tmp, os.path.join(where, name))
        self.files = {}  # on disk now: the worker need not hold them


def has(bins):
    """Whether this worker has the binaries shipped as bins."""
    return os.path.isdir(os.path.join(get_worker().local_directory, bins))


def ship(client, names, bindir=None):
    """Sends the named binaries to the workers: from bindir, else from the
    bin/ of this checkout (make build), else from the PATH. Returns the
    name of their directory on the workers, for run."""
    here = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "bin")
    paths = []
    for name in names:
        for d in [bindir] if bindir else [here] + os.environ.get("PATH", "").split(os.pathsep):
            if d and os.access(os.path.join(d, name), os.X_OK):
                paths.append(os.path.join(d, name))
                break
        else:
            sys.exit(f"{name} not found (make build, or --bin DIR)")
    plugin = Binaries(paths)
    # Shipped once: another job's plugin of the same bytes stays registered
    # for the workers that join later.
    if not all(client.run(has, plugin.name).values()):
        client.register_worker_plugin(plugin, name=plugin.name)
    return plugin.name


def run(bins, args, cwd, stdin=None, stdout=subprocess.PIPE):
    """Runs args on this worker with the binaries shipped as bins first on
    the PATH, in cwd, the client's directory, so that the paths named are
    the client's. Returns the exit status, stdout (bytes, unless it went
    to a file) and stderr."""
    p = subprocess.run(args, cwd=cwd, env=env_with(bins), stdin=stdin, stdout=stdout, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def env_with(bins):
    """This worker's environment with the binaries shipped as bins first on
    the PATH."""
    where = os.path.join(get_worker().local_directory, bins)
    return dict(os.environ, PATH=where + os.pathsep + os.environ.get("PATH", ""))


def walk(root):
    """The transcripts under root in the order a ctx-* binary walks them:
    each directory's entries by name, subdirectories where they fall, names
    starting with a dot left out; a file given is itself, and so is a
    directory without transcripts. The names are
    root joined with the path under it, as the binaries name them."""
    if not os.path.isdir(root):
        yield root
        return

    def under(real, name):
        with os.scandir(real) as it:
            entries = sorted(it, key=lambda e: e.name)
        for e in entries:
            path = os.path.normpath(os.path.join(name, e.name))
            if e.is_dir(follow_symlinks=False):
                yield from under(e.path, path)
            elif not e.name.startswith(".") and e.name.endswith(EXTS) and (e.is_file() or e.is_symlink()):
                yield path

    found = False
    for path in under(os.path.realpath(root), os.path.normpath(root)):
        found = True
        yield path
    if not found:
        yield root  # for the binary to say that it holds no transcripts


def session_of(path):
    """What keeps files together: a Claude Code session's file <id>.jsonl and
    its sub-agents' files <id>/subagents/*.jsonl are one session."""
    d = os.path.dirname(path)
    if os.path.basename(d) == "subagents":
        return os.path.dirname(d)
    return os.path.splitext(path)[0]


def cut(paths, per_task, key=session_of):
    """Cuts the files, in order, into tasks of about per_task bytes each,
    only where no key (a session, a directory) has files on both sides.
    The tasks, in order, hold the files in their order."""
    last = {key(p): i for i, p in enumerate(paths)}
    tasks, task, size, open_until = [], [], 0, -1
    for i, p in enumerate(paths):
        task.append(p)
        size += os.path.getsize(p) if os.path.exists(p) else 0
        open_until = max(open_until, last[key(p)])
        if size >= per_task and open_until == i:
            tasks.append(task)
            task, size = [], 0
    if task:
        tasks.append(task)
    return tasks


def per_task(paths, client, least=1 << 20):
    """The bytes of a task: about four tasks a worker's thread, so that a
    slow one does not hold the others up, and no less than least."""
    total = sum(os.path.getsize(p) for p in paths if os.path.exists(p))
    threads = sum(client.nthreads().values()) or 1
    return max(least, total // (4 * threads))


def worker_stats():
    """This worker's peak memory (kB, the kernel's high-water mark) and the
    CPU seconds of the binaries it ran."""
    import resource

    peak = 0
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                peak = int(line.split()[1])
    ran = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"peak_kb": peak, "binaries_cpu": ran.ru_utime + ran.ru_stime}
