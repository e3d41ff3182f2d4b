#!/bin/bash
# netns test of xfab as installed (docs/OPERATIONS.md), lab xpk, about 20 s:
#   - `make install DESTDIR=tmp` puts every file where the layout says (a
#     list written here, not taken from the Makefile), the BPF object is
#     an eBPF ELF, the unit's paths are the install's, systemd-analyze
#     verify finds nothing in the unit;
#   - the man pages render (man -l, no groff warning) and agree with the
#     installed programs' --help (scripts/man-check);
#   - the bash completion loads and offers every command and object of
#     `xfabctl --help`, the lab's switches and a switch's ports;
#   - the installed xfab-lab brings up a tiny lab (1 spine, 2 leaves, 2
#     hosts, routes in the kernel, mirrored by xfabd: FIB_SYNC) with the
#     installed xfabd, and all pairs ping;
#   - leaf1's xfabd is handed to the unit: stopped with the unit's
#     RestartKillSignal (USR2: the data plane keeps forwarding, pings go
#     on), then the unit's ExecStartPre and ExecStart lines run (under
#     systemd when the box runs it as PID 1; else the lines themselves,
#     paths mapped into DESTDIR, $XFABD_OPTS from an env file) with a
#     $NOTIFY_SOCKET this test listens on and $JOURNAL_STREAM naming the
#     log: READY=1 comes after the ports forward, every log line starts
#     with an sd-daemon priority (<6> for info, <3> for a refused
#     reload), ExecReload (check, then HUP) gives RELOADING=1 and READY=1,
#     a bad file fails ExecReload's check and xfabd is not signalled;
#   - the live /metrics passes `promtool check metrics` and a stricter
#     reading (every family's HELP and TYPE before its samples, the
#     samples together, one label set per family, counters *_total), and
#     every series the switch dashboard queries is there and its PromQL
#     parses (promtool check rules);
#   - a restart by the unit's rules (USR2, then ExecStart) loses no ping
#     of a 100/s stream, and the XDP program id stays; TERM: STOPPING=1,
#     the ports detached, the pins gone;
#   - the lab goes down with the installed xfab-lab, nothing left, and
#     `make uninstall` leaves no file and no xfab folder in DESTDIR.
#   - XFAB_TEST_DEB=1 also runs `make deb` (3-7 minutes) and checks the
#     package's files and Depends.
# shellcheck source=tests/netns/lib.sh
. "$(dirname "$0")/lib.sh"
need_root
NAME=xpk
PY=/usr/bin/python3
tmp=$(mktemp -d)
D=$tmp/root            # DESTDIR
P=$D/usr/local         # PREFIX inside it
export XFAB_BUILD=$P/lib/xfab/bin
TOPO=$tmp/xpk.json
AGENT=                 # the unit's xfabd for leaf1 (when the test runs it)
LISTENER=
cleanup() {
	[ -n "$AGENT" ] && kill "$AGENT" 2>/dev/null && sleep 0.5
	[ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null
	"$ROOT/scripts/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
	[ -e "$D" ] && make -s -C "$ROOT" uninstall DESTDIR="$D" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
cat >"$TOPO" <<-'EOF'
	{"name": "xpk", "routing": "kernel", "datapath": "xdp", "ipv6": true,
	 "nodes": {"spine1": {"role": "spine"}, "leaf1": {"role": "leaf"}, "leaf2": {"role": "leaf"},
	           "h1": {"role": "host"}, "h2": {"role": "host"}},
	 "links": [["spine1", "leaf1"], ["spine1", "leaf2"], ["leaf1", "h1"], ["leaf2", "h2"]]}
EOF
# The node's network namespace only, as the unit's NetworkNamespacePath=
# gives it (`ip netns exec` would also mount a sysfs of its own over /sys,
# hiding bpffs and the pins).
in_ns() { nsenter --net="/run/netns/$NAME-$1" "${@:2}"; }
# has WORD TEXT: TEXT has a line WORD (no pipe into grep -q: with pipefail
# the writer's SIGPIPE would count as a failure)
has() { grep -qxF -- "$1" <<<"$2"; }

# ---- install
check "make install DESTDIR=... PREFIX=/usr/local" \
	eval 'make -s -C "$ROOT" install DESTDIR="$D" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; false; }'
want_files() {
	local f missing=0
	for f in sbin/xfabd bin/xfabctl bin/xfab-lab lib/xfab/python/xfablab/__init__.py \
		lib/xfab/python/xfablab/cli.py lib/xfab/python/xfablab/common.py \
		bin/xfab-metrics-proxy bin/xfab-roce \
		bin/xfab-pfcgen bin/xfab-coll bin/xfab-te bin/xfab-lbsim bin/xfab-linkfault \
		lib/xfab/xfab.bpf.o lib/xfab/bin/xfabd lib/xfab/bin/xfabctl lib/xfab/bin/xfab-roce \
		share/man/man8/xfabd.8 share/man/man8/xfabctl.8 share/man/man8/xfab-lab.8 \
		share/man/man5/xfab.json.5 share/bash-completion/completions/xfabctl \
		lib/systemd/system/xfabd@.service share/xfab/testbeds/clos-2x4.json \
		share/doc/xfab/examples/leaf1.json share/doc/xfab/examples/leaf1.env \
		share/doc/xfab/grafana/xfab-switch.json share/doc/xfab/grafana/xfab-fabric.json; do
		[ -e "$P/$f" ] || { echo "    missing: $f"; missing=1; }
	done
	# programs executable, lib/xfab/bin links that resolve inside DESTDIR
	[ -x "$P/sbin/xfabd" ] && [ -x "$P/bin/xfab-lab" ] &&
		[ "$(readlink -f "$P/lib/xfab/bin/xfabd")" = "$P/sbin/xfabd" ] &&
		[ "$(readlink -f "$P/lib/xfab/bin/xfabctl")" = "$P/bin/xfabctl" ] && [ $missing -eq 0 ]
}
check "every file in its place (sbin, bin, lib/xfab, man, completion, unit, testbeds, examples)" \
	want_files
check "lib/xfab/xfab.bpf.o is an eBPF ELF object" \
	eval '[[ $(readelf -h "$P/lib/xfab/xfab.bpf.o") == *"Linux BPF"* ]]'
check "the installed xfab-lab runs programs from lib/xfab/bin, its package from lib/xfab/python" \
	eval 'grep -qF "BUILD = os.environ.get(\"XFAB_BUILD\", \"/usr/local/lib/xfab/bin\")" \
		"$P/lib/xfab/python/xfablab/common.py" &&
	      grep -qxF "PKG_DIR = \"../lib/xfab/python\"" "$P/bin/xfab-lab"'
UNIT=$P/lib/systemd/system/xfabd@.service
check "the unit runs the installed xfabd (ExecStartPre check, ExecStart, ExecReload check + HUP)" \
	eval 'grep -qxF "ExecStart=/usr/local/sbin/xfabd -c /etc/xfab/%i.json \$XFABD_OPTS" "$UNIT" &&
	      grep -qxF "ExecStartPre=/usr/local/sbin/xfabd -c /etc/xfab/%i.json --check" "$UNIT" &&
	      grep -qxF "ExecReload=/usr/local/sbin/xfabd -c /etc/xfab/%i.json --check" "$UNIT" &&
	      grep -qxF "ExecReload=/bin/kill -HUP \$MAINPID" "$UNIT" &&
	      grep -qxF "Type=notify" "$UNIT" && grep -qxF "RestartKillSignal=SIGUSR2" "$UNIT"'
verify_unit() {
	# an instance of the template, its binary where the unit says
	mkdir -p "$tmp/unit"
	sed "s|/usr/local/sbin/xfabd|$P/sbin/xfabd|" "$UNIT" >"$tmp/unit/xfabd@leaf1.service"
	timeout 30 systemd-analyze verify --man=no "$tmp/unit/xfabd@leaf1.service" \
		>"$tmp/verify.log" 2>&1
	sed 's/^/    /' "$tmp/verify.log"
	[ ! -s "$tmp/verify.log" ]
}
check_needs systemd-analyze "systemd-analyze verify: nothing to say about the unit" verify_unit

# ---- man pages and --help
render() {
	local f out
	for f in "$P"/share/man/man8/*.8 "$P"/share/man/man5/*.5; do
		out=$(MANWIDTH=80 man --warnings -l "$f" 2>"$tmp/man.err") || return 1
		if [ -s "$tmp/man.err" ]; then
			sed "s|^|    $(basename "$f"): |" "$tmp/man.err"
			return 1
		fi
		# the page's own header: "XFABCTL(8)", "XFAB.JSON(5)"
		local base=${f##*/}
		local head
		head=$(echo "${base%.*}" | tr '[:lower:]' '[:upper:]')"(${base##*.})"
		[[ $out == *"$head"* ]] || { echo "    $base: no $head header"; return 1; }
	done
}
check "man -l renders xfabd(8), xfabctl(8), xfab-lab(8), xfab.json(5) without a warning" render
check "every program's --help agrees with its installed man page (scripts/man-check)" \
	eval '"$ROOT/scripts/man-check" --bin "$P/bin" --sbin "$P/sbin" --lab "$P/bin/xfab-lab" \
		--man "$P/share/man" | sed "s/^/    /"; [ "${PIPESTATUS[0]}" -eq 0 ]'

# the example config with ports no namespace has (--check: nothing loads)
sed 's/"eth\([0-9]\)/"xpknone\1/g' "$P/share/doc/xfab/examples/leaf1.json" >"$tmp/noports.json"
check "--syslog: start-up errors (a config's missing ports) carry priority <3>" \
	eval '! "$P/sbin/xfabd" --syslog -c "$tmp/noports.json" --check >"$tmp/syslog.log" 2>&1 &&
	      grep -q "^<3>.*noports.json:[0-9]*:[0-9]*: PORT|xpknone1: no such Ethernet device" "$tmp/syslog.log" &&
	      ! grep -vq "^<3>" "$tmp/syslog.log"'

# complete WORDS...: what the completion offers after them (one per line)
complete_words() {
	PATH="$P/bin:$PATH" XFAB_PIN_ROOT=/sys/fs/bpf/xfab bash -c '
		. "$1"; shift
		COMP_WORDS=(xfabctl "$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
		_xfabctl; printf "%s\n" "${COMPREPLY[@]}"' _ \
		"$P/share/bash-completion/completions/xfabctl" "$@"
}
completion_commands() {
	local help cmds objs w miss=0
	help=$("$P/bin/xfabctl" --help)
	# the oracle: --help's own lists (first word of each command, every object)
	cmds=$(echo "$help" | sed -n '/^commands:/,/^objects:/p' | grep -E '^  [a-z]' | awk '{print $1}' | sort -u)
	objs=$(echo "$help" | sed -n '/^objects:/,$p' | grep -E '^  [a-z]' | awk '{print $1}' | sort -u)
	bash -c ". '$P/share/bash-completion/completions/xfabctl' && complete -p xfabctl" \
		>/dev/null || return 1
	local top show
	top=$(complete_words "")
	show=$(complete_words show "")
	for w in $cmds; do
		has "$w" "$top" || { echo "    command $w not offered"; miss=1; }
	done
	for w in $objs; do
		has "$w" "$show" || { echo "    object $w not offered"; miss=1; }
	done
	has sweep "$(complete_words te "")" || miss=1
	has status "$(complete_words show pfc "")" || miss=1
	echo "    $(echo "$cmds" | wc -l) commands, $(echo "$objs" | wc -l) objects of --help offered"
	[ $miss -eq 0 ]
}
check "the bash completion loads and offers every command and object of xfabctl --help" \
	completion_commands

# ---- a lab of installed programs
if ! timeout 120 "$P/bin/xfab-lab" up "$TOPO" --name "$NAME" >"$tmp/up.log" 2>&1; then
	sed 's/^/# /' "$tmp/up.log" | tail -20
	not_ok "the installed xfab-lab brings up lab xpk with the installed xfabd"
	echo "# $pass passed, $fail failed"
	exit 1
fi
ok "the installed xfab-lab brings up lab xpk with the installed xfabd"
pid_of() { cat "/run/xfab-lab/$NAME/$1.pid"; }
check "the lab's switches run the installed xfabd (/proc/PID/exe)" \
	eval '[ "$(readlink -f /proc/$(pid_of leaf1)/exe)" = "$P/sbin/xfabd" ] &&
	      [ "$(readlink -f /proc/$(pid_of spine1)/exe)" = "$P/sbin/xfabd" ]'
check "all pairs ping through it (IPv4, IPv6)" \
	eval 'timeout 60 "$P/bin/xfab-lab" ping "$TOPO" --name "$NAME" >"$tmp/ping.log" &&
	      grep -qE ": ([1-9][0-9]*)/\1 reachable" "$tmp/ping.log"'
check "completion: -s offers the lab's switches, --in leaf1's ports" \
	eval 'has xpk/leaf1 "$(complete_words -s xpk/)" &&
	      has eth2 "$(complete_words -s xpk/leaf1 te add --in "")"'

xdp_id() { ip -n "$NAME-leaf1" -d link show "$1" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p'; }
prog_before=$(xdp_id eth1)

# gone PID: the process has exited (a child of this shell may be a zombie
# until it is waited for)
gone() { ! kill -0 "$1" 2>/dev/null || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }

# ---- leaf1's switch handed to the unit: USR2 leaves the data plane
lab_leaf1=$(pid_of leaf1)
kill -USR2 "$lab_leaf1"
check "USR2 (the unit's RestartKillSignal): xfabd exits, the data plane forwards on (h1 -> h2)" \
	eval 'eventually 10 gone "$lab_leaf1" &&
	      grep -q "the data plane keeps forwarding" "/run/xfab-lab/$NAME/leaf1.log" &&
	      [ "$(xdp_id eth1)" = "$prog_before" ] &&
	      in_ns h1 ping -n -q -c 3 -i 0.2 -W 2 10.2.1.2 >/dev/null'

# the unit's /etc/xfab/leaf1.json and leaf1.env, mapped into the test
mkdir -p "$tmp/etc"
cp "/run/xfab-lab/$NAME/leaf1.json" "$tmp/etc/leaf1.json"
echo "XFABD_OPTS=--pin-root /sys/fs/bpf/xfab/$NAME --metrics 127.0.0.1:9400" >"$tmp/etc/leaf1.env"
# unit_line KEY [N]: the Nth KEY= line of the unit, %i and paths mapped
unit_line() {
	grep "^$1=" "$UNIT" | sed -n "${2:-1}p" | sed -e "s|^$1=||" -e "s|%i|leaf1|g" \
		-e "s|/etc/xfab/|$tmp/etc/|g" -e "s|/usr/local/sbin/|$P/sbin/|g"
}
# NOTIFY_SOCKET: a datagram socket this test reads, one line per message
"$PY" - "$tmp/notify.sock" "$tmp/notify.log" <<-'EOF' &
	import socket, sys
	s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
	s.bind(sys.argv[1])
	with open(sys.argv[2], "a", buffering=1) as out:
	    while True:
	        out.write(s.recv(4096).decode().replace("\n", "|") + "\n")
EOF
LISTENER=$!
eventually 5 test -S "$tmp/notify.sock"
touch "$tmp/notify.log" "$tmp/agent.log"
# notified N ERE: a message after the first N matches ERE (messages are one
# line each, their newlines as '|')
notified() {
	local after
	after=$(sed -n "$(($1 + 1)),\$p" "$tmp/notify.log")
	grep -qE -- "$2" <<<"$after"
}
# the Nth message
nth_message() { sed -n "${1}p" "$tmp/notify.log"; }

start_unit() { # runs ExecStartPre, then ExecStart in the background (AGENT)
	local opts pre start
	opts=$(sed -n 's/^XFABD_OPTS=//p' "$tmp/etc/leaf1.env")
	pre=$(unit_line ExecStartPre)
	start=$(unit_line ExecStart)
	start=${start//\$XFABD_OPTS/$opts}
	# shellcheck disable=SC2086 # the unit's words, as systemd splits them
	in_ns leaf1 $pre >>"$tmp/pre.log" 2>&1 || { cat "$tmp/pre.log"; return 1; }
	# stderr is the log; JOURNAL_STREAM names it, as journald's stream would
	exec 7>>"$tmp/agent.log"
	# shellcheck disable=SC2086
	NOTIFY_SOCKET=$tmp/notify.sock JOURNAL_STREAM=$(stat -c '%d:%i' "$tmp/agent.log") \
		nsenter --net="/run/netns/$NAME-leaf1" $start >&7 2>&7 </dev/null &
	AGENT=$!
	exec 7>&-
}
if [ -d /run/systemd/system ]; then
	echo "# systemd runs this box: the unit's lines are still run by hand here, so the test"
	echo "# reads the same files on every box (systemctl start needs the unit installed in /)"
fi
start_unit
check "ExecStartPre + ExecStart: READY=1 (with STATUS) once leaf1 forwards, adopting the data plane" \
	eval 'eventually 30 grep -q "^READY=1|STATUS=forwarding on 2 ports" "$tmp/notify.log" &&
	      grep -q "forwarding on 2 ports" "$tmp/agent.log" &&
	      grep -q "adopting the data plane" "$tmp/agent.log"'
check "... and forwards (h1 <-> h2, both families)" \
	eval 'in_ns h1 ping -n -q -c 2 -i 0.2 -W 2 10.2.1.2 >/dev/null &&
	      in_ns h2 ping -n -q -c 2 -i 0.2 -W 2 10.1.1.2 >/dev/null &&
	      in_ns h1 ping -6 -n -q -c 2 -i 0.2 -W 2 fd00:2:1::2 >/dev/null'
journal_prefixes() {
	# every line of the journal's stream starts with <3>..<7>; info is <6>
	grep -vqE '^<[3-7]>' "$tmp/agent.log" && { grep -vE '^<[3-7]>' "$tmp/agent.log" | head -3 | sed 's/^/    /'; return 1; }
	grep -q '^<6>info: switch leaf1 forwarding on 2 ports' "$tmp/agent.log"
}
check "under the journal every log line starts with its sd-daemon priority, no time stamp" \
	journal_prefixes

reload_unit() { # ExecReload's lines in order; the first failing stops it
	local main=$1 line n=1
	while line=$(unit_line ExecReload $n) && [ -n "$line" ]; do
		line=${line//\$MAINPID/$main}
		# shellcheck disable=SC2086
		in_ns leaf1 $line >>"$tmp/reload.log" 2>&1 || return 1
		n=$((n + 1))
	done
}
before=$(grep -c . "$tmp/notify.log")
check "ExecReload (check, then HUP): RELOADING=1 with MONOTONIC_USEC, then READY=1, reloaded" \
	eval 'reload_unit $AGENT && eventually 10 grep -q "^<6>info: reloaded:" "$tmp/agent.log" &&
	      eventually 5 eval "[ \$(grep -c . $tmp/notify.log) -ge $((before + 2)) ]" &&
	      [[ $(nth_message $((before + 1))) =~ ^RELOADING=1\|MONOTONIC_USEC=[0-9]+$ ]] &&
	      [[ $(nth_message $((before + 2))) == READY=1* ]]'
cp "$tmp/etc/leaf1.json" "$tmp/good.json"
echo '{"DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}}, "PORT": {"eth1": {"mtu": "99999"}}}' \
	>"$tmp/etc/leaf1.json"
before=$(grep -c . "$tmp/notify.log")
check "a bad file fails ExecReload's check; xfabd is not signalled (no RELOADING=1)" \
	eval '! reload_unit $AGENT && grep -q "PORT|eth1" "$tmp/reload.log" && sleep 1 &&
	      [ "$(grep -c . "$tmp/notify.log")" -eq "$before" ]'
kill -HUP "$AGENT"
check "HUP with the bad file: refused at priority <3>, RELOADING=1/READY=1 all the same, forwarding" \
	eval 'eventually 10 grep -q "^<3>error: reload rejected" "$tmp/agent.log" &&
	      eventually 5 eval "[ \$(grep -c . $tmp/notify.log) -ge $((before + 2)) ]" &&
	      in_ns h1 ping -n -q -c 2 -i 0.2 -W 2 10.2.1.2 >/dev/null'
cp "$tmp/good.json" "$tmp/etc/leaf1.json"

# ---- metrics
in_ns leaf1 curl -s -m 5 http://127.0.0.1:9400/metrics >"$tmp/metrics.txt"
promtool_check() {
	promtool check metrics <"$tmp/metrics.txt" 2>&1 | sed 's/^/    /'
	[ "${PIPESTATUS[0]}" -eq 0 ]
}
check_needs promtool "promtool check metrics passes on the live endpoint" promtool_check
strict_metrics() {
	"$PY" - "$tmp/metrics.txt" <<-'EOF'
		import re, sys
		help_, type_, labels, done, cur, errs, n = {}, {}, {}, set(), None, [], 0
		for ln in open(sys.argv[1]).read().splitlines():
		    m = re.match(r"# (HELP|TYPE) (\S+) (.+)$", ln)
		    if m:
		        (help_ if m.group(1) == "HELP" else type_)[m.group(2)] = m.group(3)
		        if cur and cur != m.group(2):
		            done.add(cur)
		        cur = m.group(2)
		        continue
		    m = re.match(r"([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)$", ln)
		    if not m:
		        errs.append("unreadable: " + ln)
		        continue
		    name, n = m.group(1), n + 1
		    if name not in help_ or name not in type_:
		        errs.append("%s: no HELP or TYPE before it" % name)
		    if name != cur or name in done:
		        errs.append("%s: sample away from its family's group" % name)
		    keys = tuple(sorted(re.findall(r'(\w+)="', m.group(3) or "")))
		    if labels.setdefault(name, keys) != keys:
		        errs.append("%s: label sets %s and %s" % (name, labels[name], keys))
		    if type_.get(name) == "counter" and not name.endswith("_total"):
		        errs.append("%s: a counter not named *_total" % name)
		    float(m.group(4))
		for e in errs[:10]:
		    print("    " + e)
		print("    %d samples in %d families, %d with samples" % (n, len(type_), len(labels)))
		sys.exit(1 if errs or n < 100 or "xfab_fib_sync_routes" not in labels else 0)
	EOF
}
check "every family: HELP and TYPE first, samples together, one label set, counters *_total" \
	strict_metrics
DASH=$P/share/doc/xfab/grafana/xfab-switch.json
dashboard() {
	"$PY" - "$DASH" "$tmp/metrics.txt" "$tmp/rules.yml" <<-'EOF' || return 1
		import json, re, sys
		dash = json.load(open(sys.argv[1]))
		have = set(re.match(r"[\w:]+", l).group(0) for l in open(sys.argv[2]) if l[0] != "#")
		exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
		used = set(n for e in exprs for n in re.findall(r"\bxfab_[a-z0-9_]+", e))
		missing = sorted(used - have)
		titles = " ".join(p["title"] for p in dash["panels"])
		rows = [p["title"] for p in dash["panels"] if p["type"] == "row"]
		print("    %d queries, %d series, missing: %s; rows: %s" % (len(exprs), len(used), missing,
		      ", ".join(rows)))
		subs = {"$__rate_interval": "1m", "$switch": ".*", "$port": ".*", "$members": "eth1|eth2"}
		rules = []
		for i, e in enumerate(exprs):
		    for k in sorted(subs, key=len, reverse=True):
		        e = e.replace(k, subs[k])
		    rules.append({"record": "xfab:switch_dashboard_%d" % i, "expr": e})
		json.dump({"groups": [{"name": "dashboard", "rules": rules}]}, open(sys.argv[3], "w"))
		need = ("Ports", "Drops", "Queues", "ECN", "PFC", "groups")
		sys.exit(1 if missing or len(used) < 20 or not all(w in titles for w in need) else 0)
	EOF
	if command -v promtool >/dev/null; then
		promtool check rules "$tmp/rules.yml" | sed 's/^/    /'
		return "${PIPESTATUS[0]}"
	fi
}
check "the switch dashboard: ports, drops, queues, ECN, PFC, groups; every series live; PromQL parses" \
	dashboard

# ---- restart by the unit's rules under a ping stream; then stop
in_ns h1 ping -n -q -c 400 -i 0.01 -W 1 10.2.1.2 >"$tmp/stream.log" 2>&1 &
stream=$!
sleep 0.5
before=$(grep -c . "$tmp/notify.log")
prog_now=$(xdp_id eth1) # the first xfabd the unit ran switched the ports to its programs
kill -USR2 "$AGENT"
eventually 10 gone "$AGENT"
wait "$AGENT"
check "systemctl restart's USR2: STOPPING=1, the data plane keeps forwarding" \
	eval 'notified $before "^STOPPING=1\|STATUS=stopping; the data plane keeps forwarding" &&
	      [ "$(xdp_id eth1)" = "$prog_now" ]'
start_unit
check "... the unit's next xfabd: READY=1 again" \
	eval 'eventually 30 notified $((before + 1)) "^READY=1"'
wait "$stream"
check "... and not one ping of 400 at 100/s lost across the restart" \
	eval 'grep -q "400 packets transmitted, 400 received" "$tmp/stream.log" || { sed "s/^/    /" "$tmp/stream.log"; false; }'
before=$(grep -c . "$tmp/notify.log")
kill -TERM "$AGENT"
check "systemctl stop's TERM: STOPPING=1, leaf1's ports detached, its pins removed" \
	eval 'eventually 10 gone "$AGENT" && wait "$AGENT";
	      notified $before "^STOPPING=1\|STATUS=stopping: detaching" &&
	      [ -z "$(xdp_id eth1)" ] && [ ! -e "/sys/fs/bpf/xfab/$NAME/leaf1" ]'
AGENT=

# ---- down and uninstall
timeout 60 "$P/bin/xfab-lab" down "$TOPO" --name "$NAME" >/dev/null 2>&1
check "the installed xfab-lab takes the lab down: nothing left" \
	eval '! ip netns list | grep -q "^$NAME-" && [ ! -e "/sys/fs/bpf/xfab/$NAME" ] &&
	      [ ! -e "/run/xfab/$NAME" ] && [ ! -e "/run/xfab-lab/$NAME" ] &&
	      ! pgrep -f "$P/sbin/xfabd" >/dev/null'
uninstalled() {
	make -s -C "$ROOT" uninstall DESTDIR="$D" >/dev/null || return 1
	local left
	left=$(find "$D" ! -type d; find "$D" -path '*xfab*')
	[ -z "$left" ] || { echo "$left" | sed 's/^/    left: /'; return 1; }
}
check "make uninstall: no file and no xfab folder left in DESTDIR" uninstalled

if [ "${XFAB_TEST_DEB:-0}" = 1 ]; then
	deb_ok() {
		make -s -C "$ROOT" deb >"$tmp/deb.log" 2>&1 || { tail -20 "$tmp/deb.log"; return 1; }
		local deb
		deb=$(ls "$ROOT"/build/deb/xfab_*.deb | tail -1)
		dpkg-deb -c "$deb" >"$tmp/deb.files"
		for f in ./usr/sbin/xfabd ./usr/bin/xfabctl ./usr/bin/xfab-lab \
			./lib/systemd/system/xfabd@.service ./usr/share/man/man8/xfabctl.8.gz \
			./usr/share/bash-completion/completions/xfabctl ./usr/lib/xfab/xfab.bpf.o; do
			grep -q " $f" "$tmp/deb.files" || { echo "    $f not in the package"; return 1; }
		done
		dpkg-deb -f "$deb" Depends | tee "$tmp/deb.deps" | sed 's/^/    Depends: /'
		grep -q libbpf "$tmp/deb.deps" && grep -q libmnl "$tmp/deb.deps" &&
			grep -q iproute2 "$tmp/deb.deps"
	}
	check "make deb: the package holds the programs, unit, man pages, completion; Depends from the links" deb_ok
fi
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
