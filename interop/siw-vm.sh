#!/usr/bin/env bash
# siw-vm.sh - a qemu guest running the real Linux SoftiWARP (siw) driver, for
# interop tests of a host-side iWARP-over-TCP implementation. Loopback only.
#
#   siw-vm.sh build [--force]   one-time: debootstrap rootfs, build siw.ko, make disk.img (4-7 min)
#   siw-vm.sh up [SERVER_CMD]   boot in background (TCG), wait for ready (~15-25 s); SERVER_CMD runs in guest
#   siw-vm.sh run CMD...        run a shell command in the guest over ssh (timeout SIWVM_RUN_TIMEOUT)
#   siw-vm.sh down              stop qemu (SIGTERM, then SIGKILL; disk is -snapshot, nothing to sync)
#   siw-vm.sh status            is it up?
#
# Guest: IP 10.0.2.15 (qemu user net, restrict=on: the guest reaches nothing but what is forwarded),
#        NIC ens3, RDMA device siw0 (iWARP). Debian bookworm kernel 6.1 + out-of-tree siw.ko
#        (Debian does not enable CONFIG_RDMA_SIW), rdma-core, rping/ucmatose, perftest,
#        DAPL 2.1.10 (libdapl2 + dapl2-utils: dtest, dapltest, dat.conf).
# Env:
#   SIWVM_RUN=$SIWVM_DIR/run        state of one running guest (pid files, console log); one per concurrent guest
#   SIWVM_SSH_PORT=10022            host 127.0.0.1 port forwarded to guest sshd
#   SIWVM_HOSTFWD="17174:7174"      space-separated HOSTPORT:GUESTPORT, host 127.0.0.1:HOSTPORT -> guest :GUESTPORT
#   SIWVM_GUESTFWD=""               space-separated GUESTPORT:HOSTPORT, guest 10.0.2.100:GUESTPORT -> host 127.0.0.1:HOSTPORT
#   SIWVM_ACCEL=tcg                 tcg or kvm (kvm hangs at kernel entry on this workplace's nested VM)
#   SIWVM_MEM=1024 SIWVM_CPUS=2
#   SIWVM_BOOT_TIMEOUT=240          seconds to wait for the ready marker
#   SIWVM_LIFETIME=3600             qemu is killed by timeout(1) after this many seconds, whatever happens
#   SIWVM_RUN_TIMEOUT=300           per `run` command
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM=${SIWVM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/siw-vm}
RUN=${SIWVM_RUN:-$VM/run}
SSH_PORT=${SIWVM_SSH_PORT:-10022}
HOSTFWD=${SIWVM_HOSTFWD-17174:7174}
GUESTFWD=${SIWVM_GUESTFWD-}
ACCEL=${SIWVM_ACCEL:-tcg}
MEM=${SIWVM_MEM:-1024}
CPUS=${SIWVM_CPUS:-2}
BOOT_TIMEOUT=${SIWVM_BOOT_TIMEOUT:-240}
LIFETIME=${SIWVM_LIFETIME:-3600}
RUN_TIMEOUT=${SIWVM_RUN_TIMEOUT:-300}
# The Debian mirror: SIWVM_MIRROR, else the first 'URIs:' of the host's own apt sources.
MIRROR=${SIWVM_MIRROR:-$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null)}
GUEST_PKGS=linux-image-amd64,rdma-core,ibverbs-utils,ibverbs-providers,rdmacm-utils,perftest,dapl2-utils,libdapl2,iproute2,kmod,openssh-server,procps,netcat-openbsd,tcpdump,iputils-ping
BUILD_PKGS="gcc make xz-utils libc6-dev linux-source-6.1 libibverbs-dev librdmacm-dev"

