#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Tables and plots for test/bench.sh.

Usage:
  bench-report.py iperf JSON          "Mbit/s bytes zero_intervals" of an
                                      iperf3 -J run (receiver side), or
                                      "- - -" if it has no result
  bench-report.py iperf-error JSON ERR  the error iperf3 reported, or the
                                      last line of ERR
  bench-report.py report RESULTS FACTS [--md FILE] [--plots DIR]
                                      print the tables (Markdown) to stdout;
                                      with --md also write them, with the
                                      facts, to FILE; with --plots draw
                                      DIR/bench-*.png with gnuplot

RESULTS has one line per measurement, tab-separated, as bench.sh's
record() writes them: kind tool cc rtt dir run status value bytes cpu_ticks
hwm_kb retr_guest retr_h retr_r qdrop lossdrop late zero cc_seen note.
Kinds: iperf and curl (the main table, IPv4), iperf6 (iperf3 over IPv6),
iperf4 (ours over IPv4 where the main table did not run, the IPv6 rows'
reference), series (the consecutive runs).
"""

import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

COLS = ("kind tool cc rtt dir run status value bytes cpu_ticks hwm_kb "
        "retr_guest retr_h retr_r qdrop lossdrop late zero cc_seen note").split()
TOOL_ORDER = ["host", "ours", "ours-bypass", "ours-ref", "debian-pasta",
              "slirp4netns"]
IPV6_TARGET = 0.95	# ours over IPv6 at least this much of ours over IPv4


def iperf_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def cmd_iperf(path):
    j = iperf_json(path)
    try:
        r = j["end"]["sum_received"]
        zero = sum(1 for i in j["intervals"]
                   if i["sum"]["bytes"] == 0 and not i["sum"].get("omitted"))
        print("%.1f %d %d" % (r["bits_per_second"] / 1e6, r["bytes"], zero))
    except (KeyError, TypeError, IndexError):
        print("- - -")


def cmd_iperf_error(path, err):
    j = iperf_json(path)
    if j and j.get("error"):
        print(j["error"])
        return
    try:
        with open(err, errors="replace") as f:
            lines = [x.strip() for x in f if x.strip()]
        print(lines[-1] if lines else "no output")
    except OSError:
        print("no output")


# --- report -------------------------------------------------------------------


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def load(results):
    rows = []
    with open(results) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < len(COLS):
                parts += [""] * (len(COLS) - len(parts))
            rows.append(dict(zip(COLS, parts)))
    return rows


def load_facts(path):
    facts = []
    with open(path) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("\t")
            facts.append((k, v))
    return facts


def tool_key(t):
    return (TOOL_ORDER.index(t) if t in TOOL_ORDER else 99, t)


def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def fmt(v, digits=0, none="–"):
    if v is None:
        return none
    return "%.*f" % (digits, v)


def fmt_mbps(v):
    if v is None:
        return "–"
    return "%.0f" % v if v >= 10 else "%.1f" % v


def rate_cols(cc, rtt, tool, d, c, ratio):
    """A table row's first columns: what, Mbit/s, spread, ratio to host"""
    return [cc, str(rtt), tool, d, fmt_mbps(c["med"]),
            "%s–%s" % (fmt_mbps(c["min"]), fmt_mbps(c["max"]))
            if c["n"] > 1 else "",
            fmt(ratio, 2, "" if tool == "host" else "–")]


def cost_cols(rtt, tool, c):
    """Retransmissions, link drops, CPU per GB and RSS of a row"""
    return ["–" if tool == "host" else fmt(c["retr_guest"]),
            fmt(c["retr_beyond"]),
            fmt(c["drops"]) if rtt else "–",
            "–" if tool == "host" else fmt(c["cpu"], 1),
            "–" if tool == "host" else fmt(c["rss"], 1)]


