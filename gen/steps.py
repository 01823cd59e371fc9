"""Build steps that ninja runs through gen/tpgen.py: compiling a harness with
its build fingerprint, running a harness, and the per-step JSON summaries
(each printed as a short table next to the JSON it writes)."""
import glob
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time


def _write_json(path, obj):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, sort_keys=True, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _c_str(s):
    return '"' + "".join(
        "\\\\" if c == "\\" else '\\"' if c == '"' else c if 0x20 <= ord(c) < 0x7f
        else "\\%03o" % b for c in s for b in [ord(c) if ord(c) < 256 else 63]) + '"'


def compiler_version(compiler, backend):
    """The identifying lines of `COMPILER --version` (the first line of
    nvcc's is only the driver's name, so we keep the release and build
    lines; for hipcc the HIP version and the clang version)."""
    try:
        p = subprocess.run([compiler, "--version"], capture_output=True, text=True, timeout=60)
        lines = [l.strip() for l in p.stdout.splitlines() if l.strip()]
    except (OSError, subprocess.SubprocessError) as e:
        return f"unknown ({e})"
    if backend == "cuda":
        keep = [l for l in lines if l.startswith(("Cuda compilation tools", "Build "))]
    else:
        keep = [l for l in lines if l.startswith("HIP version") or "clang version" in l]
    return "; ".join(keep or lines[:1]) or "unknown"


def cc(backend, out, argv):
    """Compile a harness: write OUT.buildinfo.h with the compiler version and
    the exact command line (which force-includes that header), then run it."""
    if not argv:
        sys.exit("tpgen cc: no compiler command after --")
    info = out + ".buildinfo.h"
    if backend == "cuda":
        inc = ["-include", info]
    else:
        inc = ["-include", info]
    cmd = [argv[0]] + inc + argv[1:]
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(info, "w") as f:
        f.write("/* Written by gen/tpgen.py cc just before the command below ran. */\n")
        f.write("#define TP_COMPILER_VERSION " + _c_str(compiler_version(argv[0], backend)) + "\n")
        f.write("#define TP_BUILD_COMMAND " + _c_str(shlex.join(cmd)) + "\n")
    return subprocess.call(cmd)


# results.json verdicts as the outcome words of expectations (harness/tp_expect.h)
_OUTCOME = {"pass": "pass", "fail": "violated", "refused": "refused", "error": "error"}


def unexpected_cases(out_dir, since=None):
    """The cases of a harness's run directory without their expected
    outcome, as [{case, expected, got}]: each case's `expect` in the run's
    plan.json (the contract's, embedded in the harness), "pass" by default.
    The harness's exit status says the same (harness/tp_expect.c); this
    list is what the step's JSON records. None when the run cannot be read,
    or when its results.json is older than `since` (a harness that stopped
    before writing leaves an earlier run's there)."""
    try:
        if since is not None and os.path.getmtime(os.path.join(out_dir, "results.json")) < since - 1:
            return None
        with open(os.path.join(out_dir, "plan.json")) as f:
            plan = json.load(f)
        with open(os.path.join(out_dir, "results.json")) as f:
            res = json.load(f)
        expect = {c["name"]: c.get("expect", "pass") for c in plan["cases"]}
        return [{"case": r.get("case"), "expected": expect.get(r.get("case"), "pass"),
                 "got": _OUTCOME.get(r.get("verdict"), "no verdict")}
                for r in res["cases"]
                if _OUTCOME.get(r.get("verdict"), "no verdict") != expect.get(r.get("case"), "pass")]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def run_harness(exe, contract, backend, status_path, out_dir=None, junit=None):
    """`ninja run`: one harness into build/runs/BACKEND/CONTRACT. Its exit
    status is the step's: 0 when every case has its expected outcome (a
    case may expect a refusal or a violation), 3 (no GPU) a skip. junit:
    the harness's --junit FILE (`ninja run` asks for
    build/runs/BACKEND/CONTRACT.junit.xml)."""
    out_dir = out_dir or f"build/runs/{backend}/{contract}"
    t0 = time.time()
    try:
        rc = subprocess.call([exe, "--out", out_dir] + (["--junit", junit] if junit else []))
    except OSError as e:
        print(f"{exe}: cannot run ({e})", file=sys.stderr)
        rc = 2
    status = {0: "as expected", 1: "unexpected verdict", 2: "unexpected refusal or error",
              3: "skipped (no GPU)"}.get(rc, "error")
    row = {"contract": contract, "backend": backend, "harness": exe,
           "out": out_dir, "exit": rc, "status": status, "seconds": round(time.time() - t0, 3)}
    if junit and rc != 3:
        row["junit"] = junit
    unexpected = unexpected_cases(out_dir, t0) if rc != 3 else []
    if unexpected is not None:
        row["unexpected"] = unexpected
    _write_json(status_path, row)
    if rc == 3:
        print(f"{contract}: no GPU on this machine: run skipped")
        return 0
    for u in unexpected or []:
        print(f"{contract}/{u['case']}: expected {u['expected']}, got {u['got']}")
    print(f"{contract} ({backend}): {status} (exit {rc}); results in {out_dir}")
    return rc