log() { echo "siw-vm: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc | sed 's/^\./0./'; }

SSH_OPTS=(-i "$VM/ssh/id_ed25519" -p "$SSH_PORT" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
          -o LogLevel=ERROR -o ConnectTimeout=15 -o ServerAliveInterval=10 -o ServerAliveCountMax=3 -o BatchMode=yes)
ssh_cmd() { ssh "${SSH_OPTS[@]}" root@127.0.0.1 "$@"; }

# The host tools this script needs, as "<command> <debian package>". It never installs them: a
# missing one is named with the command that installs it (.ci/run installs them, bin/host-tools).
HOST_TOOLS=(
  "qemu-system-x86_64 qemu-system-x86"
  "debootstrap debootstrap"
  "mke2fs e2fsprogs"
  "ssh openssh-client"
  "socat socat"
  "bc bc"
)

# Fails naming the missing host tools and the one command that installs them; $1 says what for.
host_deps() {
  local entry cmd pkg missing=() packages=()
  for entry in "${HOST_TOOLS[@]}"; do
    read -r cmd pkg <<<"$entry"
    if ! command -v "$cmd" >/dev/null 2>&1; then
      missing+=("$cmd")
      packages+=("$pkg")
    fi
  done
  ((${#missing[@]} == 0)) && return 0
  die "missing host tools for $1: ${missing[*]}; install them with: sudo apt-get install --no-install-recommends ${packages[*]}"
}

# Unmounts what a build stopped half-way left mounted in the rootfs (debootstrap mounts proc there).
umount_rootfs() {
  local m
  [[ -d $VM/rootfs ]] || return 0
  for m in $(awk -v r="$VM/rootfs/" 'index($2, r) == 1 {print $2}' /proc/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
}

cmd_build() {
  trap 'umount_rootfs; exit 143' TERM INT
  umount_rootfs
  [[ ${1-} == --force ]] && rm -rf "$VM/rootfs" "$VM/disk.img"
  if [[ -f $VM/disk.img && -f $VM/vmlinuz && -f $VM/initrd.img ]]; then log "image exists (build --force to redo)"; return 0; fi
  [[ $(id -u) == 0 ]] || die "build needs root (debootstrap, chroot)"
  host_deps "the guest build"
  local t0 t; t0=$(now)
  mkdir -p "$VM"
  [[ -f $VM/.gitignore ]] || printf 'rootfs/\n*.img\nvmlinuz\ninitrd.img\nssh/\nrun/\n*.log\n*.pcap\n' > "$VM/.gitignore"
  local R=$VM/rootfs
  if [[ ! -x $R/usr/bin/rping || ! -x $R/usr/bin/dtest ]]; then
    rm -rf "$R"; t=$(now)
    log "debootstrap bookworm -> $R"
    timeout 1800 debootstrap --variant=minbase --arch=amd64 --include="$GUEST_PKGS" bookworm "$R" "$MIRROR" \
      > "$VM/debootstrap.log" 2>&1 || die "debootstrap failed, see $VM/debootstrap.log"
    log "debootstrap took $(since "$t")s"
  fi
  local KV; KV=$(ls "$R/lib/modules" | head -1)
  [[ -n $KV ]] || die "no kernel in rootfs"
  if [[ ! -f $R/lib/modules/$KV/updates/siw.ko ]]; then
    t=$(now)
    log "building siw.ko for $KV (Debian's config has CONFIG_RDMA_SIW unset)"
    mount -t proc proc "$R/proc"
    trap 'umount "$R/proc" 2>/dev/null || true' RETURN
    timeout 900 chroot "$R" /bin/sh -ec "
      apt-get update -q >/dev/null
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends linux-headers-$KV $BUILD_PKGS >/dev/null
      rm -rf /usr/src/siw-build && mkdir -p /usr/src/siw-build && cd /usr/src/siw-build
      tar -xJf /usr/src/linux-source-6.1.tar.xz --strip-components=1 linux-source-6.1/drivers/infiniband/sw/siw
      cd drivers/infiniband/sw/siw
      make -s -C /usr/src/linux-headers-$KV M=\$PWD CONFIG_RDMA_SIW=m modules
      mkdir -p /lib/modules/$KV/updates && cp siw.ko /lib/modules/$KV/updates/ && strip --strip-debug /lib/modules/$KV/updates/siw.ko
      depmod $KV
      rm -f /usr/src/linux-source-6.1.tar.xz; apt-get clean" > "$VM/siw-build.log" 2>&1 || die "siw build failed, see $VM/siw-build.log"
    umount "$R/proc"; trap - RETURN
    log "siw.ko built in $(since "$t")s"
  fi
  install -m 0755 /dev/stdin "$R/usr/local/sbin/siw-init" <<'EOF'
#!/bin/sh
# PID 1 of the siw test VM (kernel cmdline init=/usr/local/sbin/siw-init).
# cmdline siwvm.cmd=<base64 shell command>: started in background, output in /run/server.log
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm; mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /run; mount -t tmpfs tmpfs /tmp; mount -o remount,rw / 2>/dev/null
hostname siwvm
ip link set lo up
NIC=$(ls /sys/class/net | grep -v '^lo$' | head -1)
ip link set "$NIC" up; ip addr add 10.0.2.15/24 dev "$NIC"; ip route add default via 10.0.2.2
ulimit -l unlimited
if modprobe siw && rdma link add siw0 type siw netdev "$NIC"; then echo "siw-init: siw0 on $NIC"; else echo "SIW-VM-FAILED siw"; fi
rdma link show
mkdir -p /run/sshd && /usr/sbin/sshd -E /run/sshd.log
for a in $(cat /proc/cmdline); do
  case "$a" in siwvm.cmd=*) CMD=$(echo "${a#siwvm.cmd=}" | base64 -d)
    echo "siw-init: server: $CMD"; (sh -c "$CMD" > /run/server.log 2>&1 < /dev/null &) ;; esac
done
echo "SIW-VM-READY uptime=$(cut -d' ' -f1 /proc/uptime)s"
while :; do sleep 3600; done
EOF
  # DAPL: Debian's /etc/dat.conf points the cma iWARP entry at "eth2 0"; here the NIC is ens3
  # (so `dtest -P ofa-v2-iwarp` / `dapltest -D ofa-v2-iwarp` work without DAT_OVERRIDE)
  [[ -f $R/etc/dat.conf ]] && sed -i 's/^\(ofa-v2-iwarp .*\)"eth2 0"/\1"ens3 0"/' "$R/etc/dat.conf"
  mkdir -p "$VM/ssh" "$R/root/.ssh"
  [[ -f $VM/ssh/id_ed25519 ]] || ssh-keygen -q -t ed25519 -N '' -f "$VM/ssh/id_ed25519"
  install -m 0600 "$VM/ssh/id_ed25519.pub" "$R/root/.ssh/authorized_keys"; chmod 700 "$R/root/.ssh"
  printf 'PermitRootLogin prohibit-password\nUseDNS no\nPasswordAuthentication no\n' > "$R/etc/ssh/sshd_config.d/siwvm.conf"
  cp "$R"/boot/vmlinuz-"$KV" "$VM/vmlinuz"; cp "$R"/boot/initrd.img-"$KV" "$VM/initrd.img"
  t=$(now)
  rm -f "$VM/disk.img"
  timeout 600 mke2fs -q -t ext4 -L siwroot -d "$R" "$VM/disk.img" 3G || die "mke2fs failed"
  log "disk image in $(since "$t")s; build total $(since "$t0")s"
}

# qemu writes its own pid (-pidfile); wrapper.pid is the timeout(1) that bounds its lifetime
qemu_pid() { [[ -f $RUN/qemu.pid ]] && kill -0 "$(cat "$RUN/qemu.pid")" 2>/dev/null && cat "$RUN/qemu.pid"; }
wrapper_alive() { [[ -f $RUN/wrapper.pid ]] && kill -0 "$(cat "$RUN/wrapper.pid")" 2>/dev/null; }

cmd_up() {
  [[ -f $VM/disk.img ]] || die "no image: run '$0 build' first"
  if qemu_pid >/dev/null; then die "already up (pid $(cat "$RUN/qemu.pid")); '$0 down' first"; fi
  host_deps "booting the guest"
  mkdir -p "$RUN"; rm -f "$RUN"/console.log "$RUN"/qemu.pid "$RUN"/wrapper.pid
  local net="user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$SSH_PORT-:22" f
  for f in $HOSTFWD; do net+=",hostfwd=tcp:127.0.0.1:${f%%:*}-:${f##*:}"; done
  for f in $GUESTFWD; do net+=",guestfwd=tcp:10.0.2.100:${f%%:*}-cmd:socat STDIO TCP:127.0.0.1:${f##*:}"; done
  local append="root=/dev/vda rw console=ttyS0 quiet init=/usr/local/sbin/siw-init"
  [[ -n ${1-} ]] && append+=" siwvm.cmd=$(printf '%s' "$*" | base64 -w0)"
  local accel=(-accel tcg,thread=multi -cpu max)
  [[ $ACCEL == kvm ]] && accel=(-accel kvm -cpu host,-arch-capabilities)
  local t0; t0=$(now)
  # timeout(1): qemu never outlives SIWVM_LIFETIME, even if nobody calls down
  timeout -k 10 "$LIFETIME" qemu-system-x86_64 "${accel[@]}" -m "$MEM" -smp "$CPUS" \
    -display none -monitor none -serial "file:$RUN/console.log" -no-reboot -snapshot -pidfile "$RUN/qemu.pid" \
    -kernel "$VM/vmlinuz" -initrd "$VM/initrd.img" -append "$append" \
    -drive "file=$VM/disk.img,format=raw,if=virtio" \
    -netdev "$net" -device virtio-net-pci,netdev=n0 \
    > "$RUN/qemu.out" 2>&1 < /dev/null &
  echo $! > "$RUN/wrapper.pid"
  local deadline=$(( $(date +%s) + BOOT_TIMEOUT ))
  until grep -qa SIW-VM-READY "$RUN/console.log" 2>/dev/null; do
    wrapper_alive || { cat "$RUN/qemu.out" >&2; die "qemu exited during boot"; }
    (( $(date +%s) < deadline )) || { cmd_down; die "no ready marker within ${BOOT_TIMEOUT}s (console: $RUN/console.log)"; }
    sleep 0.5
  done
  grep -qa SIW-VM-FAILED "$RUN/console.log" && { cmd_down; die "siw setup failed in guest"; }
  local boot; boot=$(since "$t0")
  until timeout 30 ssh "${SSH_OPTS[@]}" root@127.0.0.1 true 2>/dev/null; do
    (( $(date +%s) < deadline )) || { cmd_down; die "ssh not reachable"; }
    sleep 1
  done
  log "up: ready marker after ${boot}s, ssh after $(since "$t0")s (qemu pid $(cat "$RUN/qemu.pid"), ssh 127.0.0.1:$SSH_PORT)"
}

cmd_run() {
  qemu_pid >/dev/null || die "not up"
  timeout -k 5 "$RUN_TIMEOUT" ssh "${SSH_OPTS[@]}" root@127.0.0.1 "$*"
}

cmd_down() {
  # The disk runs with -snapshot (guest writes are discarded), so a plain SIGTERM to qemu is safe.
  local pid; pid=$(qemu_pid) || { log "not running"; rm -f "$RUN/qemu.pid" "$RUN/wrapper.pid"; return 0; }
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  rm -f "$RUN/qemu.pid" "$RUN/wrapper.pid"; log "down"
}

cmd_status() { if qemu_pid >/dev/null; then echo "up (pid $(cat "$RUN/qemu.pid"))"; else echo down; return 1; fi; }

case ${1-} in
  build) shift; cmd_build "$@" ;;
  up) shift; cmd_up "$@" ;;
  run) shift; cmd_run "$@" ;;
  down) cmd_down ;;
  status) cmd_status ;;
  *) sed -n '2,9p' "$0"; exit 2 ;;
esac
