#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""bench_report.py: turn bench_guest.sh's (and bench_pair.sh's) raw lines
into a table and JSON.

    bench_report.py RAW [--json OUT] [--check [--pair-only]] [--quick]

Prints one row per figure: rdma_rxe and sroce medians (with the spread,
(max - min) / median, over the rounds), the ratio sroce/rdma_rxe and
whether sroce is at least as good (higher is better for bandwidth and
message rate, lower for latency, CPU time and memory), and in how many
rounds sroce was at least as good as rdma_rxe in the same round. A round
measures both drivers within minutes of each other, so when a noisy row's
medians disagree with its rounds the host's load moved between rounds.
The last column, p, is how likely rounds at least as bad for sroce would
be if neither driver were faster: a one-sided exact Wilcoxon signed-rank
test of the per-round ratios (signed_rank_p()). Small p means sroce is
behind beyond the noise; with 5 rounds it can go below 0.05 only when
sroce was behind in all five.
Then the speed targets of issue #7, each met or not, and the rows behind
beyond the noise (p < 0.05). The benchmark never fails on speed.
Rows named pair/ROW come from the two-guest run (bench_pair.sh: perftest
server on one guest, client on the other, the same driver on both); they
are shown as "2 guests: ..." with the unit of ROW.

--json OUT writes the raw numbers, medians and ratios.
--check prints TAP instead: one result per expected row, ok when both
drivers have a number for it in every round; exit 1 otherwise. The
two-guest rows are expected only when RAW has a pair/ row or a
"# bench: pair:" note (scripts/bench.sh writes one when the two-guest run
gave nothing), so a single-guest run checks without them. With
--pair-only only the two-guest rows are expected (bench_pair.sh's raw
file on its own, as the two-guest smoke test checks it).
--quick: the rows of the smoke mode (SROCE_BENCH_QUICK=1) only.

A driver other than rxe and sroce in RAW is a variant of sroce
(SROCE_BENCH_DRIVERS="rxe sroce sroce:adaptive_window=0"): its rows are
shown in a table of their own, against plain sroce and rdma_rxe.

When RAW has both guests' notes of the two-guest runs (scripts/bench.sh
appends guest A's), a last table gives per row and driver the frames
each guest sent per run and how many of them the other never received:
what the link dropped, which perftest's figures do not show.
"""
import json
import math
import re
import statistics
import sys

DRIVERS = ("rxe", "sroce")
BW_SIZES = (64, 4096, 65536, 1048576)


QUICK = False
PAIR = "pair/"
PAIR_NOTE = "# bench: pair:"


def has_pair(data, notes=()):
    """Did this run include the two-guest part?"""
    return (any(row.startswith(PAIR) for row in data)
            or any(n.startswith(PAIR_NOTE) for n in notes))


def pair_rows():
    """The rows of bench_pair.sh's matrix, without the pair/ prefix."""
    if QUICK:
        return ([f"{t}_bw/65536/q1" for t in ("write", "send", "read")]
                + ["write_lat/2/typ", "write_lat/2/p99"])
    rows = []
    for t in ("write", "send", "read"):
        for s in (65536, 1048576):
            for q in (1, 4):
                rows.append(f"{t}_bw/{s}/q{q}")
    for t in ("write", "send", "read"):
        for s in (2, 4096):
            rows += [f"{t}_lat/{s}/typ", f"{t}_lat/{s}/p99"]
    return rows


def expected_rows(pair=False):
    """The rows of the matrix; with pair, the two-guest ones too."""
    rows = single_rows()
    if pair:
        rows += [PAIR + r for r in pair_rows()]
    return rows


def single_rows():
    bw_sizes = (65536,) if QUICK else BW_SIZES
    lat_sizes = (2,) if QUICK else (2, 4096)
    rows = []
    for t in ("write", "send", "read"):
        for s in bw_sizes:
            for q in (1, 4):
                rows.append(f"{t}_bw/{s}/q{q}")
    for t in ("write", "send", "read"):
        for s in lat_sizes:
            rows += [f"{t}_lat/{s}/typ", f"{t}_lat/{s}/p99"]
    rows.append("atomic_bw/8/q1")
    for t in ("write", "send", "read"):
        for s in bw_sizes:
            if s >= 65536:
                rows.append(f"cpu/{t}_bw/{s}")
    for w in ("qp", "mr"):
        for k in ("slab", "vmalloc", "total"):
            rows.append(f"mem/{w}_{k}")
    return rows