class Report:
    def __init__(self, rows, facts):
        self.rows = rows
        self.facts = dict(facts)
        self.fact_list = facts
        self.clk = num(self.facts.get("clk_tck")) or 100.0
        self.timeout = num(self.facts.get("curl_timeout")) or 30.0

    def select(self, **kw):
        return [r for r in self.rows
                if all(r[k] == v for k, v in kw.items())]

    def keys(self, kind):
        seen = []
        for r in self.rows:
            k = (r["cc"], int(r["rtt"]))
            if r["kind"] == kind and k not in seen:
                seen.append(k)
        ccs = []
        for cc, _ in seen:
            if cc not in ccs:
                ccs.append(cc)
        return [(cc, rtt) for cc in ccs
                for rtt in sorted({r for c, r in seen if c == cc})]

    def tools(self):
        return sorted({r["tool"] for r in self.rows}, key=tool_key)

    # One row of the main table: iperf3 and curl for (cc, rtt, tool, dir);
    # kind "iperf6" or "iperf4": the iperf3 runs of that kind, no curl
    def cell(self, cc, rtt, tool, d, kind="iperf"):
        runs = self.select(kind=kind, cc=cc, rtt=str(rtt), tool=tool, dir=d)
        curls = self.select(kind="curl", cc=cc, rtt=str(rtt), tool=tool,
                            dir=d) if kind == "iperf" else []
        okr = [r for r in runs if r["status"] == "ok"]
        # A failed or stalled run moved nothing: it counts as 0 in the
        # median, and is named in the notes
        vals = [num(r["value"]) or 0.0 for r in runs]
        c = {"n": len(runs), "notes": []}
        c["med"] = med(vals)
        c["min"] = min(vals) if vals else None
        c["max"] = max(vals) if vals else None
        c["retr_guest"] = med([num(r["retr_guest"]) for r in runs])
        beyond = "retr_h" if d == "upload" else "retr_r"
        c["retr_beyond"] = med([num(r[beyond]) for r in runs])
        c["drops"] = med([(num(r["qdrop"]) or 0) + (num(r["lossdrop"]) or 0)
                          for r in runs])
        # Whole runs only, summed: one clock tick (10 ms) is noise on a
        # small transfer, so below 20 MB there is no figure
        ticks = sum(num(r["cpu_ticks"]) or 0 for r in okr
                    if num(r["cpu_ticks"]) is not None)
        moved = sum(num(r["bytes"]) or 0 for r in okr
                    if num(r["cpu_ticks"]) is not None)
        c["cpu"] = (ticks / self.clk / (moved / 1e9)) if moved >= 20e6 \
            else None
        hwm = [num(r["hwm_kb"]) for r in runs if num(r["hwm_kb"])]
        c["rss"] = max(hwm) / 1024 if hwm else None
        cvals = [num(r["value"]) for r in curls]
        c["http"] = med(cvals)
        c["http_n"] = len(curls)
        c["http_bad"] = [r for r in curls if r["status"] != "ok"]

        bad = [r for r in runs if r["status"] != "ok"]
        for st in ("stall", "fail", "skip"):
            n = sum(1 for r in bad if r["status"] == st)
            if n:
                c["notes"].append("%d/%d iperf3 %s" % (n, len(runs), st))
        zero = sum(int(num(r["zero"]) or 0) for r in okr)
        if zero:
            c["notes"].append("%d zero-rate s" % zero)
        for st in ("timeout", "stall", "fail", "skip"):
            n = sum(1 for r in c["http_bad"] if r["status"] == st)
            if n:
                c["notes"].append("%d/%d HTTP %s" % (n, len(curls), st))
        late = sum(int(num(r["late"]) or 0) for r in runs + curls)
        if late:
            c["notes"].append("%d late frames" % late)
        want = cc
        for r in runs + curls:
            if tool != "host" and r["cc_seen"] and r["cc_seen"] != want:
                c["notes"].append("guest CC %s!" % r["cc_seen"])
                break
        c["values"] = vals
        return c

    def main_table(self):
        out = []
        hdr = ["CC", "RTT ms", "tool", "dir", "Mbit/s", "min–max",
               "×host", "retr guest", "retr beyond", "link drops",
               "CPU s/GB", "RSS MiB", "HTTP s", "×host", "notes"]
        out.append("| " + " | ".join(hdr) + " |")
        out.append("|" + "|".join(["---"] * 4 + ["--:"] * 10 + ["---"]) + "|")
        for cc, rtt in self.keys("iperf") or self.keys("curl"):
            for d in ("upload", "download"):
                host = self.cell(cc, rtt, "host", d)
                for tool in self.tools():
                    c = self.cell(cc, rtt, tool, d)
                    if not c["n"] and not c["http_n"]:
                        continue
                    ratio = http_ratio = None
                    if tool != "host":
                        if host["med"] and c["med"] is not None:
                            ratio = c["med"] / host["med"]
                        if host["http"] and c["http"] is not None:
                            http_ratio = c["http"] / host["http"]
                    http = fmt(c["http"], 2)
                    if c["http_bad"]:
                        http += "!"
                    out.append("| " + " | ".join(
                        rate_cols(cc, rtt, tool, d, c, ratio) +
                        cost_cols(rtt, tool, c) + [
                            http,
                            fmt(http_ratio, 2,
                                "" if tool == "host" else "–"),
                            "; ".join(c["notes"]),
                        ]) + " |")
        return out

    # The IPv6 rows: each tool over IPv6 beside the host's IPv6 and beside
    # its own IPv4 figure of the same run
    def ipv6_table(self):
        keys = self.keys("iperf6")
        if not keys:
            return [], []
        tools = sorted({r["tool"] for r in self.rows
                        if r["kind"] == "iperf6"}, key=tool_key)
        hdr = ["CC", "RTT ms", "tool", "dir", "IPv6 Mbit/s", "min–max",
               "×host IPv6", "IPv4 Mbit/s", "IPv6 ÷ IPv4", "retr guest",
               "retr beyond", "link drops", "CPU s/GB", "RSS MiB", "notes"]
        out = ["| " + " | ".join(hdr) + " |",
               "|" + "|".join(["---"] * 4 + ["--:"] * 10 + ["---"]) + "|"]
        ours = []
        for cc, rtt in keys:
            for d in ("upload", "download"):
                host = self.cell(cc, rtt, "host", d, "iperf6")
                for tool in tools:
                    c = self.cell(cc, rtt, tool, d, "iperf6")
                    if not c["n"]:
                        continue
                    c4 = self.cell(cc, rtt, tool, d, "iperf")
                    if not c4["n"]:
                        c4 = self.cell(cc, rtt, tool, d, "iperf4")
                    ratio = r64 = None
                    if tool != "host" and host["med"] and \
                            c["med"] is not None:
                        ratio = c["med"] / host["med"]
                    if c4["med"] and c["med"] is not None:
                        r64 = c["med"] / c4["med"]
                    notes = list(c["notes"])
                    # what went wrong over IPv4 (not its late frames)
                    bad4 = [n for n in c4["notes"] if "iperf3" in n or
                            "zero-rate" in n]
                    if c4["n"] and bad4:
                        notes.append("IPv4: " + ", ".join(bad4))
                    if tool == "ours":
                        ours.append((r64, cc, rtt, d))
                        if r64 is not None and r64 < IPV6_TARGET:
                            notes.append("**below %d%% of IPv4**" %
                                         round(IPV6_TARGET * 100))
                    out.append("| " + " | ".join(
                        rate_cols(cc, rtt, tool, d, c, ratio) + [
                            fmt_mbps(c4["med"]) if c4["n"] else "–",
                            fmt(r64, 2),
                        ] + cost_cols(rtt, tool, c) + ["; ".join(notes)])
                        + " |")
        summary = []
        have = [o for o in ours if o[0] is not None]
        if have:
            good = sum(1 for o in have if o[0] >= IPV6_TARGET)
            low = min(have)
            summary.append(
                "ours, IPv6 ÷ IPv4: %d of %d row(s) within %d%% of IPv4 "
                "(target: all); lowest %.2f (%s, %d ms, %s)." % (
                    good, len(have), round((1 - IPV6_TARGET) * 100),
                    low[0], low[1], low[2], low[3]))
        elif ours:
            summary.append("ours, IPv6 ÷ IPv4: no IPv4 figure to compare.")
        return out, summary

    # The seeds' script: network ping_time download_time upload_time
    def seed_tables(self):
        out = []
        for cc, rtt0 in self.keys("curl"):
            if rtt0 != min(r for c, r in self.keys("curl") if c == cc):
                continue
            out.append("")
            out.append("congestion control %s, medians of %s run(s), "
                       "timeouts counted as %.1f s and marked *:" %
                       (cc, self.facts.get("curl_runs", "?"), self.timeout))
            out.append("")
            out.append("    network\tping_time\tdownload_time\tupload_time")
            for c2, rtt in self.keys("curl"):
                if c2 != cc:
                    continue
                for tool in self.tools():
                    line = ["    " + tool, "%dms" % rtt]
                    for d in ("download", "upload"):
                        rs = self.select(kind="curl", cc=cc, rtt=str(rtt),
                                         tool=tool, dir=d)
                        m = med([num(r["value"]) for r in rs])
                        s = fmt(m, 6, "n/a")
                        if any(r["status"] != "ok" for r in rs):
                            s += "*"
                        line.append(s)
                    out.append("\t".join(line))
        return out

    def series_table(self):
        rows = self.select(kind="series")
        if not rows:
            return []
        n = max(int(r["run"]) for r in rows)
        cc, rtt = rows[0]["cc"], rows[0]["rtt"]
        out = ["| tool | dir | " +
               " | ".join("%d" % i for i in range(1, n + 1)) +
               " | median | min/max | pattern |",
               "|---|---|" + "--:|" * (n + 2) + "---|"]
        for tool in self.tools():
            for d in ("upload", "download"):
                rs = sorted(self.select(kind="series", tool=tool, dir=d),
                            key=lambda r: int(r["run"]))
                if not rs:
                    continue
                vals = [num(r["value"]) or 0.0 for r in rs]
                cells = []
                for r, v in zip(rs, vals):
                    s = fmt_mbps(v)
                    if r["status"] != "ok":
                        s = r["status"]
                    cells.append(s)
                cells += [""] * (n - len(cells))
                lo, hi = min(vals), max(vals)
                out.append("| %s | %s | %s | %s | %s | %s |" % (
                    tool, d, " | ".join(cells), fmt_mbps(med(vals)),
                    fmt(lo / hi if hi else None, 2), pattern(vals)))
        return ["iperf3, %s, %s ms RTT, %s consecutive runs per tool and "
                "direction, Mbit/s:" % (cc, rtt, n), ""] + out

    def raw(self):
        out = ["| kind | CC | RTT | tool | dir | run | status | value | "
               "CPU ticks | VmHWM kB | retr guest | retr H | retr R | qdrop "
               "| lossdrop | late | zero s | note |",
               "|" + "---|" * 18]
        for r in self.rows:
            out.append("| " + " | ".join(r[k] or "" for k in (
                "kind", "cc", "rtt", "tool", "dir", "run", "status", "value",
                "cpu_ticks", "hwm_kb", "retr_guest", "retr_h", "retr_r",
                "qdrop", "lossdrop", "late", "zero", "note")) + " |")
        return out


