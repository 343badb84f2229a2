#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""bench_icount_report.py: the instruction-exact table of
bench_icount.sh's raw lines (`make bench MODE=icount`).

    bench_icount_report.py RAW [--json OUT] [--check [--only REGEX]]

Under QEMU -icount shift=0 the guest's clock advances 1 ns per executed
instruction, so a CPU time of 1 us is 1,000 guest instructions. Per row
(perftest test and size) and per side -- the whole guest's busy time from
/proc/stat (on two guests: each guest's, B the client's, A the server's),
the perftest client's and the server's own CPU time -- the
table gives rdma_rxe's and sroce's CPU time per message (us, i.e.
thousands of instructions; per round trip for ib_send_lat) and per GiB
moved (s), and the ratio sroce/rdma_rxe (the same for both: the same
messages and bytes). The medians over the rounds, with the spread
(max - min) / median when there was more than one. A ratio below 1 means
sroce spent fewer instructions. A figure per message is the difference
of two runs of the row, the full one and one of BASE_ITERS iterations
(bench_icount.sh), over the difference of their iterations: perftest's
fixed cost of a run (start, QP set-up, exchange, teardown) drops out.
That fixed cost, per driver and side, is in the JSON. Then perftest's
own figure (BW in MB/s or
typical latency in us, in guest time) for both drivers.

--json OUT writes the raw figures, the medians and the ratios.
--check prints TAP instead: one result per expected row (every row of
the matrix, or those matching --only REGEX), ok when both drivers have
every figure (iterations, busy, client, server, and those of the short
run) in every round; exit 1
otherwise. Never a timing criterion.
"""
import json
import math
import re
import statistics
import sys

DRIVERS = ("rxe", "sroce")
TESTS = ("send", "write", "read")
SIZES = (64, 4096, 65536, 1048576)
SIDES = ("busy", "client", "server")
PAIR_SIDES = ("cbusy", "sbusy", "client", "server")
SIDE_LABEL = {"busy": "guest", "client": "client", "server": "server",
              "cbusy": "guest B", "sbusy": "guest A"}


def sides(data):
    """The sides of this run: one guest's, or two guests' (bench_icount.sh
    on two guests writes cbusy and sbusy, each guest's busy time)."""
    pair = any("cbusy" in fv or "sbusy" in fv for fv in data.values())
    return PAIR_SIDES if pair else SIDES


def checked(data):
    """The figures --check wants of every row, the short run's too."""
    return (("iters",) + sides(data) + ("iters0",)
            + tuple(x + "0" for x in sides(data)))
GIB = 1 << 30


def rows():
    """The matrix of bench_icount.sh, in its order."""
    out = [f"{t}_bw/{s}" for t in TESTS for s in SIZES]
    return out + ["send_lat/2"]


def parse(path):
    """row -> figure -> driver -> round -> value, and the notes."""
    data, notes = {}, []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 5 and w[0] == "R" and w[3].startswith("ic/"):
                _, drv, rnd, name, val = w
                row, _, fig = name[3:].rpartition("/")
                try:
                    v = float(val)
                except ValueError:
                    v = math.nan
                (data.setdefault(row, {}).setdefault(fig, {})
                 .setdefault(drv, {}))[int(rnd)] = v
            elif line.startswith("#"):
                notes.append(line.rstrip("\n"))
    return data, notes


def size_of(row):
    return int(row.split("/")[1])


def label(row):
    test, s = row.split("/")
    b = int(s)
    if b >= 1 << 20:
        sz = f"{b >> 20} MiB"
    elif b >= 1024:
        sz = f"{b >> 10} KiB"
    else:
        sz = f"{b} B"
    return f"ib_{test} {sz}" + (" -e" if not test.startswith("write") else "")


def median(vals):
    good = [v for v in vals if not math.isnan(v)]
    if not good or len(good) < len(vals):
        return None, None
    m = statistics.median(good)
    return m, ((max(good) - min(good)) / m if m else 0.0)


def per_round(data, row, fig, drv):
    return [data.get(row, {}).get(fig, {}).get(drv, {})[k]
            for k in sorted(data.get(row, {}).get(fig, {}).get(drv, {}))]


def analyse(data):
    """row -> {"iters", "bytes_per_msg", sides: {side: {driver: {...},
    "ratio"}}, "perf": {driver: median}}."""
    res = {}
    for row in rows() + sorted(set(data) - set(rows())):
        lat = "_lat/" in row
        # a round trip moves the message both ways
        bpm = size_of(row) * (2 if lat else 1)
        r = {"bytes_per_msg": bpm, "per": "round trip" if lat else "message",
             "sides": {}, "perf": {},
             "perf_unit": "us typical" if lat else "MB/s"}
        for side in sides(data):
            s = {}
            for d in DRIVERS:
                # per message, per round, then the median
                per_msg = []
                got = data.get(row, {})
                for k, ms in sorted(got.get(side, {}).get(d, {}).items()):
                    n = got.get("iters", {}).get(d, {}).get(k, math.nan)
                    ms0 = got.get(side + "0", {}).get(d, {}).get(k, math.nan)
                    n0 = got.get("iters0", {}).get(d, {}).get(k, math.nan)
                    per_msg.append((ms - ms0) * 1000 / (n - n0)
                                   if n - n0 > 0 else math.nan)
                m, spread = median(per_msg) if per_msg else (None, None)
                s[d] = None if m is None else {
                    "us_per_msg": m,
                    "s_per_gib": None if lat else m / 1e6 * GIB / bpm,
                    "spread": spread, "rounds": len(per_msg),
                    "ms": per_round(data, row, side, d),
                    "fixed_ms": per_round(data, row, side + "0", d)}
            # a ratio of two figures above zero only
            s["ratio"] = (s["sroce"]["us_per_msg"] / s["rxe"]["us_per_msg"]
                          if s["rxe"] and s["sroce"]
                          and s["rxe"]["us_per_msg"] > 0
                          and s["sroce"]["us_per_msg"] > 0 else None)
            r["sides"][side] = s
        for d in DRIVERS:
            r["perf"][d] = median(per_round(data, row, "perf", d))[0]
        its = {d: per_round(data, row, "iters", d) for d in DRIVERS}
        r["iters"] = next((int(v[0]) for v in its.values() if v and v[0] == v[0]), None)
        res[row] = r
    return res


def fig(x, spread=None):
    """A figure, and its spread when there is one. A side with (almost)
    nothing to do per message, such as the server of ib_write_bw, shows
    the two runs' difference, a few ticks either way."""
    if x is None:
        return "-"
    v = f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}"
    if spread and x > 0:
        v += f" ±{spread * 100:.0f}%"
    return v


def table(res):
    w = max(len(label(r)) for r in res) + 1
    head = (f"{'row':<{w}} {'side':<6} {'rxe us/msg':>11} {'sroce us/msg':>12} "
            f"{'rxe s/GiB':>10} {'sroce s/GiB':>11} {'sroce/rxe':>9}")
    lines = [head]
    for row, r in res.items():
        for i, side in enumerate(r["sides"]):
            s = r["sides"][side]
            x, y = s["rxe"] or {}, s["sroce"] or {}
            name = label(row) if i == 0 else ""
            ratio = f"{s['ratio']:.2f}" if s["ratio"] is not None else "-"
            lines.append(
                f"{name:<{w}} {SIDE_LABEL[side]:<6} "
                f"{fig(x.get('us_per_msg'), x.get('spread')):>11} "
                f"{fig(y.get('us_per_msg'), y.get('spread')):>12} "
                f"{fig(x.get('s_per_gib')):>10} {fig(y.get('s_per_gib')):>11} "
                f"{ratio:>9}")
    return "\n".join(lines)


def perf_table(res):
    w = max(len(label(r)) for r in res) + 1
    lines = [f"{'row':<{w}} {'iters':>6} {'unit':<10} {'rdma_rxe':>9} {'sroce':>9}"]
    for row, r in res.items():
        lines.append(f"{label(row):<{w}} {r['iters'] or '-':>6} {r['perf_unit']:<10} "
                     f"{fig(r['perf']['rxe']):>9} {fig(r['perf']['sroce']):>9}")
    return "\n".join(lines)


def check(data, only=None):
    want = [r for r in rows() if not only or re.search(only, r)]
    print("TAP version 13")
    print(f"1..{len(want)}")
    failed = 0
    for i, row in enumerate(want, 1):
        why = []
        # every round that measured anything of the row
        rounds = {k for fv in data.get(row, {}).values()
                  for dv in fv.values() for k in dv}
        for d in DRIVERS:
            for f in checked(data):
                vals = data.get(row, {}).get(f, {}).get(d, {})
                if not vals:
                    why.append(f"no {d} {f}")
                elif rounds - set(vals):
                    why.append(f"{d} {f}: none in round(s) "
                               + ",".join(map(str, sorted(rounds - set(vals)))))
                elif any(math.isnan(v) for v in vals.values()):
                    why.append(f"{d} {f}: nan")
                elif f == "iters" and any(v <= 0 for v in vals.values()):
                    why.append(f"{d} {f}: not positive")
        if why:
            failed += 1
            print(f"not ok {i} - icount {row}: both drivers measured")
            print(f"# {'; '.join(why)}")
        else:
            got = " ".join(f"{d}_{f}={v:g}" for d in DRIVERS for f in sides(data)
                           for v in data[row][f][d].values())
            print(f"ok {i} - icount {row}: both drivers measured ({got})")
    return 1 if failed else 0


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    data, notes = parse(argv[1])
    if "--check" in argv:
        only = argv[argv.index("--only") + 1] if "--only" in argv else None
        return check(data, only)
    res = analyse(data)
    for n in notes:
        if n.startswith("# bench:") or "exit" in n or "cannot" in n:
            print(n)
    print("CPU per message (us = thousands of guest instructions) and per "
          "GiB, sroce against rdma_rxe;")
    if sides(data) == PAIR_SIDES:
        print("Two guests: guest B runs the perftest client, guest A the "
              "server; guest A/B: that guest's")
        print("busy time (/proc/stat); client, server: the perftest "
              "processes' own CPU time.")
    else:
        print("guest: whole-guest busy time (/proc/stat); client, server: "
              "the perftest processes' own CPU time.")
    print(table(res))
    print()
    print("perftest's own figures, in guest (instruction) time:")
    print(perf_table(res))
    if "--json" in argv:
        with open(argv[argv.index("--json") + 1], "w") as f:
            raw = {row: {fg: {d: {str(k): (None if math.isnan(v) else v)
                                  for k, v in dv.items()}
                              for d, dv in fv.items()}
                         for fg, fv in rv.items()}
                   for row, rv in data.items()}
            json.dump({"mode": "icount", "notes": notes, "rows": res,
                       "raw": raw}, f, indent=1, allow_nan=False, default=str)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