def unit(row):
    if row.startswith(PAIR):
        return unit(row[len(PAIR):])
    if "_bw/" in row and not row.startswith(("cpu/", "atomic")):
        return "MB/s", True
    if row.startswith("atomic"):
        return "Mmsg/s", True
    if "_lat/" in row:
        return "us", False
    if row.startswith("cpu/"):
        return "CPU s/GiB", False
    return "B/obj", False


def label(row):
    if row.startswith(PAIR):
        return "2 guests: " + label(row[len(PAIR):])
    p = row.split("/")
    if p[0] == "mem":
        what, kind = p[1].split("_")
        return f"kmem per {'RC QP' if what == 'qp' else 'MR'} ({kind})"
    if p[0] == "cpu":
        return f"CPU/GiB ib_{p[1]} {size(int(p[2]))}"
    if p[0] == "atomic_bw":
        return "ib_atomic_bw msg rate"
    if p[0].endswith("_lat"):
        return f"ib_{p[0]} {size(int(p[1]))} {'typical' if p[2] == 'typ' else 'p99'}"
    return f"ib_{p[0]} {size(int(p[1]))} -q {p[2][1:]}"


def size(b):
    if b >= 1 << 20:
        return f"{b >> 20}MiB"
    if b >= 1024:
        return f"{b >> 10}KiB"
    return f"{b}B"


RUN_NOTE = re.compile(r"^#\s+\S+ run (\d+) on guest ([ab]): "
                      r"eth0 tx \+(\d+) rx \+(\d+)")


def parse(path):
    """The figures, the notes, and the two guests' frames per two-guest
    run (link_runs()). bench_pair.sh notes each run on each guest ("DRV
    run N on guest X: eth0 tx +T rx +R ..."; guest A's are in RAW when
    scripts/bench.sh appended them); guest B's note comes right before
    the run's R lines, which name the row."""
    data = {}   # row -> driver -> round -> value
    notes = []
    frames = {}     # run -> guest -> (tx, rx)
    rows = {}       # run -> (row, driver)
    last = None     # the run of guest B's last note
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 5 and w[0] == "R":
                _, drv, rnd, row, val = w
                try:
                    v = float(val)
                except ValueError:
                    v = math.nan
                data.setdefault(row, {}).setdefault(drv, {})[int(rnd)] = v
                if last is not None and row.startswith(PAIR):
                    rows.setdefault(last, (row, drv))
            elif line.startswith("#"):
                notes.append(line.rstrip("\n"))
                m = RUN_NOTE.match(line)
                if m:
                    run, guest, tx, rx = m.groups()
                    frames.setdefault(int(run), {})[guest] = (int(tx), int(rx))
                    last = int(run) if guest == "b" else None
    return data, notes, link_runs(frames, rows)


def summary(vals):
    good = [v for v in vals if not math.isnan(v)]
    if not good or len(good) < len(vals):
        return None
    med = statistics.median(good)
    spread = (max(good) - min(good)) / med if med else 0.0
    return {"median": med, "spread": spread, "values": vals}


def analyse(data, pair=False):
    out = {}
    rows = expected_rows(pair)
    for row in rows + sorted(set(data) - set(rows)):
        r = {"unit": unit(row)[0], "higher_is_better": unit(row)[1]}
        for d in DRIVERS:
            vals = [data.get(row, {}).get(d, {})[k]
                    for k in sorted(data.get(row, {}).get(d, {}))]
            r[d] = summary(vals) if vals else None
        if r["rxe"] and r["sroce"] and r["rxe"]["median"]:
            r["ratio"] = r["sroce"]["median"] / r["rxe"]["median"]
            r["sroce_better_or_equal"] = as_good(r["ratio"], 1,
                                                 r["higher_is_better"])
        else:
            r["ratio"] = None
            r["sroce_better_or_equal"] = None
        r["rounds"], r["rounds_ahead"] = rounds_ahead(data.get(row, {}),
                                                      r["higher_is_better"])
        r["p_behind"] = signed_rank_p(data.get(row, {}),
                                      r["higher_is_better"])
        out[row] = r
    return out


