"""Taking a lab down (xfab-lab down, and up when a step fails) and the
named points of `up` where the interrupt test stops it."""
import os
import shutil
import signal
import sys
import time

from .common import CTL_BASE, PIN_BASE, STATE_ROOT, run


def step(name):
    """A named point of `up` (its steps in order: tests/netns/test_lab_interrupt.sh
    collects them with XFAB_LAB_STEPS=1, which prints each to stderr, then
    interrupts `up` at each in turn with XFAB_LAB_KILL_AT=NAME, which SIGKILLs
    xfab-lab there, and checks that `down` leaves nothing behind)."""
    if os.environ.get("XFAB_LAB_STEPS"):
        print("xfab-lab step: %s" % name, file=sys.stderr, flush=True)
    if os.environ.get("XFAB_LAB_KILL_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)


class Cleanup:
    """Lab's teardown (a mixin: self is the Lab)."""

    def down(self, quiet=False):
        """Removes everything of the lab, whatever state up left it in."""
        self._stop_processes()
        self._remove_files()
        if not quiet:
            print("lab %s is down" % self.t.name)

    def _stop_processes(self):
        """The lab's agents and FRR daemons, then whatever else runs in its
        namespaces; then the namespaces."""
        t = self.t
        # Agents and FRR daemons first, so they stop cleanly (the agents
        # detach and unpin); whatever else runs in the namespaces goes after.
        pids = [p for p in (self.agent_pid(s) for s in t.switches()) if p]
        pids += self._frr_pids()
        for pid in pids:
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
        deadline = time.time() + 5
        while pids and time.time() < deadline:
            pids = [p for p in pids if os.path.exists("/proc/%d" % p)]
            time.sleep(0.05)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for ns in self.existing_namespaces():
            res = run(["ip", "netns", "pids", ns], check=False, capture=True)
            for pid in (res.stdout or "").split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (OSError, ValueError):
                    pass
            run(["ip", "netns", "del", ns], check=False)

    def _remove_files(self):
        """The lab's pins, state and control sockets, and the shared base
        directories when no lab uses them any more."""
        t = self.t
        if os.path.isdir(self.pin_root):
            for dirpath, dirnames, filenames in os.walk(self.pin_root, topdown=False):
                for fn in filenames:
                    os.unlink(os.path.join(dirpath, fn))
                for dn in dirnames:
                    os.rmdir(os.path.join(dirpath, dn))
            os.rmdir(self.pin_root)
        shutil.rmtree(self.state, ignore_errors=True)
        # Each xfabd removes its control socket as it stops; one that had to
        # be killed leaves it behind.
        ctl_dir = os.path.join(CTL_BASE, t.name)
        for s in t.switches():
            try:
                os.unlink(os.path.join(ctl_dir, s + ".sock"))
            except OSError:
                pass
        try:
            os.rmdir(ctl_dir)
        except OSError:
            pass
        # The shared base directories go too once no lab uses them: a fresh
        # box had none, and an empty pin directory is a leftover.
        for d in (PIN_BASE, STATE_ROOT, CTL_BASE):
            try:
                os.rmdir(d)
            except OSError:
                pass  # another lab (or anything else) still lives there