def pattern(vals):
    """'bimodal' if the sorted values split at a gap of more than 2x into
    two groups, each of at least one run; else 'steady' or 'spread'."""
    s = sorted(vals)
    if len(s) < 3 or s[-1] <= 0:
        return ""
    best, at = 1.0, None
    for i in range(1, len(s)):
        lo = max(s[i - 1], 0.01 * s[-1])
        if s[i] / lo > best:
            best, at = s[i] / lo, i
    if best > 2 and at is not None:
        return "bimodal: %d of %d runs at %s–%s" % (
            at, len(s), fmt_mbps(s[0]), fmt_mbps(s[at - 1]))
    return "steady" if s[0] / s[-1] > 0.8 else "spread"


# --- plots ---------------------------------------------------------------------

def gnuplot(script, workdir):
    if not shutil.which("gnuplot"):
        print("bench-report: gnuplot not installed, no plots", file=sys.stderr)
        return False
    path = os.path.join(workdir, "plot.gp")
    with open(path, "w") as f:
        f.write(script)
    r = subprocess.run(["gnuplot", path], capture_output=True, text=True)
    if r.returncode:
        print("bench-report: gnuplot: " + r.stderr, file=sys.stderr)
        return False
    return True


def plots(rep, outdir):
    made = []
    work = tempfile.mkdtemp(prefix="bench-plot.")
    try:
        tools = rep.tools()
        ccs = []
        for cc, _ in rep.keys("iperf"):
            if cc not in ccs:
                ccs.append(cc)
        for cc in ccs:
            rtts = [r for c, r in rep.keys("iperf") if c == cc]
            lo, hi = None, None
            for d in ("upload", "download"):
                for tool in tools:
                    with open(os.path.join(work, "%s-%s.dat" % (d, tool)),
                              "w") as f:
                        for i, rtt in enumerate(rtts):
                            c = rep.cell(cc, rtt, tool, d)
                            if not c["n"]:
                                continue
                            # log scale: a stalled 0 is drawn at 0.1
                            v = [max(c[k], 0.1) for k in ("med", "min", "max")]
                            f.write("%d %g %g %g\n" % (i, v[0], v[1], v[2]))
                            lo = min(lo or v[1], v[1])
                            hi = max(hi or v[2], v[2])
            if lo is None:
                continue
            ylo = 10 ** math.floor(math.log10(lo))
            yhi = 10 ** math.ceil(math.log10(hi * 1.2))
            png = os.path.join(outdir, "bench-throughput-%s.png" % cc)
            gp = ["set terminal pngcairo size 1200,560 font 'sans,11'",
                  "set output '%s'" % png,
                  "set multiplot layout 1,2 title \"iperf3 to a server "
                  "RTT away, %s: median and min-max of %s run(s) of %s s; "
                  "link 0 ms: veth, otherwise %s Mbit/s; a stall is drawn "
                  "at 0.1\" font ',12'" %
                  (cc, rep.facts.get("runs", "?"), rep.facts.get("secs", "?"),
                   rep.facts.get("rate_mbit", "?")),
                  "set logscale y", "set grid",
                  "set yrange [%g:%g]" % (ylo, yhi),
                  "set xlabel 'RTT (ms)'", "set ylabel 'Mbit/s (receiver)'",
                  "set xtics (%s)" % ", ".join("'%d' %d" % (r, i)
                                              for i, r in enumerate(rtts)),
                  "set xrange [-0.5:%g]" % (len(rtts) - 0.5),
                  "set key outside bottom center horizontal"]
            for d in ("upload", "download"):
                gp.append("set title '%s (the client %s)'" % (
                    d, "sends" if d == "upload" else "receives"))
                parts = []
                for i, tool in enumerate(tools):
                    dat = os.path.join(work, "%s-%s.dat" % (d, tool))
                    off = (i - (len(tools) - 1) / 2) * 0.06
                    parts.append("'%s' using ($1%+g):2:3:4 with yerrorlines "
                                 "lw 2 pt %d ps 1.3 title '%s'" %
                                 (dat, off, i + 5, tool))
                gp.append("plot " + ", \\\n  ".join(parts))
            gp.append("unset multiplot")
            if gnuplot("\n".join(gp) + "\n", work):
                made.append(png)

        rows = rep.select(kind="series")
        if rows:
            rtt = rows[0]["rtt"]
            for d in ("upload", "download"):
                for tool in tools:
                    with open(os.path.join(work, "s-%s-%s.dat" % (d, tool)),
                              "w") as f:
                        for r in rep.select(kind="series", tool=tool, dir=d):
                            f.write("%s %g\n" % (r["run"],
                                                 max(num(r["value"]) or 0, 0.1)))
            vals = [max(num(r["value"]) or 0, 0.1) for r in rows]
            ylo = 10 ** math.floor(math.log10(min(vals)))
            yhi = 10 ** math.ceil(math.log10(max(vals) * 1.2))
            png = os.path.join(outdir, "bench-series-%sms.png" % rtt)
            gp = ["set terminal pngcairo size 1200,520 font 'sans,11'",
                  "set output '%s'" % png,
                  "set multiplot layout 1,2 title 'iperf3, %s consecutive "
                  "runs of %s s per tool at %s ms RTT, %s; a stall is drawn "
                  "at 0.1' font ',12'" %
                  (max(int(r["run"]) for r in rows),
                   rep.facts.get("series_secs", "?"), rtt, rows[0]["cc"]),
                  "set logscale y", "set grid", "set xlabel 'run'",
                  "set yrange [%g:%g]" % (ylo, yhi),
                  "set ylabel 'Mbit/s (receiver)'", "set xtics 1",
                  "set key outside bottom center horizontal"]
            for d in ("upload", "download"):
                gp.append("set title '%s'" % d)
                parts = ["'%s' using 1:2 with linespoints lw 2 pt %d "
                         "title '%s'" % (os.path.join(
                             work, "s-%s-%s.dat" % (d, tool)), i + 5, tool)
                         for i, tool in enumerate(tools)]
                gp.append("plot " + ", \\\n  ".join(parts))
            gp.append("unset multiplot")
            if gnuplot("\n".join(gp) + "\n", work):
                made.append(png)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return made