def as_good(a, b, higher_is_better):
    """Is figure a at least as good as figure b?"""
    return a >= b if higher_is_better else a <= b


def paired_rounds(by_drv):
    """(sroce, rdma_rxe) figures of every round both drivers measured."""
    rxe, sroce = by_drv.get("rxe", {}), by_drv.get("sroce", {})
    return [(sroce[k], rxe[k]) for k in sorted(set(rxe) & set(sroce))
            if not math.isnan(rxe[k]) and not math.isnan(sroce[k])]


def rounds_ahead(by_drv, higher_is_better):
    """(rounds both drivers measured, those in which sroce was at least as
    good as rdma_rxe)."""
    both = paired_rounds(by_drv)
    ahead = [a for a, b in both if as_good(a, b, higher_is_better)]
    return len(both), len(ahead)


def round_ratios(by_drv, higher_is_better):
    """log(sroce/rdma_rxe) of every round both drivers measured, positive
    when sroce was better; 0 for equal figures. A round with a figure of 0
    or below and unequal figures has no ratio and is left out."""
    out = []
    for a, b in paired_rounds(by_drv):
        if a == b:
            out.append(0.0)
        elif a > 0 and b > 0:
            d = math.log(a / b)
            out.append(d if higher_is_better else -d)
    return out


def signed_rank_p(by_drv, higher_is_better):
    """One-sided exact Wilcoxon signed-rank test that sroce is behind:
    the chance, with every round's ratio as likely above 1 as below,
    of a rank sum of sroce's better rounds no larger than the one
    measured. Rounds with equal figures drop out (all equal: 1.0); tied
    magnitudes share their mean rank. None without a round to compare."""
    d = round_ratios(by_drv, higher_is_better)
    if not d:
        return None
    d = [x for x in d if x != 0.0]
    if not d:
        return 1.0
    # Twice each magnitude's mid-rank, a whole number: magnitudes tied
    # over 1-based ranks i..j all get i + j.
    mags = [abs(x) for x in d]
    rank2 = [2 * sum(y < m for y in mags) + sum(y == m for y in mags) + 1
             for m in mags]
    observed = sum(r for r, x in zip(rank2, d) if x > 0)
    ways = {0: 1}           # rank sum -> sign patterns giving it
    for r in rank2:
        nxt = dict(ways)
        for total, n in ways.items():
            nxt[total + r] = nxt.get(total + r, 0) + n
        ways = nxt
    return sum(n for t, n in ways.items() if t <= observed) / 2 ** len(d)


def behind(res, alpha=0.05):
    """Rows where sroce is behind beyond the noise: [(row, p)]."""
    return [(row, r["p_behind"]) for row, r in res.items()
            if r["p_behind"] is not None and r["p_behind"] < alpha]


def fmt(s):
    if not s:
        return f"{'-':>10} {'':>5}"
    m = s["median"]
    v = f"{m:.4g}" if abs(m) < 1000 else f"{m:.0f}"
    return f"{v:>10} {s['spread'] * 100:>4.0f}%"


def table(res):
    w = max([30] + [len(label(row)) for row in res])
    lines = [f"{'figure':<{w}} {'unit':<9} {'rdma_rxe':>10} {'sprd':>5} "
             f"{'sroce':>10} {'sprd':>5} {'sroce/rxe':>9}  ok  rounds     p"]
    for row, r in res.items():
        ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else "-"
        ok = {True: "yes", False: "NO", None: "?"}[r["sroce_better_or_equal"]]
        rounds = f"{r['rounds_ahead']}/{r['rounds']}" if r["rounds"] else "-"
        p = f"{r['p_behind']:.2f}" if r["p_behind"] is not None else "-"
        lines.append(f"{label(row):<{w}} {r['unit']:<9} {fmt(r['rxe'])} "
                     f"{fmt(r['sroce'])} {ratio:>9}  {ok:<3} {rounds:>6} {p:>5}")
    return "\n".join(lines)


