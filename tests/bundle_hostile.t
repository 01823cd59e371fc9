#!/usr/bin/env bash
# A stranger's bundle cannot make the audit read what it should not, hang,
# fill the disk or leave files behind, and `tolproof bundle --out` never
# deletes what tolproof did not write. Archives: only regular files and
# directories under one top-level directory are extracted (a symlink-only
# archive, links to /dev/zero or out of the tree, FIFOs, devices, hard
# links, "..", absolute names, duplicates and two top-level directories
# are refused by name, before anything of them is written), within the
# limits on count, size, depth and path length. Directory bundles: a FIFO,
# a link to /dev/zero or to /etc/passwd is refused before it is read.
# --out: a directory holding someone's files, an earlier bundle with a file
# added, a foreign DIR.tar.gz and a symlink are refused and left alone.
# Interruptions: a bundle killed with -9, with SIGTERM or in its gzip
# leaves DIR and DIR.tar.gz as they were and no temporary files once the
# next run is done; an audit stopped by a signal or a crash of its worker
# removes its temporary directory; TAP lines reach a pipe before a crash.
set -u
cd "$(dirname "$0")/.."
tp=build/tolproof emu=build/tests/tool_emulate untar=build/tests/tool_untar
. tests/tap.sh

# mktar OUT.tar.gz SPEC...: a gzip'd tar of hand-made members; SPEC is
# d:NAME (directory), f:NAME:TEXT (file), l:NAME:TARGET (symlink),
# h:NAME:TARGET (hard link), p:NAME (FIFO), c:NAME (character device 1,5),
# big:NAME:BYTES (a header claiming BYTES, no data), many:DIR:N (N empty files)
mktar() {
    /usr/bin/python3 - "$@" <<'EOF'
import gzip, io, sys, tarfile
out, specs = sys.argv[1], sys.argv[2:]
buf = io.BytesIO()
t = tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT)
def info(name, type, size=0, link=""):
    i = tarfile.TarInfo(name); i.type = type; i.size = size; i.linkname = link
    i.mode = 0o755 if type == tarfile.DIRTYPE else 0o644
    return i
tail = b""
for s in specs:
    kind, name, arg = (s.split(":", 2) + ["", ""])[:3]
    if kind == "d": t.addfile(info(name, tarfile.DIRTYPE))
    elif kind == "f": t.addfile(info(name, tarfile.REGTYPE, len(arg)), io.BytesIO(arg.encode()))
    elif kind == "l": t.addfile(info(name, tarfile.SYMTYPE, link=arg))
    elif kind == "h": t.addfile(info(name, tarfile.LNKTYPE, link=arg))
    elif kind == "p": t.addfile(info(name, tarfile.FIFOTYPE))
    elif kind == "c":
        i = info(name, tarfile.CHRTYPE); i.devmajor, i.devminor = 1, 5; t.addfile(i)
    elif kind == "many":
        for k in range(int(arg)): t.addfile(info(f"{name}/f{k}", tarfile.REGTYPE))
    elif kind == "big":
        # the header alone: the data would be BYTES of zeros
        t.fileobj.write(info(name, tarfile.REGTYPE, int(arg)).tobuf(tarfile.GNU_FORMAT))
        tail = b"\0" * 4096
if tail:
    t.fileobj.write(tail)
else:
    t.close()
with gzip.open(out, "wb", compresslevel=1) as f:
    f.write(buf.getvalue())
EOF
}

# audit_refuses NAME ARCHIVE_OR_DIR PATTERN: exit 2 within 20 s, the reason on stdout
audit_refuses() {
    timeout 20 "$tp" audit --quiet "$2" >"$tmp/$1.log" 2>&1
    local rc=$?
    [ $rc = 2 ] && grep -q -- "$3" "$tmp/$1.log"
    ok $? "$1: refused (exit $rc): $(grep -o -- "$3.*" "$tmp/$1.log" | head -1 | cut -c1-70)"
}

mkdir -p "$tmp/prove" "$tmp/audit_tmp"
printf '{"oracle": "gemm", "goals": 1, "proved": 1, "provers": ["Qed"], "tiers": "T1"}\n' >"$tmp/prove/gemm.json"
"$emu" build/gen/gemm_fwd.plan.json "$tmp/run" --case tiny_1x1x1 >/dev/null 2>&1 &&
    "$tp" bundle --out "$tmp/b" --proofs "$tmp/prove" "$tmp/run" >/dev/null
ok $? "a small bundle to start from"
export TMPDIR="$tmp/audit_tmp"

