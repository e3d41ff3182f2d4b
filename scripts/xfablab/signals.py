"""Scripts that build namespaces or start daemons clean up when a signal
stops them (issue 32): SIGTERM, SIGINT and SIGHUP become SystemExit(128 +
the signal), so their finally blocks and with blocks run; a tear-down runs
shielded from a second signal; a child run meanwhile is asked to stop
(SIGTERM) and given time to clean up after itself before it is killed."""
import signal
import subprocess
import sys

SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
CHILD_GRACE_S = 60  # a child's own tear-down (sync-bench's: xfabd, 3 namespaces)


def exit_on_signals(prog):
    """From now on the three signals end prog through its clean-up, with the
    shell's status for a signal (128 + its number)."""
    def on_signal(signum, _frame):
        print("%s: %s, cleaning up" % (prog, signal.Signals(signum).name), file=sys.stderr,
              flush=True)
        raise SystemExit(128 + signum)

    for s in SIGNALS:
        signal.signal(s, on_signal)


class Shielded:
    """A with block no signal interrupts (a tear-down): they are ignored in
    it, and their handlers are back after it."""

    def __enter__(self):
        self.old = {s: signal.signal(s, signal.SIG_IGN) for s in SIGNALS}
        return self

    def __exit__(self, *exc):
        for s, h in self.old.items():
            signal.signal(s, h)


def run_child(cmd, timeout=None, **kw):
    """subprocess.run, except that a child still running when this process
    is interrupted (or the timeout passes) gets SIGTERM and CHILD_GRACE_S to
    clean up before a SIGKILL (subprocess.run kills at once, which leaves
    what a child with its own tear-down built)."""
    with subprocess.Popen(cmd, **kw) as p:
        try:
            out, err = p.communicate(timeout=timeout)
        except BaseException:
            with Shielded():
                p.terminate()
                try:
                    p.wait(timeout=CHILD_GRACE_S)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
            raise
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)