def variant_table(data):
    """Rows measured with a variant of sroce ("sroce:NAME=VALUE,...",
    SROCE_BENCH_DRIVERS): its median beside plain sroce's and rdma_rxe's
    from the same boot, and the ratios. Empty when there is none."""
    labels = sorted({d for rv in data.values() for d in rv
                     if d not in DRIVERS})
    lines = []
    for v in labels:
        lines.append(f"Variant {v} (ratios against plain sroce and rdma_rxe):")
        w = max([30] + [len(label(row)) for row in data])
        lines.append(f"{'figure':<{w}} {'unit':<9} {'sroce':>10} {'sprd':>5} "
                     f"{'variant':>10} {'sprd':>5} {'/sroce':>7} {'/rxe':>7}")
        for row in sorted(data):
            if v not in data[row]:
                continue
            s = {d: summary([data[row][d][k] for k in sorted(data[row][d])])
                 if d in data[row] else None for d in ("rxe", "sroce", v)}

            def ratio(base):
                if not s[v] or not s[base] or not s[base]["median"]:
                    return "-"
                return f"{s[v]['median'] / s[base]['median']:.2f}"
            lines.append(f"{label(row):<{w}} {unit(row)[0]:<9} {fmt(s['sroce'])} "
                         f"{fmt(s[v])} {ratio('sroce'):>7} {ratio('rxe'):>7}")
    return "\n".join(lines)


def link_runs(frames, rows):
    """Join the two guests' frame counts (run -> guest -> (tx, rx)) with
    the rows the runs measured (run -> (row, driver)). Both guests number
    their runs alike. Returns {(row, driver): [(b_tx, a_rx, a_tx, b_rx),
    ...]} for the runs noted on both guests."""
    out = {}
    for run, key in rows.items():
        g = frames.get(run, {})
        if "a" in g and "b" in g:
            (a_tx, a_rx), (b_tx, b_rx) = g["a"], g["b"]
            out.setdefault(key, []).append((b_tx, a_rx, a_tx, b_rx))
    return out


def link_table(runs):
    """Per pair row and driver, the medians over the rounds of the frames
    each guest sent and those the other never received (lost on the
    link: the UDP link drops what the receiving QEMU does not read in
    time). Empty without guest A's notes."""
    if not runs:
        return ""
    order = {r: i for i, r in enumerate(PAIR + r for r in pair_rows())}
    keys = sorted(runs, key=lambda k: (order.get(k[0], len(order)), k[0],
                                       k[1] != "rxe", k[1] != "sroce", k[1]))

    def name(row):      # a latency run gives two rows: name the test
        return re.sub(r" typical$", "", label(row))
    w = max([30] + [len(name(k[0])) for k in keys])
    dw = max([8] + [len(k[1]) for k in keys])
    lines = ["Frames per run across the link (medians; lost: sent by one "
             "guest, never received by the other):",
             f"{'figure':<{w}} {'driver':<{dw}} {'B->A sent':>9} {'lost':>6} "
             f"{'A->B sent':>9} {'lost':>6} {'runs':>4}"]
    for row, drv in keys:
        v = runs[(row, drv)]

        def m(f):
            return f"{statistics.median(f(x) for x in v):.0f}"
        lines.append(f"{name(row):<{w}} {drv:<{dw}} {m(lambda x: x[0]):>9} "
                     f"{m(lambda x: x[0] - x[1]):>6} {m(lambda x: x[2]):>9} "
                     f"{m(lambda x: x[2] - x[3]):>6} {len(v):>4}")
    return "\n".join(lines)


def med(res, row, drv):
    r = res.get(row, {}).get(drv)
    return r["median"] if r else None


