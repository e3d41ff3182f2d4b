"""xfabd's configs of the bench's variants (the DUT's tables)."""
from .common import MAC, PEER_VTEP, VNI, VTEP


def extra_routes(n, gws):
    """n /24s in 20.0.0.0 - 39.255.255.0, all over the same gateways."""
    out, k = {}, 0
    for a in range(20, 40):
        for b in range(256):
            for c in range(256):
                if k >= n:
                    return out
                out["%d.%d.%d.0/24" % (a, b, c)] = {"nexthop": gws}
                k += 1
    return out


def extra_routes6(n, gws):
    """n /64s in 2001:db8::/32, all over the same gateways."""
    return {"2001:db8:%x:%x::/64" % (k >> 16, k & 0xffff): {"nexthop": gws} for k in range(n)}


def xfab_config(variant):
    n = 16 if variant.startswith("ecmp16") or variant in ("eecmp", "flowlet") else 1
    gws = ["10.0.2.%d" % (2 + i) for i in range(n)]
    gws6 = ["fd02::%x" % (2 + i) for i in range(n)]
    cfg = {
        "DEVICE_METADATA": {"localhost": {"hostname": "dut",
                                          "datapath": "tc" if variant.startswith("tc")
                                          else "xdp"}},
        "PORT": {"d0": {}, "d1": {}},
        "INTERFACE": {"d0|10.10.0.1/24": {}, "d1|10.0.2.1/24": {}, "d0|fd10::1/64": {},
                      "d1|fd02::1/64": {}},
        "ROUTE": {"20.0.0.0/8": {"nexthop": ",".join(gws)},
                  "2001:db8::/32": {"nexthop": ",".join(gws6)}},
        "NEIGH": {"d1|%s" % g: {"neigh": MAC["s0"]} for g in gws + gws6},
    }
    if variant.endswith("_v6_100k") or variant.endswith("_v6_1m"):
        cfg["ROUTE"].update(extra_routes6(100000 if variant.endswith("_100k") else 1000000,
                                          ",".join(gws6)))
    elif variant.endswith("_100k") or variant.endswith("_1m"):
        cfg["ROUTE"].update(extra_routes(100000 if variant.endswith("_100k") else 1000000,
                                         ",".join(gws)))
    if variant == "eecmp":
        cfg["ECMP"] = {"global": {"hash_fields":
                                  "SRC_IP,DST_IP,IP_PROTOCOL,L4_SRC_PORT,L4_DST_PORT,ROCE_DEST_QP"}}
    if variant == "flowlet":
        cfg["FLOWLET"] = {"global": {"enabled": "true", "gap_us": "100"}}
    if variant.startswith("pfc_") or variant == "tc_pfc":
        # PFC on priority 3 of the ingress port (it needs a rate there);
        # lossless: every DSCP-0 frame is class 3 (DSCP_TO_TC_MAP)
        cfg["PORT"]["d0"] = {"rate": "100000", "speed": "100000"}
        cfg["PORT_QOS_MAP"] = {"d0": {"pfc_enable": "3"}}
        if variant != "pfc_lossy":
            cfg["DSCP_TO_TC_MAP"] = {"M": {"0": "3"}}
    if "vxlan" in variant:
        vxlan_config(cfg, variant)
    if variant == "ecn":
        cfg["PORT"]["d1"] = {"rate": "400000", "buffer": "4194304"}
        cfg["WRED_PROFILE"] = {"E": {"min_threshold": "1048576", "max_threshold": "2097152",
                                     "max_probability": "5"}}
        cfg["QUEUE"] = {"d1|0-7": {"wred_profile": "E"}}
    return cfg


def vxlan_config(cfg, variant):
    """One VNET (SONiC's model) on the DUT, its VTEP at VTEP. Encap: d0 is
    its tenant port, 20.0.0.0/8 a tunnel route to PEER_VTEP, which the
    underlay reaches through d1 (the sink). Decap: d1 is its tenant port and
    20.0.0.0/8 a VNET route out of it; d0 stays in the underlay, where the
    VXLAN frames to VTEP come in."""
    cfg["VXLAN_TUNNEL"] = {"vtep1": {"src_ip": VTEP}}
    cfg["VNET"] = {"Vnet_1": {"vxlan_tunnel": "vtep1", "vni": str(VNI)}}
    if variant.endswith("encap"):
        cfg["INTERFACE"] = {"d0": {"vnet_name": "Vnet_1"}, "d0|10.10.0.1/24": {},
                            "d1|10.0.2.1/24": {}}
        cfg["ROUTE"] = {"10.255.0.0/24": {"nexthop": "10.0.2.2"}}
        cfg["VNET_ROUTE_TUNNEL"] = {"Vnet_1|20.0.0.0/8": {"endpoint": PEER_VTEP}}
    else:
        cfg["INTERFACE"] = {"d1": {"vnet_name": "Vnet_1"}, "d0|10.10.0.1/24": {},
                            "d1|10.0.2.1/24": {}}
        cfg["ROUTE"] = {}
        cfg["VNET_ROUTE"] = {"Vnet_1|20.0.0.0/8": {"nexthop": "10.0.2.2", "ifname": "d1"}}
    cfg["NEIGH"] = {k: v for k, v in cfg["NEIGH"].items() if ":" not in k}