# --- Markdown -------------------------------------------------------------------

METHOD = """\
Method: two network namespaces, H (where the host-direct client and every
translator run, as an unprivileged user) and R (the server, 198.51.100.1 on
its loopback, not the gateway), joined by a veth at RTT 0 and otherwise by
test/delayline (one-way delay RTT/2, rate cap per direction, MTU 1500).
Tools: **host** runs the client directly in H; **ours** is `./pasta
--config-net -- CMD`; **ours-bypass** is `./pasta --bypass --config-net --
CMD` (the command's TCP connections handed over to H); **debian-pasta** is `/usr/bin/pasta --config-net --
CMD`; **slirp4netns** serves a namespace made by `unshare -rn` (`--configure
--mtu=65520 --disable-host-loopback --cidr 192.0.2.0/24`). Each transfer
gets a fresh translator. The congestion control is set in H, R and the
client's namespace; tcp_rmem and tcp_wmem are the same everywhere (below).
Runs are sequential, tools interleaved within each round; the consecutive
runs are back to back per tool. The machine runs other work too: the load
average, the steal time and the delay line's late frames below say how
much."""


LEGEND = """\
Columns: **Mbit/s** is the median of the iperf3 runs, receiver side (a
stalled or failed run counts as 0); **×host** is the tool's median over
the host's, measured in the same bench run; **retr guest** is
TcpRetransSegs in the client's namespace (the guest's kernel sending to
the translator: meaningful for uploads; for downloads the translator
itself retransmits towards the guest, which no kernel counter sees);
**retr beyond** is TcpRetransSegs in the namespace that sends over the
link, H (the translator's socket, or the host client) for uploads and R
(the server) for downloads; **link drops** are the delay line's queue and
loss drops, both directions (– on the veth); all three are medians per
run. **CPU s/GB** is the translator's utime+stime over the transfer
divided by the bytes received, over all runs (– below 20 MB); **RSS MiB** its peak (VmHWM), the largest
over the runs. **HTTP s** is the median curl time_total of the HTTP
download (download rows) or upload (upload rows), ! if a run timed out or
failed (counted as the timeout); its **×host** is time over the host's
time (higher is slower). Notes: runs that stalled (killed) or failed,
runs skipped after repeated stalls (counted as 0, or as the timeout),
seconds of zero throughput within successful iperf3 runs, frames the delay
line delivered late (over 1 ms; a disturbed run)."""