def targets(res):
    """Issue #7's targets: [(description, met or None)]."""
    t = []
    first = [r["sroce_better_or_equal"] for r in res.values()
             if not (r["unit"] == "B/obj" and (r["rxe"] or {}).get("median") == 0)]
    t.append(("sroce >= rdma_rxe on every row",
              None if None in first else all(first)))
    for test in ("write", "send", "read"):
        for s in (65536, 1048576):
            for q in (1, 4):
                r = res.get(f"{test}_bw/{s}/q{q}", {}).get("ratio")
                t.append((f"ib_{test}_bw {size(s)} -q {q} >= 2x rdma_rxe",
                          None if r is None else r >= 2))
    for test in ("write", "send", "read"):
        r = res.get(f"{test}_lat/2/typ", {}).get("ratio")
        t.append((f"ib_{test}_lat 2B typical <= 0.7x rdma_rxe",
                  None if r is None else r <= 0.7))
    for test in ("write", "send", "read"):
        for s in (65536, 1048576):
            q1 = med(res, f"{test}_bw/{s}/q1", "sroce")
            q4 = med(res, f"{test}_bw/{s}/q4", "sroce")
            t.append((f"sroce ib_{test}_bw {size(s)}: -q 4 >= 1.8x -q 1",
                      None if not q1 or q4 is None else q4 / q1 >= 1.8))
    r = res.get("mem/qp_total", {}).get("ratio")
    t.append(("kernel memory per QP <= rdma_rxe", None if r is None else r <= 1))
    if any(row.startswith(PAIR) for row in res):
        for test in ("write", "send", "read"):
            for s in (65536, 1048576):
                r = res.get(f"{PAIR}{test}_bw/{s}/q1", {}).get("ratio")
                t.append((f"2 guests: ib_{test}_bw {size(s)} -q 1 >= 2x rdma_rxe",
                          None if r is None else r >= 2))
    return t


def check(data, pair=False, pair_only=False):
    rows = [PAIR + r for r in pair_rows()] if pair_only else expected_rows(pair)
    print("TAP version 13")
    print(f"1..{len(rows)}")
    failed = 0
    for i, row in enumerate(rows, 1):
        why = []
        for d in DRIVERS:
            vals = data.get(row, {}).get(d, {})
            if not vals:
                why.append(f"no {d} figure")
            elif any(math.isnan(v) for v in vals.values()):
                why.append(f"{d}: not measured in round(s) "
                           + ",".join(str(k) for k, v in vals.items() if math.isnan(v)))
        if why:
            failed += 1
            print(f"not ok {i} - {row}: both drivers measured")
            print(f"# {'; '.join(why)}")
        else:
            vals = " ".join(f"{d}={data[row][d][k]:g}" for d in DRIVERS
                            for k in sorted(data[row][d]))
            print(f"ok {i} - {row}: both drivers measured ({vals})")
    return 1 if failed else 0


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    global QUICK
    QUICK = "--quick" in argv
    data, notes, links = parse(argv[1])
    pair = has_pair(data, notes)
    if "--check" in argv:
        return check(data, pair, "--pair-only" in argv)
    res = analyse(data, pair)
    for n in notes:
        if n.startswith("# bench:") or "exit" in n or "cannot" in n:
            print(n)
    print(table(res))
    print()
    vt = variant_table(data)
    if vt:
        print(vt)
        print()
    lt = link_table(links)
    if lt:
        print(lt)
        print()
    print("Targets (never a pass/fail criterion of the benchmark):")
    tg = targets(res)
    for desc, met in tg:
        print(f"  [{ {True: 'met', False: 'NOT met', None: 'n/a'}[met] :^7}] {desc}")
    late = behind(res)
    print("Rows where sroce is behind beyond the noise (p < 0.05): "
          + (", ".join(f"{label(row)} (p {p:.3f})" for row, p in late)
             if late else "none"))
    if "--json" in argv:
        out = argv[argv.index("--json") + 1]
        with open(out, "w") as f:
            raw = {row: {d: {str(k): (None if math.isnan(v) else v)
                             for k, v in dv.items()}
                         for d, dv in rv.items()}
                   for row, rv in data.items()}
            link = {f"{row} {drv}": [dict(zip(("b_tx", "a_rx", "a_tx", "b_rx"), x))
                                     for x in v]
                    for (row, drv), v in links.items()}
            json.dump({"notes": notes, "rows": res, "raw": raw, "link": link,
                       "targets": [{"target": d, "met": m} for d, m in tg],
                       "behind": [{"row": row, "p": p} for row, p in late]},
                      f, indent=1, allow_nan=False, default=str)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