def _buildinfo(path):
    """compiler_version and build_command back from a .buildinfo.h."""
    out = {}
    try:
        with open(path) as f:
            for line in f:
                m = re.match(r'#define TP_(COMPILER_VERSION|BUILD_COMMAND) "(.*)"$', line.rstrip("\n"))
                if m:
                    val = re.sub(r"\\([0-7]{3})", lambda x: chr(int(x.group(1), 8)), m.group(2))
                    out[m.group(1).lower()] = val.replace('\\"', '"').replace("\\\\", "\\")
    except OSError:
        pass
    return out


def summary_harnesses(out, exes, backends):
    rows = []
    for b in ("cuda", "hip"):
        if b not in backends:
            rows.append({"backend": b, "status": "skipped (compiler not found at configure time)"})
    for exe in exes:
        parts = exe.split("/")
        row = {"backend": parts[-2], "contract": parts[-1], "harness": exe,
               "sha256": _sha256(exe), "bytes": os.path.getsize(exe), "status": "built"}
        row.update(_buildinfo(exe + ".buildinfo.h"))
        rows.append(row)
    _write_json(out, {"step": "harnesses", "harnesses": rows})
    print("harness | backend | status")
    for r in rows:
        print(f"{r.get('contract', '*')} | {r['backend']} | {r['status']}")
    print(f"wrote {out}")
    return 0


def summary_runs(out, statuses):
    rows = []
    for s in statuses:
        with open(s) as f:
            rows.append(json.load(f))
    _write_json(out, {"step": "run", "runs": rows})
    print("contract | backend | status | seconds")
    for r in rows:
        print(f"{r['contract']} | {r['backend']} | {r['status']} | {r['seconds']}")
    if not rows:
        print("no cuda harnesses: nothing run")
    print(f"wrote {out}")
    return 0 if all(r["exit"] in (0, 3) for r in rows) else 1


def summary_prove(out, reports):
    """Table of proof reports written by proofs/wp.sh (OUT_DIR/<name>.json
    with goals, proved, provers, seconds)."""
    rows, ok = [], True
    for rp in reports:
        name = os.path.splitext(os.path.basename(rp))[0]
        try:
            with open(rp) as f:
                r = json.load(f)
        except (OSError, ValueError) as e:
            rows.append({"oracle": name, "error": str(e)})
            ok = False
            continue
        provers = r.get("provers", [])
        if isinstance(provers, dict):
            provers = sorted(provers)
        row = {"oracle": name, "goals": r.get("goals"), "proved": r.get("proved"),
               "provers": provers, "seconds": r.get("seconds")}
        ok = ok and row["goals"] is not None and row["goals"] == row["proved"]
        rows.append(row)
    _write_json(out, {"step": "prove", "oracles": rows, "all_proved": ok})
    print("oracle | goals proved/total | provers | seconds")
    for r in rows:
        if "error" in r:
            print(f"{r['oracle']} | unreadable report: {r['error']} | - | -")
        else:
            print(f"{r['oracle']} | {r['proved']}/{r['goals']} | {','.join(map(str, r['provers']))} | {r['seconds']}")
    if not rows:
        print("no oracle with ACSL annotations: nothing proved")
    print(f"wrote {out}")
    return 0 if ok else 1