# ---- archives
mktar "$tmp/symlink_only.tar.gz" "l:bundle:$tmp/b"
audit_refuses symlink_only "$tmp/symlink_only.tar.gz" "member bundle: a symbolic link"
mktar "$tmp/devzero.tar.gz" "d:b" "f:b/manifest.json:{}" "l:b/summary.md:/dev/zero"
audit_refuses devzero_link "$tmp/devzero.tar.gz" "member b/summary.md: a symbolic link"
mktar "$tmp/fifo.tar.gz" "d:b" "p:b/manifest.json"
audit_refuses fifo "$tmp/fifo.tar.gz" "member b/manifest.json: a FIFO"
mktar "$tmp/chr.tar.gz" "d:b" "c:b/manifest.json"
audit_refuses char_device "$tmp/chr.tar.gz" "member b/manifest.json: a character device"
mktar "$tmp/hard.tar.gz" "d:b" "h:b/manifest.json:/etc/passwd"
audit_refuses hard_link "$tmp/hard.tar.gz" "member b/manifest.json: a hard link"
mktar "$tmp/dotdot.tar.gz" "d:b" "f:b/../../escaped:x"
audit_refuses dotdot "$tmp/dotdot.tar.gz" 'a name with ".."'
mktar "$tmp/abs.tar.gz" "f:$tmp/planted_abs:x"
audit_refuses absolute "$tmp/abs.tar.gz" "an absolute path"
mktar "$tmp/through.tar.gz" "d:b" "l:b/l:$tmp" "f:b/l/planted:x"
audit_refuses through_link "$tmp/through.tar.gz" "member b/l: a symbolic link"
mktar "$tmp/twice.tar.gz" "d:b" "f:b/manifest.json:{}" "f:b/manifest.json:{}"
audit_refuses twice "$tmp/twice.tar.gz" "member b/manifest.json: given twice"
mktar "$tmp/two_tops.tar.gz" "d:a" "f:a/x:1" "d:b" "f:b/y:2"
audit_refuses two_tops "$tmp/two_tops.tar.gz" "members under both a/ and b/"
mktar "$tmp/top_file.tar.gz" "f:manifest.json:{}"
audit_refuses top_file "$tmp/top_file.tar.gz" "a file at the top level"
mktar "$tmp/big.tar.gz" "d:b" "big:b/manifest.json:1258291200"
audit_refuses big_member "$tmp/big.tar.gz" "member b/manifest.json: 1258291200 bytes, over the 268435456"
mktar "$tmp/many.tar.gz" "d:b" "many:b:20001"
audit_refuses many_members "$tmp/many.tar.gz" "more than 20000 files and directories"
printf 'not an archive\n' >"$tmp/text.tar.gz"
audit_refuses not_an_archive "$tmp/text.tar.gz" "cannot be audited: "
[ ! -e "$tmp/escaped" ] && [ ! -e "$tmp/planted" ] && [ ! -e "$tmp/planted_abs" ] && [ ! -e "$tmp/../escaped" ]
ok $? "no refused archive wrote anything outside its temporary directory"
[ -z "$(ls -A "$tmp/audit_tmp")" ]; ok $? "and no temporary directory is left"

# the limits themselves, small enough to reach (the audit's own are in tp_tree.h)
mktar "$tmp/sizes.tar.gz" "d:b" "f:b/one:12345" "f:b/two:12345" "d:b/c" "d:b/c/d" "f:b/c/d/e:1"
mkdir "$tmp/x1" "$tmp/x2" "$tmp/x3" "$tmp/x4" "$tmp/x5" "$tmp/x6"
"$untar" "$tmp/sizes.tar.gz" "$tmp/x1" | grep -qx b && [ "$(cat "$tmp/x1/b/c/d/e")" = 1 ]
ok $? "tool_untar extracts a well-formed archive under the default limits"
"$untar" --file-bytes 4 "$tmp/sizes.tar.gz" "$tmp/x2" | grep -q "member b/one: 5 bytes, over the 4"
ok $? "a file over the size limit is refused"
"$untar" --total-bytes 9 "$tmp/sizes.tar.gz" "$tmp/x3" | grep -q "member b/two: the files up to it hold more than the 9"
ok $? "files over the total limit are refused at the member that crosses it"
"$untar" --entries 3 "$tmp/sizes.tar.gz" "$tmp/x4" | grep -q "more than 3 files and directories"
ok $? "members over the count limit are refused"
"$untar" --depth 2 "$tmp/sizes.tar.gz" "$tmp/x5" | grep -q "nested deeper than 2"
ok $? "members nested over the depth limit are refused"
"$untar" --path 5 "$tmp/sizes.tar.gz" "$tmp/x6" | grep -q "a name longer than 5 bytes"
ok $? "names over the path limit are refused"
"$untar" --tree "$tmp/x1" --total-bytes 9 | grep -q "more than the 9 bytes"
ok $? "the same limits apply to a directory bundle"

