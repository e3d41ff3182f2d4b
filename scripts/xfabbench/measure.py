"""The measurements: the sink's rate of a configuration, its program's
ns per packet (test runs) and the labs' bring-up time."""
import os
import subprocess
import time

from xfablab.signals import Shielded

from .common import DST, DST6, MAC, PEER_VTEP, PIN, ROOT, SRC6, TOOL, VNI, VTEP, sh, stats


def count():
    """Frames and bytes the sink has counted."""
    frames, nbytes = sh("sink", [TOOL, "count", "--pin", PIN + "/sink"]).split()
    return int(frames), int(nbytes)


def addrs(v6, vxlan=False):
    """The frame's addresses; vxlan: inside a VXLAN frame from PEER_VTEP to
    the DUT's VTEP."""
    if v6:
        return ["--v6", "--src", SRC6, "--dst", DST6]
    return ["--src", "10.10.0.2", "--dst", DST] + (
        ["--vxlan", str(VNI), "--outer-src", PEER_VTEP, "--outer-dst", VTEP] if vxlan else [])


def measure(flows, vary_qp, seconds, v6=False, vxlan=False):
    sh("gen", [TOOL, "cfg", "--pin", PIN + "/gen", "--flows", str(flows), "--dmac", MAC["d0"],
               "--smac", MAC["g0"]] + (["--vary-qp"] if vary_qp else []) +
       (["--v6"] if v6 else []) + (["--vxlan", str(VNI)] if vxlan else []) +
       (["--dst", DST6 if v6 else DST] if flows > 1 and not vary_qp else []))
    c0, b0 = count()
    out = sh("gen", [TOOL, "gen", "--pin", PIN + "/gen", "--dev", "g0", "--dmac", MAC["d0"],
                     "--smac", MAC["g0"], "--seconds", str(seconds)] + addrs(v6, vxlan),
             timeout=seconds + 30)
    sent, elapsed = out.split()
    time.sleep(0.1)
    c1, b1 = count()
    return ((c1 - c0) / float(elapsed) / 1e6, int(sent) / float(elapsed) / 1e6,
            (b1 - b0) / float(c1 - c0) if c1 > c0 else 0)


XDP_REDIRECT = 4


TC_ACT_REDIRECT = 7


def nsper(prog, v6=False, vxlan=False, restore_all=False):
    """The program's own ns per packet (wrapper cost taken off); it must
    have forwarded the frame, or the figure would time a drop path."""
    tc = prog.endswith("prog_tc")
    out = sh("dut", [TOOL, "nsper", "--prog", prog, "--pin", PIN + "/nsper", "--dev", "d0",
                     "--dmac", MAC["d0"], "--repeat", "1000000"] +
             (["--smac", MAC["g0"]] if vxlan else []) + addrs(v6, vxlan) + (["--tc"] if tc else []) +
             (["--restore-all"] if restore_all else []))
    net, total, base, verdict = (int(x) for x in out.split())
    if verdict != (TC_ACT_REDIRECT if tc else XDP_REDIRECT):
        raise RuntimeError("%s: the test-run frame was not forwarded (XDP verdict %d)" %
                           (prog, verdict))
    return net


def bringup(rounds):
    """xfab-lab up (to a converged fabric: the topologies as they ship, BGP) for
    clos-2x4 and clos-4x8."""
    lab = os.path.join(ROOT, "scripts", "xfab-lab")
    out = {}
    for topo in ("clos-2x4", "clos-4x8"):
        path = os.path.join(ROOT, "testbeds", topo + ".json")
        times = []
        for _ in range(rounds):
            t0 = time.time()
            try:
                subprocess.run([lab, "up", path, "--name", "xfbup"], check=True,
                               capture_output=True, timeout=180)
                times.append(time.time() - t0)
            finally:  # also when a signal cut the up short (xfab-lab down then cleans)
                with Shielded():
                    subprocess.run([lab, "down", path, "--name", "xfbup"],
                                   capture_output=True, timeout=180)
        out[topo] = stats(times)
    return out