IPV6_METHOD = """\
iperf3 over IPv6, from H's 2001:db8:1::1/64 (default route via
2001:db8:1::2) to 2001:db8:2::1 on R's loopback (not the gateway),
through the same link, delay line and bench run as the IPv4 rows above,
in the same rounds: each round runs every tool over IPv4, then every IPv6
tool over IPv6, for each direction. **host** is H's own IPv6, the
baseline; **ours** and **debian-pasta** copy H's IPv6 address and
default route into their namespace (`--config-net`); **slirp4netns**
runs with `--enable-ipv6`: its namespace gets fd00::/64 by SLAAC from
slirp's router advertisements (the run waits, at most 8 s, until the
address has passed duplicate address detection, before it measures), and
it connects to the server from H's address. **IPv6 Mbit/s** is the
median over IPv6; **×host IPv6** is that over the host's IPv6 median;
**IPv4 Mbit/s** is the same tool's IPv4 median at this RTT and congestion
control in this run (the main table's, or where the main table did not
run there, ours measured over IPv4 in the same rounds); **IPv6 ÷ IPv4**
is the ratio of the two. The target for ours is IPv6 within %d%% of its
IPv4 figure (IPv6 ÷ IPv4 at least %.2f): rows below it are marked. The
other columns are the main table's."""