# ---- directory bundles
copy() { rm -rf "$tmp/$1" && cp -r "$tmp/b" "$tmp/$1"; }
copy d_fifo && rm "$tmp/d_fifo/manifest.json" && mkfifo "$tmp/d_fifo/manifest.json"
audit_refuses dir_fifo "$tmp/d_fifo" "manifest.json: a FIFO"
copy d_zero && rm "$tmp/d_zero/summary.md" && ln -s /dev/zero "$tmp/d_zero/summary.md"
audit_refuses dir_devzero "$tmp/d_zero" "summary.md: a symbolic link"
copy d_mzero && rm "$tmp/d_mzero/manifest.json" && ln -s /dev/zero "$tmp/d_mzero/manifest.json"
audit_refuses dir_manifest_devzero "$tmp/d_mzero" "manifest.json: a symbolic link"
copy d_passwd && rm "$tmp/d_passwd/manifest.schema.json" && ln -s /etc/passwd "$tmp/d_passwd/manifest.schema.json"
audit_refuses dir_passwd "$tmp/d_passwd" "manifest.schema.json: a symbolic link"
! grep -q "root:" "$tmp/dir_passwd.log"; ok $? "and prints nothing of /etc/passwd"

# ---- bundle --out never deletes what tolproof did not write
mkdir -p "$tmp/thesis" && echo '{}' >"$tmp/thesis/manifest.json" && echo 'years of work' >"$tmp/thesis/thesis.tex"
"$tp" bundle --out "$tmp/thesis" --proofs "$tmp/prove" "$tmp/run" 2>"$tmp/thesis.err"
[ $? = 2 ] && grep -q "not empty and not a bundle written by tolproof" "$tmp/thesis.err" &&
    [ "$(cat "$tmp/thesis/thesis.tex")" = 'years of work' ] && [ ! -e "$tmp/thesis.tar.gz" ]
ok $? "--out DIR holding a manifest.json and a thesis is refused; the thesis is kept"
cp -r "$tmp/b" "$tmp/prev" && cp "$tmp/b.tar.gz" "$tmp/prev.tar.gz" && echo mine >"$tmp/prev/notes.txt"
"$tp" bundle --out "$tmp/prev" --proofs "$tmp/prove" "$tmp/run" 2>"$tmp/prev.err"
[ $? = 2 ] && grep -q "notes.txt is not one of its files" "$tmp/prev.err" && [ -f "$tmp/prev/notes.txt" ]
ok $? "an earlier bundle with a file added is refused; the file is kept"
echo 'my paper' >"$tmp/paper.tar.gz"
"$tp" bundle --out "$tmp/paper" --proofs "$tmp/prove" "$tmp/run" 2>"$tmp/paper.err"
[ $? = 2 ] && grep -q "paper.tar.gz exists and is not an archive of a bundle named paper" "$tmp/paper.err" &&
    [ "$(cat "$tmp/paper.tar.gz")" = 'my paper' ] && [ ! -e "$tmp/paper" ]
ok $? "a DIR.tar.gz that is not a bundle's archive is refused and kept"
mkdir -p "$tmp/elsewhere" && echo keep >"$tmp/elsewhere/keep" && ln -s "$tmp/elsewhere" "$tmp/linked"
"$tp" bundle --out "$tmp/linked" --proofs "$tmp/prove" "$tmp/run" 2>"$tmp/linked.err"
[ $? = 2 ] && grep -q "is a symbolic link" "$tmp/linked.err" && [ -f "$tmp/elsewhere/keep" ]
ok $? "--out a symbolic link is refused; its target is kept"
mkdir -p "$tmp/empty"
"$tp" bundle --out "$tmp/empty" --proofs "$tmp/prove" "$tmp/run" >/dev/null && [ -f "$tmp/empty/manifest.json" ]
ok $? "--out an empty directory is written"
[ -z "$(ls -A "$tmp" | grep '\.tolproof\.')" ]; ok $? "no temporary sibling is left by any of these"

# ---- interrupted bundles
big=(recorded/nvidia-h200/softmax_fwd recorded/nvidia-h200/embedding_fwd)
# wait_for PATTERN: until a file matching PATTERN exists (10 s at most)
wait_for() {
    for _ in $(seq 1000); do
        compgen -G "$1" >/dev/null && return 0
        sleep 0.01
    done
    return 1
}
"$tp" bundle --out "$tmp/k" --proofs "$tmp/prove" "${big[@]}" >/dev/null 2>&1 &
pid=$!
wait_for "$tmp/.k.tolproof.*/k/manifest.schema.json"
exec 3>&2 2>/dev/null # bash's "Killed" notice
kill -9 $pid
wait $pid
exec 2>&3
[ ! -e "$tmp/k" ] && [ ! -e "$tmp/k.tar.gz" ]; ok $? "a bundle killed with -9 leaves no DIR and no DIR.tar.gz"
sleep 0.5 # its worker dies with it (PR_SET_PDEATHSIG)
"$tp" bundle --out "$tmp/k" --proofs "$tmp/prove" "$tmp/run" >/dev/null
[ $? = 0 ] && [ -f "$tmp/k/manifest.json" ] && [ -z "$(ls -A "$tmp" | grep '^\.k\.tolproof')" ]
ok $? "the next run writes the bundle and removes the killed run's temporary directory"
cp "$tmp/k.tar.gz" "$tmp/k.before.tar.gz"
"$tp" bundle --out "$tmp/k" --proofs "$tmp/prove" "${big[@]}" >/dev/null 2>&1 &
pid=$!
wait_for "$tmp/.k.tolproof.*/k/manifest.schema.json"
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 143 ] && [ -z "$(ls -A "$tmp" | grep '^\.k\.tolproof')" ] && cmp -s "$tmp/k.tar.gz" "$tmp/k.before.tar.gz" &&
    [ -f "$tmp/k/manifest.json" ]
