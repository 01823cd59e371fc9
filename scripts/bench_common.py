"""What scripts/bench_gemm_check.py and scripts/bench_softmax_check.py
share: timing one `tolproof check` command as a child process, and the
host's CPU name for the report. Python 3 standard library only."""
import json
import os
import platform
import subprocess
import time

TIMING_PREFIX = "tolproof: timing: "


def timed_check(cmd, threads, json_out):
    """Runs cmd with OMP_NUM_THREADS=threads: its wall time, CPU time, peak
    resident memory (ru_maxrss of the child), exit status, the verdict of
    its --json file, its --timings lines and the rest of its stderr."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read().decode(errors="replace")
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.stderr.close()
    verdict = None
    try:
        with open(json_out) as f:
            verdict = json.load(f).get("verdict")
    except (OSError, ValueError):
        pass
    lines = err.splitlines()
    return {"threads": threads, "wall_s": wall, "user_s": ru.ru_utime, "sys_s": ru.ru_stime,
            "peak_rss_mib": ru.ru_maxrss / 1024.0, "exit": os.waitstatus_to_exitcode(status), "verdict": verdict,
            "stderr": "\n".join(x for x in lines if not x.startswith(TIMING_PREFIX)).strip()[-400:],
            "command": " ".join(cmd), "timings": [x for x in lines if x.startswith(TIMING_PREFIX)]}


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