# Sections of benchmarks.md that other commands write (`make load`) or
# that sum up several benchmarks by hand: a new run of the table keeps
# them, at the end, as they are
KEPT_SECTIONS = ("## Load", "## Issue 13's targets")


def kept_sections(path):
    try:
        with open(path) as fh:
            old = fh.read().split("\n")
    except OSError:
        return []
    kept, keep = [], False
    for line in old:
        if line.startswith("## "):
            keep = line.startswith(KEPT_SECTIONS)
        if keep:
            kept.append(line)
    return kept


def write_md(path, rep, main, seeds, series, made, ipv6=None):
    f = rep.facts
    lines = ["# Benchmarks", "",
             "Generated by `test/bench.sh` (`make bench`); do not edit by "
             "hand, run it again. Topology and method: the header of "
             "test/bench.sh and test/bench-lib.sh.", "",
             "Command: `%s`" % f.get("command", "?"), "",
             "## Machine and tools", ""]
    lines.append("| | |")
    lines.append("|---|---|")
    facts = [kv for kv in rep.fact_list if not kv[0].startswith("measured")]
    facts += [kv for kv in rep.fact_list if kv[0].startswith("measured")]
    for k, v in facts:
        if k == "command":
            continue
        lines.append("| %s | %s |" % (k, v.replace("|", "\\|")))
    lines += ["", "## Throughput, retransmissions, cost", "", METHOD, "",
              LEGEND, ""]
    lines += main
    for png in made:
        lines += ["", "![%s](%s)" % (os.path.basename(png),
                                     os.path.basename(png))]
    if ipv6 and ipv6[0]:
        lines += ["", "## IPv6", "",
                  "Command: `%s`" % f.get("command", "?"), "",
                  "IPv6 rows: %s; tools: %s." % (
                      f.get("ipv6", "?"), f.get("ipv6_tools", "?")), "",
                  IPV6_METHOD % (round((1 - IPV6_TARGET) * 100),
                                 IPV6_TARGET), ""]
        lines += ipv6[0]
        if ipv6[1]:
            lines += [""] + ipv6[1]
    if seeds:
        lines += ["", "## HTTP transfers, in the format of the issue's "
                  "script", ""] + seeds
    if series:
        lines += ["", "## Consecutive runs", ""] + series
    lines += ["", "## Every run", "", "<details><summary>%d measurements"
              "</summary>" % len(rep.rows), ""] + rep.raw() + \
        ["", "</details>", ""]
    lines += kept_sections(path)
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        fh.write("\n".join(lines))
    os.rename(tmp, path)


def cmd_report(args):
    results, facts = args[0], args[1]
    md = plotdir = None
    rest = args[2:]
    while rest:
        if rest[0] == "--md":
            md = rest[1]
        elif rest[0] == "--plots":
            plotdir = rest[1]
        else:
            sys.exit("bench-report: unknown option " + rest[0])
        rest = rest[2:]
    rep = Report(load(results), load_facts(facts))
    main = rep.main_table()
    seeds = rep.seed_tables()
    series = rep.series_table()
    ipv6 = rep.ipv6_table()
    print("\n".join(main))
    if ipv6[0]:
        print()
        print("IPv6:")
        print("\n".join(ipv6[0] + ipv6[1]))
    if seeds:
        print("\n".join(seeds))
    if series:
        print()
        print("\n".join(series))
    made = plots(rep, plotdir) if plotdir else []
    if md:
        write_md(md, rep, main, seeds, series, made, ipv6)
        print("\nwritten: %s" % " ".join([md] + made))


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "iperf":
        cmd_iperf(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "iperf-error":
        cmd_iperf_error(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == "report":
        cmd_report(sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