ok $? "SIGTERM: exit $rc, no temporary directory, the earlier bundle and archive untouched"
# a gzip that dies by SIGKILL half-way through its output, found first on PATH:
# deterministic, where polling for the real gzip raced a bundle that now
# finishes its archive in milliseconds
mkdir -p "$tmp/killed-gzip"
cat >"$tmp/killed-gzip/gzip" <<'SH'
#!/bin/sh
for last; do :; done
head -c 4096 "$last"
kill -9 $$
SH
chmod +x "$tmp/killed-gzip/gzip"
PATH="$tmp/killed-gzip:$PATH" "$tp" bundle --out "$tmp/k" --proofs "$tmp/prove" "${big[@]}" >/dev/null 2>"$tmp/gz.err"
rc=$?
[ $rc = 2 ] && cmp -s "$tmp/k.tar.gz" "$tmp/k.before.tar.gz" && gzip -t "$tmp/k.tar.gz" &&
    [ -z "$(ls -A "$tmp" | grep '^\.k\.tolproof')" ] && grep -q 'tar or gzip failed' "$tmp/gz.err"
ok $? "a killed gzip: exit $rc, the earlier DIR.tar.gz intact, no truncated archive, no temporary files"

# ---- interrupted audits
"$tp" bundle --out "$tmp/a" --proofs "$tmp/prove" "${big[@]}" >/dev/null
ok $? "a larger bundle to audit"
for sig in TERM INT; do
    "$tp" audit "$tmp/a.tar.gz" >"$tmp/int.log" 2>&1 &
    pid=$!
    wait_for "$tmp/audit_tmp/tolproof-audit.*/a/manifest.json"
    sleep 0.3
    kill -$sig $pid
    wait $pid
    rc=$?
    [ $rc -gt 128 ] && [ -z "$(ls -A "$tmp/audit_tmp")" ]
    ok $? "an audit stopped by SIG$sig (exit $rc) leaves no temporary directory"
done
"$tp" audit "$tmp/a.tar.gz" >"$tmp/crash.log" 2>&1 &
pid=$!
wait_for "$tmp/audit_tmp/tolproof-audit.*/a/manifest.json"
sleep 0.3
kill -SEGV "$(pgrep -P $pid | head -1)" # the worker, as a crash would
wait $pid
rc=$?
[ $rc = 2 ] && grep -q "the audit stopped on signal 11" "$tmp/crash.log" && [ -z "$(ls -A "$tmp/audit_tmp")" ] &&
    grep -q '^ok - ' "$tmp/crash.log"
ok $? "a crash of the audit's worker: exit $rc, said, the lines before it kept, no temporary directory"
"$tp" audit "$tmp/a.tar.gz" >/dev/null 2>&1 &
pid=$!
wait_for "$tmp/audit_tmp/tolproof-audit.*/a/manifest.json"
exec 3>&2 2>/dev/null
kill -9 $pid
wait $pid
exec 2>&3
sleep 0.5
left=$(ls -A "$tmp/audit_tmp" | wc -l)
"$tp" audit --quiet "$tmp/b.tar.gz" >/dev/null
[ $? = 0 ] && [ "$left" = 1 ] && [ -z "$(ls -A "$tmp/audit_tmp")" ]
ok $? "an audit killed with -9 leaves its directory ($left), which the next audit removes"

# ---- TAP lines reach a pipe before a crash
"$tp" replay recorded/nvidia-h200/softmax_fwd >"$tmp/tap.log" 2>&1 &
pid=$!
for _ in $(seq 3000); do
    [ -s "$tmp/tap.log" ] && break
    sleep 0.01
done
exec 3>&2 2>/dev/null
kill -SEGV $pid
wait $pid
exec 2>&3
grep -q '^ok - recorded/nvidia-h200/softmax_fwd/' "$tmp/tap.log"
ok $? "a replay killed by SIGSEGV after its first case has written that case's line"
tap_end
