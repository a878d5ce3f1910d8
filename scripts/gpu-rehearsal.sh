#!/usr/bin/env bash
# Rehearses the GPU check here, so that its first run on the GPU machine is not its first run at
# all: every stage that needs no GPU runs with gpu-bundle/ in a root that lacks what that machine
# lacks, and without network. The root is this machine's own / seen through an overlay in which the
# files of our Debian build dependencies (CLI11, nlohmann-json, zlib headers, libsodium, libelf,
# GoogleTest) and of dataset-fashion-mnist are deleted (whiteouts), entered with chroot in new
# mount and network namespaces (only a loopback device). Into it goes a copy of the working tree
# made as the device tool makes it (tracked and untracked-but-not-ignored files, plus the carried
# gpu-bundle/), with no ../shared beside it.
# Needs root (mount, chroot). Stage limits are scaled by 16 / cores, the GPU machine's core count.
# usage: scripts/gpu-rehearsal.sh OUT        (or scripts/gpu-check.sh --rehearse OUT)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu-rehearsal.sh OUT}
[ "$(id -u)" -eq 0 ] || { echo "gpu-rehearsal: needs root (overlay mount, chroot, network namespace)" >&2; exit 2; }
grep -qw overlay /proc/filesystems || { echo "gpu-rehearsal: this kernel has no overlayfs" >&2; exit 2; }
[ -f gpu-bundle/MANIFEST ] || scripts/gpu-bundle.sh
python=${PYTHON:-${DLREADY_VENV:-$HOME/.cache/dlready/venv-torch2.11.0-tv0.26.0}/bin/python}
"$python" -c 'import torch' 2>/dev/null || { echo "gpu-rehearsal: no torch for $python: run scripts/setup.sh" >&2; exit 2; }

hidden=(libcli11-dev nlohmann-json3-dev zlib1g-dev libsodium-dev libsodium23 libelf-dev libgtest-dev
  libgmock-dev googletest dataset-fashion-mnist)
work=${DLREADY_REHEARSAL_DIR:-/var/tmp/dlready-rehearsal}   # on disk: the build is large
upper=$(mktemp -d /dev/shm/dlready-rehearsal-XXXXXX)           # whiteouts only
trap 'rm -rf "$upper"' EXIT
rm -rf "$work" && mkdir -p "$work/tree" "$work/out"

# The working tree as the device tool carries it.
git ls-files -z -co --exclude-standard | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$work/tree"
cp -a gpu-bundle "$work/tree/"

# Whiteouts (character devices 0:0 in the upper layer) for every file of the hidden packages.
n=0
for p in "${hidden[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || continue
  while read -r f; do
    [ -e "$f" ] || [ -L "$f" ] || continue
    [ -d "$f" ] && [ ! -L "$f" ] && continue
    mkdir -p "$upper/root$(dirname "$f")"
    mknod "$upper/root$f" c 0 0 && n=$((n + 1))
  done < <(dpkg -L "$p")
done
echo "gpu-rehearsal: $n files of ${hidden[*]} hidden; no network; tree copied to $work/tree"
mkdir -p "$upper/root" "$upper/work" "$upper/merged"

scale=$(((16 + $(nproc) - 1) / $(nproc)))
start=$SECONDS
rc=0
unshare --mount --net --propagation private -- bash -c '
  set -e
  m=$1/merged
  mount -t overlay overlay -o lowerdir=/,upperdir=$1/root,workdir=$1/work "$m"
  for d in proc sys dev; do mount --rbind /$d "$m/$d"; done
  ip link set lo up   # a new network namespace starts with its loopback down; the GPU machine has one
  mount --bind "$2" "$m$2"
  exec chroot "$m" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$HOME" PYTHON="$3" \
    DLREADY_GPU_CHECK_SCALE="$4" DLREADY_GPU_CHECK_STAGES="$5" bash -c "cd \"$2/tree\" && scripts/gpu-check.sh --no-gpu \"$2/out\""
' rehearsal "$upper" "$work" "$python" "$scale" "${DLREADY_GPU_CHECK_STAGES:-}" || rc=$?
mkdir -p "$out"
cp "$work/out"/* "$out"/
echo "gpu-rehearsal: $((SECONDS - start)) s on $(nproc) cores (stage limits x$scale); exit status $rc; results in $out"
[ -n "${DLREADY_KEEP_REHEARSAL:-}" ] || rm -rf "$work"
exit $rc
