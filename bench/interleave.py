"""Round-by-round interleaving for the benchmarks (bench/emit.py, bench/interp.py).

Timing all of one side and then all of the other lets a change in the
machine's load between the two phases decide the ratio. Here every round
times each side once (one measurement = the median, or mean, of a few runs
inside that side), the order of the sides rotated from round to round, and
the result for a pair of sides is the median over rounds of the per-round
ratio, with its min and max.
"""
import platform
import statistics


def cpu_model():
    """The CPU model and the SIMD extensions that matter to the kernels."""
    name, flags = platform.processor() or platform.machine(), set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                k = k.strip()
                if k in ("model name", "Model") and name in ("", platform.machine(), platform.processor()):
                    name = v.strip()
                elif k in ("flags", "Features") and not flags:
                    flags = set(v.split())
    except OSError:
        pass
    isa = [f for f in ("sse4_1", "avx2", "avx_vnni", "avx512f", "avx512_vnni", "amx_int8", "asimd", "asimddp", "sve")
           if f in flags]
    return "%s (%s)" % (name, " ".join(isa) or "no SIMD flags known")


def interleave(sides, rounds, log=None):
    """sides: list of (name, fn) with fn() -> ms for one measurement.
    Returns {name: [ms per round]}; round r runs the sides starting at r mod n."""
    times = {name: [] for name, _ in sides}
    n = len(sides)
    for r in range(rounds):
        order = [sides[(r + k) % n] for k in range(n)]
        for name, fn in order:
            times[name].append(fn())
        if log:
            log("round %d/%d: %s" % (r + 1, rounds, ", ".join(
                "%s %.2f ms" % (name, times[name][-1]) for name, _ in sides)))
    return times


def ratio(num, den):
    """Median, min and max of the per-round ratios num[r] / den[r]."""
    rs = [a / b for a, b in zip(num, den) if b > 0]
    if not rs:
        return None
    return statistics.median(rs), min(rs), max(rs)


def fmt_ratio(r):
    return "n/a" if r is None else "%.2f (%.2f-%.2f)" % r
