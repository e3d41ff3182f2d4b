"""The traffic's two ends, run in the hosts' namespaces by the soak
itself (soak _send / soak _recv): numbered UDP packets at a steady rate,
and a receiver that lists each lost packet's flow and send time."""
import argparse
import json
import select
import signal
import socket
import sys
import time

from .common import HDR, MAGIC, MISSING_MAX, PORT, mono


def sender(argv):
    ap = argparse.ArgumentParser(prog="soak _send")
    ap.add_argument("--dst", required=True)
    ap.add_argument("--flows", required=True, help="ID:SPORT,...")
    ap.add_argument("--rate", type=float, required=True, help="packets/s per flow")
    ap.add_argument("--duration", type=float, required=True)
    ap.add_argument("--size", type=int, default=128)
    a = ap.parse_args(argv)
    fam = socket.AF_INET6 if ":" in a.dst else socket.AF_INET
    socks = []
    for item in a.flows.split(","):
        fid, sport = (int(x) for x in item.split(":"))
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.bind(("", sport))
        s.connect((a.dst, PORT))
        socks.append((fid, s))
    seq = {fid: 0 for fid, _ in socks}
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    interval = 1.0 / (a.rate * len(socks))
    pad = bytes(max(0, a.size - HDR.size))
    start = time.monotonic()
    end = start + min(a.duration, 4000)
    k = errors = resets = 0
    while not stop:
        now = time.monotonic()
        if now >= end:
            break
        due = start + k * interval
        if due > now:
            time.sleep(min(due - now, 0.05))
            continue
        if now - due > 0.05:  # far behind (a busy box): no burst, the schedule moves on
            start += now - due
            resets += 1
        fid, s = socks[k % len(socks)]
        try:
            s.send(HDR.pack(MAGIC, fid, seq[fid], mono()) + pad)
            seq[fid] += 1
        except OSError:
            errors += 1
        k += 1
    print(json.dumps({"sent": {str(f): n for f, n in seq.items()}, "errors": errors,
                      "schedule_resets": resets}))
    return 0


def receiver(argv):
    ap = argparse.ArgumentParser(prog="soak _recv")
    ap.add_argument("--duration", type=float, required=True)
    ap.add_argument("--v6", action="store_true")
    a = ap.parse_args(argv)
    socks = []
    for fam, addr in ((socket.AF_INET, "0.0.0.0"),) + (((socket.AF_INET6, "::"),) if a.v6 else ()):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        if fam == socket.AF_INET6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        s.bind((addr, PORT))
        s.setblocking(False)
        socks.append(s)
    print("ready", file=sys.stderr, flush=True)  # bound: the soak starts its senders now
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    flows = {}
    bad = 0
    end = time.monotonic() + min(a.duration, 4000)
    while not stop and time.monotonic() < end:
        try:
            ready, _, _ = select.select(socks, [], [], 0.2)
        except InterruptedError:
            continue
        for s in ready:
            for _ in range(256):
                try:
                    data = s.recv(2048)
                except BlockingIOError:
                    break
                if len(data) < HDR.size or data[:4] != MAGIC:
                    bad += 1
                    continue
                _, fid, seq, t = HDR.unpack_from(data)
                f = flows.get(fid)
                if f is None:
                    f = flows[fid] = {"rx": 0, "hi": -1, "hi_t": 0, "first": seq, "first_t": t,
                                      "dup": 0, "late": 0, "missing": {}, "missing_over": 0}
                if seq > f["hi"]:
                    if f["hi"] >= 0 and seq > f["hi"] + 1:
                        # the packets between were sent between these two times
                        lo, lo_t = f["hi"], f["hi_t"]
                        for m in range(lo + 1, seq):
                            if len(f["missing"]) < MISSING_MAX:
                                f["missing"][m] = lo_t + (m - lo) * (t - lo_t) // (seq - lo)
                            else:
                                f["missing_over"] += 1
                    f["hi"], f["hi_t"] = seq, t
                    f["rx"] += 1
                elif seq in f["missing"]:
                    del f["missing"][seq]
                    f["late"] += 1
                    f["rx"] += 1
                elif seq < f["first"]:  # before the first one seen: counted late
                    f["late"] += 1
                    f["rx"] += 1
                    f.setdefault("early", []).append(seq)
                else:
                    f["dup"] += 1
    out = {}
    for fid, f in flows.items():
        early = set(f.pop("early", []))
        # never seen: the sequence numbers before the first that arrived
        f["missing_before_first"] = [m for m in range(f["first"]) if m not in early]
        f["missing"] = sorted([m, t] for m, t in f["missing"].items())
        out[str(fid)] = f
    print(json.dumps({"flows": out, "bad": bad}))
    return 0
