"""A spawned process's ready line: scripts start traffic once their receivers
say they are bound, not after a sleep a busy box can outlast."""
import select
import time


def wait_ready(proc, marker, timeout=30):
    """Reads proc's stderr (a text pipe) until a line holding marker; returns
    proc. RuntimeError if it exits first or says nothing within timeout."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        r, _, _ = select.select([proc.stderr], [], [], max(0.0, deadline - time.time()))
        if not r:
            break
        line = proc.stderr.readline()
        if not line:
            raise RuntimeError("%s exited before it was ready (status %s)" % (
                " ".join(proc.args[-8:]), proc.wait()))
        if marker in line:
            return proc
    raise RuntimeError("%s: not ready after %d s" % (" ".join(proc.args[-8:]), timeout))