def _replay_depfile(out, dirs):
    """OUT.d for ninja: every file and folder under the replayed runs, and
    the folders that hold runs (a run added or removed changes them)."""
    deps = {"recorded"} | {os.path.dirname(d) for d in dirs} | set(glob.glob("recorded/*"))
    for d in dirs:
        for root, subdirs, files in os.walk(d):
            deps.add(root)
            deps.update(os.path.join(root, f) for f in files)
    esc = (p.replace("\\", "\\\\").replace(" ", "\\ ").replace("$", "$$") for p in sorted(deps))
    with open(out + ".d", "w") as f:
        f.write(out + ": " + " ".join(esc) + "\n")


def replay(out, tolproof):
    # recorded/variants/DEVICE/NAME is the verdict corpus (`ninja verdicts`)
    dirs = sorted(d for d in glob.glob("recorded/*/*") if os.path.isdir(d) and not d.startswith("recorded/variants/"))
    log = os.path.splitext(out)[0] + ".log"
    os.makedirs(os.path.dirname(out), exist_ok=True)
    _replay_depfile(out, dirs)
    if not dirs:
        print("no recorded runs under recorded/: replay skipped")
        _write_json(out, {"step": "replay", "recorded": [], "exit": 0, "status": "skipped (nothing recorded)"})
        return 0
    if not tolproof or not os.path.exists(tolproof):
        print("build/tolproof not built (cli/main.c missing at configure time): replay skipped")
        _write_json(out, {"step": "replay", "recorded": dirs, "exit": None,
                          "status": "skipped (no tolproof command)"})
        return 0
    with open(log, "w") as f:
        # the recorded plans predate expectations: the current contracts' plans say them
        p = subprocess.run([tolproof, "replay", "--expect-from", "build/gen"] + dirs, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        f.write(p.stdout)
    sys.stdout.write(p.stdout)
    status = "pass" if p.returncode == 0 else "fail"
    _write_json(out, {"step": "replay", "recorded": dirs, "exit": p.returncode,
                      "status": status, "log": log})
    print(f"replay of {len(dirs)} recorded run(s): {status}; wrote {out}")
    return p.returncode


def _has_gpu():
    try:
        p = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return p.returncode == 0 and "GPU" in p.stdout


def verdicts(tolproof):
    """`ninja verdicts`: with a GPU and built variants, record them into
    build/verdict-runs and tabulate those; otherwise (no nvidia-smi, or the
    harnesses report no GPU: exit 3) replay and tabulate the recorded
    corpus recorded/variants/DEVICE/NAME."""
    if not tolproof or not os.path.exists(tolproof):
        print("build/tolproof not built: verdicts skipped")
        return 0
    out = "build/verdicts.json"
    built = [f for f in sorted(glob.glob("build/variants/cuda/*")) if os.path.isfile(f) and os.access(f, os.X_OK)]
    if _has_gpu() and built:
        rc = subprocess.call(["recorded/record-variants.sh", "build/verdict-runs.tar.gz"])
        if rc != 3:
            dirs = sorted(d for d in glob.glob("build/verdict-runs/*") if os.path.isdir(d))
            if rc not in (0, 2) or not dirs:
                print(f"recorded/record-variants.sh failed (exit {rc})")
                return 1
            return subprocess.call([tolproof, "verdicts", "--json", out, "--expect-from", "build/gen"] + dirs)
    elif _has_gpu():
        print("a GPU but no variant harness in build/variants/cuda (re-run ./configure, then ninja variants)")
    print("no GPU: replaying the recorded corpus", flush=True)
    dirs = sorted(d for d in glob.glob("recorded/variants/*/*") if os.path.isdir(d))
    if not dirs:
        print("no recorded corpus under recorded/variants: nothing to tabulate")
        return 0
    # the corpus predates expectations: the current contracts' plans say them
    p = subprocess.run([tolproof, "replay", "--quiet", "--expect-from", "build/gen"] + dirs,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    tail = p.stdout.strip().splitlines()[-1:] if p.stdout.strip() else []
    print("\n".join(l for l in p.stdout.splitlines() if l.startswith("not ok")) or "\n".join(tail))
    if p.returncode != 0:
        print(f"replay of recorded/variants disagrees (exit {p.returncode}): no table")
        return 1
    return subprocess.call([tolproof, "verdicts", "--json", out, "--expect-from", "build/gen"] + dirs)
