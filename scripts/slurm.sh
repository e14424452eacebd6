#!/usr/bin/env bash
# scripts/slurm.sh install|up|down|status|on HOST CMD... -- a real Slurm (Debian's slurm-wlm) for Fray's
# tests, on isolated hosts made on this machine (root; no systemd, no cgroups):
#   - the submit host: a network namespace (fray-slurm-submit, 10.213.9.1, this machine's host name)
#     holding slurmctld (and slurmdbd, MariaDB, slurmrestd when asked for) and the bridge br0;
#   - nodes n1..nN: each its own network namespace (fray-slurm-nI, 10.213.9.(10+I), a veth on the
#     submit host's bridge), host name (UTS namespace) and mount namespace with a private /tmp and
#     /dev/shm (tmpfs), held by one `sleep` process per node; its slurmd runs in there;
#   - shared, as on a real cluster: the file system except /tmp and /dev/shm, munge (one munged, its
#     socket in /run/munge, one key), and $SHARED (default /var/lib/fray-slurm-shared, made anew by
#     `up`), the cluster's shared file system that stands for NFS homes: put state dirs there.
# Nothing touches the root namespace's network: Slurm's commands work only on the submit host,
# e.g. `scripts/slurm.sh on submit sinfo` (or `ip netns exec fray-slurm-submit CMD`); `on n2 CMD`
# runs CMD on node n2. `up` writes /run/fray-slurm/hosts.json (the hosts, their namespaces and IPs,
# the holders' PIDs, $SHARED) for the tests; `down` stops every process in those namespaces (by
# PID), deletes the namespaces (their mounts go with them) and $SHARED.
#   SLURM_NODES=3   -> nodes n1..n3 (default 3)
#   SLURM_CPUS      -> CPUs per node (default: nproc)
#   SLURM_DBD=1     -> also MariaDB + slurmdbd so that sacct works
#   SLURM_REST=1    -> also slurmrestd with JWT auth on the submit host's 127.0.0.1:6820
#   SLURM_GPUS=2    -> fake GPUs per node (gres gpu:H100, count only: no device files); 0 = none
#   SLURM_SHARED_DIR -> the shared directory (default /var/lib/fray-slurm-shared)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
NODES=${SLURM_NODES:-3}; CPUS=${SLURM_CPUS:-$(nproc)}; DBD=${SLURM_DBD:-0}; REST=${SLURM_REST:-0}
GPUS=${SLURM_GPUS:-2}; SHARED=${SLURM_SHARED_DIR:-/var/lib/fray-slurm-shared}
HN=$(hostname -s); CONF=/etc/slurm/slurm.conf
CHECKOUT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NET=10.213.9                # the cluster's /24, which exists only inside its namespaces
PREFIX=fray-slurm           # namespace names: fray-slurm-submit, fray-slurm-n1, ...
SUBMIT=$PREFIX-submit
STATE=/run/fray-slurm       # hosts.json, the holders' pidfiles, the namespaces made
log() { echo "[slurm-ci] $*"; }

wait_for() { # wait_for SECONDS CMD...  (poll every 0.2 s)
  local deadline=$(( $(date +%s) + $1 )); shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -ge "$deadline" ] && { log "timeout waiting for: $*"; return 1; }
    sleep 0.2
  done
}
alive() { # true if PID runs and is not a zombie (PID 1 here reaps orphans only every ~1-2 s)
  [ -r "/proc/$1/stat" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]
}
stop_pidfile() { # kill the PID in a pidfile, wait for it to exit, remove the file
  local f=$1 p; [ -s "$f" ] || { rm -f "$f"; return 0; }
  p=$(cat "$f")
  if alive "$p" && kill "$p" 2>/dev/null; then
    for _ in $(seq 1 150); do alive "$p" || break; sleep 0.1; done
    if alive "$p"; then log "SIGKILL $p ($f)"; kill -9 "$p" 2>/dev/null || true; fi
  fi
  rm -f "$f"   # slurmctld leaves its pidfile behind; a stale one breaks the package's prerm
}
nodes_idle() { [ "$(on submit sinfo -h -N -t idle -o %N | sort -u | wc -l)" -eq "$NODES" ]; }

# --- hosts: network namespaces on a bridge; nodes with their own host name, /tmp and /dev/shm
node_ip() { echo "$NET.$((10 + $1))"; }
on() { # on submit|nI CMD... -- run CMD on that host
  local host=$1; shift
  local -a exec_in
  if [ "$host" = submit ]; then exec_in=(ip netns exec "$SUBMIT"); else
    local f="$STATE/holder-$host.pid"
    [ -s "$f" ] || { echo "slurm.sh: no host $host (is the cluster up? hosts: submit, n1..n$NODES)" >&2; return 2; }
    exec_in=(nsenter -t "$(cat "$f")" -m -n -u)
  fi
  "${exec_in[@]}" "$@"
}
holder_ready() { [ "$(cat "/proc/$1/comm" 2>/dev/null)" = sleep ]; }

hosts_up() {
  hosts_down
  install -d -m 0755 "$STATE"
  # A shared dir an earlier `up` made (its mark inside) is made anew; any other must be new or empty.
  [ -e "$SHARED/.fray-slurm-shared" ] && rm -rf "$SHARED"
  if [ -e "$SHARED" ] && [ -n "$(ls -A "$SHARED")" ]; then
    log "SLURM_SHARED_DIR=$SHARED exists and is not empty: give a new directory, or empty it"; return 1
  fi
  install -d -m 1777 "$SHARED"; : > "$SHARED/.fray-slurm-shared"; echo "$SHARED" > "$STATE/shared"
  # Every host's /etc/hosts (ip netns exec binds /etc/netns/NS/hosts over it): the cluster's DNS.
  { printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n%s.1 %s\n' "$NET" "$HN"
    for i in $(seq 1 "$NODES"); do echo "$(node_ip "$i") n$i"; done; } > "$STATE/hosts"
  ip netns add "$SUBMIT"; echo "$SUBMIT" >> "$STATE/namespaces"
  install -d "/etc/netns/$SUBMIT"; cp "$STATE/hosts" "/etc/netns/$SUBMIT/hosts"
  ip -n "$SUBMIT" link set lo up
  ip -n "$SUBMIT" link add br0 type bridge
  ip -n "$SUBMIT" addr add "$NET.1/24" dev br0
  ip -n "$SUBMIT" link set br0 up
  local nodes_json="" i ns pid keep=""
  # A checkout under /tmp or /dev/shm (a CI's clone, say) stays visible on the nodes, as a shared home would.
  case "$CHECKOUT/" in /tmp/*|/dev/shm/*) keep=$CHECKOUT ;; esac
  for i in $(seq 1 "$NODES"); do
    ns=$PREFIX-n$i
    ip netns add "$ns"; echo "$ns" >> "$STATE/namespaces"
    install -d "/etc/netns/$ns"; cp "$STATE/hosts" "/etc/netns/$ns/hosts"
    ip -n "$ns" link set lo up
    # Made inside the namespaces: the root namespace never holds either end.
    ip -n "$ns" link add eth0 type veth peer name "veth-n$i" netns "$SUBMIT"
    ip -n "$SUBMIT" link set "veth-n$i" master br0 up
    ip -n "$ns" addr add "$(node_ip "$i")/24" dev eth0
    ip -n "$ns" link set eth0 up
    # The holder: the node's mount and UTS namespaces live as long as it does (unshare, nsenter and sh exec: $! is
    # sleep's PID). Not `ip netns exec`, whose fresh /sys lacks the cgroup mounts slurmd needs.
    KEEP=$keep setsid unshare --mount --uts --propagation private nsenter --net="/run/netns/$ns" sh -c "set -e; hostname n$i
      mount --bind /etc/netns/$ns/hosts /etc/hosts
      if [ -n \"\$KEEP\" ]; then mkdir -p /run/fray-keep-\$\$; mount --bind \"\$KEEP\" /run/fray-keep-\$\$; fi
      mount -t tmpfs -o mode=1777 fray-n$i-tmp /tmp; mount -t tmpfs -o mode=1777 fray-n$i-shm /dev/shm
      if [ -n \"\$KEEP\" ]; then mkdir -p \"\$KEEP\"; mount --move /run/fray-keep-\$\$ \"\$KEEP\"; rmdir /run/fray-keep-\$\$; fi
      exec sleep infinity" </dev/null >/dev/null 2>&1 &
    pid=$!; echo "$pid" > "$STATE/holder-n$i.pid"
    wait_for 10 holder_ready "$pid"
    nodes_json="$nodes_json${nodes_json:+,}{\"name\":\"n$i\",\"netns\":\"$ns\",\"ip\":\"$(node_ip "$i")\",\"pid\":$pid}"
  done
  printf '{"submit":{"name":"%s","netns":"%s","ip":"%s.1"},"nodes":[%s],"shared":"%s"}\n' "$HN" "$SUBMIT" "$NET" "$nodes_json" "$SHARED" > "$STATE/hosts.json.tmp"
  mv "$STATE/hosts.json.tmp" "$STATE/hosts.json"
  log "hosts: submit $HN ($NET.1, netns $SUBMIT); nodes n1..n$NODES ($(node_ip 1)..) with private /tmp and /dev/shm; shared $SHARED"
}

hosts_down() { # every process left in our namespaces (by PID), then the namespaces, their files, $SHARED
  local ns pid pids
  for ns in $(tac "$STATE/namespaces" 2>/dev/null); do
    if ip netns pids "$ns" >/dev/null 2>&1; then
      pids=$(ip netns pids "$ns")
      for pid in $pids; do kill "$pid" 2>/dev/null || true; done
      for pid in $pids; do
        for _ in $(seq 1 50); do alive "$pid" || break; sleep 0.1; done
        if alive "$pid"; then log "SIGKILL $pid (in $ns)"; kill -9 "$pid" 2>/dev/null || true; fi
      done
      ip netns delete "$ns"
    fi
    rm -rf "/etc/netns/$ns"
  done
  [ -s "$STATE/shared" ] && rm -rf "$(cat "$STATE/shared")"
  rm -rf "$STATE"
  rmdir --ignore-fail-on-non-empty /etc/netns 2>/dev/null || true
}

install_packages() {
  local pkgs="slurm-wlm munge"
  [ "$DBD" = 1 ] && pkgs="$pkgs slurmdbd slurm-wlm-mysql-plugin mariadb-server"
  [ "$REST" = 1 ] && pkgs="$pkgs slurmrestd slurm-wlm-jwt-plugin"
  local have; have=$(dpkg-query -W -f='${Status}\n' $pkgs 2>/dev/null | grep -c 'install ok installed' || true)
  if [ "$have" -ne "$(echo $pkgs | wc -w)" ]; then
    log "installing: $pkgs"
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
  fi
}

up() {
  install_packages

  # --- munge: the package's postinst creates /etc/munge/munge.key; create one if missing
  if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  fi
  chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key
  install -d -o munge -g munge -m 0755 /run/munge
  if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    runuser -u munge -- /usr/sbin/munged      # daemonizes; pid in /run/munge/munged.pid
    wait_for 10 sh -c 'munge -n | unmunge'
  fi
  log "munged pid $(cat /run/munge/munged.pid)"

  # --- hosts and directories (fresh state every time: job ids restart at 1)
  stop_daemons
  hosts_up
  rm -rf /var/spool/slurmctld /var/spool/slurmd
  install -d -o slurm -g slurm /var/spool/slurmctld /var/log/slurm
  install -d -o root -g root /var/spool/slurmd /etc/slurm

  # --- slurm.conf
  {
    cat <<EOF
ClusterName=ci
SlurmctldHost=${HN}(${NET}.1)
SlurmUser=slurm
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
JobCompType=jobcomp/filetxt
JobCompLoc=/var/log/slurm/jobcomp.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
MinJobAge=300
SlurmctldTimeout=30
SlurmdTimeout=30
KillWait=5
InactiveLimit=0
Waittime=0
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd-%n.pid
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd/%n
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
EOF
    if [ "$DBD" = 1 ]; then
      printf 'AccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=127.0.0.1\nAccountingStoragePort=6819\n'
    else
      echo 'AccountingStorageType=accounting_storage/none'
    fi
    if [ "$REST" = 1 ]; then
      printf 'AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key=/var/spool/slurmctld/jwt_hs256.key\n'
    fi
    local hw="CPUs=${CPUS} Sockets=1 CoresPerSocket=${CPUS} ThreadsPerCore=1 RealMemory=1000 TmpDisk=2048 State=UNKNOWN"
    if [ "$GPUS" -gt 0 ]; then
      echo "GresTypes=gpu"
      hw="$hw Gres=gpu:H100:${GPUS}"
    fi
    for i in $(seq 1 "$NODES"); do echo "NodeName=n${i} NodeHostname=n${i} NodeAddr=$(node_ip "$i") ${hw}"; done
    echo "PartitionName=debug Nodes=n[1-${NODES}] Default=YES MaxTime=INFINITE State=UP"
  } > "$CONF"
  chmod 0644 "$CONF"
  if [ "$GPUS" -gt 0 ]; then
    # Character devices that behave as /dev/null stand in for the GPUs: gres/gpu needs device files.
    for i in $(seq 0 $((GPUS - 1))); do [ -e "/dev/fray-fake-gpu$i" ] || mknod "/dev/fray-fake-gpu$i" c 1 3; done
    printf 'AutoDetect=off\nName=gpu Type=H100 File=/dev/fray-fake-gpu[0-%d]\n' $((GPUS - 1)) > /etc/slurm/gres.conf
  else
    rm -f /etc/slurm/gres.conf
  fi

  if [ "$REST" = 1 ]; then
    dd if=/dev/urandom of=/var/spool/slurmctld/jwt_hs256.key bs=32 count=1 status=none
    chown slurm:slurm /var/spool/slurmctld/jwt_hs256.key; chmod 0600 /var/spool/slurmctld/jwt_hs256.key
  fi

  if [ "$DBD" = 1 ]; then
    install -d -o mysql -g mysql /run/mysqld
    if ! mariadb -e 'select 1' >/dev/null 2>&1; then
      on submit /usr/sbin/mariadbd --user=mysql --bind-address=127.0.0.1 --pid-file=/run/mysqld/mysqld.pid \
        --socket=/run/mysqld/mysqld.sock >/var/log/slurm/mariadb.log 2>&1 &
      wait_for 30 mariadb -e 'select 1'
    fi
    mariadb -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db; CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurmdbpass'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; FLUSH PRIVILEGES;"
    cat > /etc/slurm/slurmdbd.conf <<'EOF'
AuthType=auth/munge
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=6819
SlurmUser=slurm
LogFile=/var/log/slurm/slurmdbd.log
PidFile=/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageLoc=slurm_acct_db
StorageUser=slurm
StoragePass=slurmdbpass
EOF
    [ "$REST" = 1 ] && printf 'AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key=/var/spool/slurmctld/jwt_hs256.key\n' >> /etc/slurm/slurmdbd.conf
    chown slurm:slurm /etc/slurm/slurmdbd.conf; chmod 0600 /etc/slurm/slurmdbd.conf
    on submit slurmdbd
    wait_for 30 on submit sacctmgr -n show cluster
    on submit sacctmgr -n show cluster format=cluster | grep -qw ci || on submit sacctmgr -i add cluster ci >/dev/null
    log "slurmdbd pid $(cat /run/slurmdbd.pid), mariadbd pid $(cat /run/mysqld/mysqld.pid)"
  fi

  on submit slurmctld
  wait_for 30 on submit scontrol ping
  for i in $(seq 1 "$NODES"); do on "n$i" slurmd -N "n${i}"; done
  wait_for 60 nodes_idle
  log "slurmctld pid $(cat /run/slurmctld.pid); slurmd pids $(cat /run/slurmd-*.pid | tr '\n' ' ')"

  if [ "$REST" = 1 ]; then
    id slurmrest >/dev/null 2>&1 || useradd -r -M -s /usr/sbin/nologin slurmrest
    # slurmrestd refuses to run as root or as SlurmUser; SLURM_JWT=daemon makes it use JWT towards slurmctld
    local plugins=openapi/v0.0.38   # the dbv0.0.38 plugin makes slurmrestd exit unless slurmdbd is used
    [ "$DBD" = 1 ] && plugins=openapi/v0.0.38,openapi/dbv0.0.38
    # ip netns exec and setpriv exec (no fork), so $! is slurmrestd's own PID
    SLURM_JWT=daemon ip netns exec "$SUBMIT" setpriv --reuid=slurmrest --regid=slurmrest --init-groups \
      /usr/sbin/slurmrestd -s "$plugins" -a rest_auth/jwt 127.0.0.1:6820 \
      >/var/log/slurm/slurmrestd.log 2>&1 </dev/null &
    echo $! > /run/slurmrestd.pid
    wait_for 20 on submit sh -c 'curl -s -o /dev/null -w "%{http_code}" http://127.0.0.1:6820/slurm/v0.0.38/ping | grep -q 401'
    log "slurmrestd pid $(cat /run/slurmrestd.pid) on the submit host's 127.0.0.1:6820 (token: scontrol token username=USER)"
  fi
  on submit sinfo
}

stop_daemons() { # Slurm's, MariaDB: they run on the hosts that `up` makes anew
  stop_pidfile /run/slurmrestd.pid
  for f in /run/slurmd-*.pid /run/slurmd.pid; do [ -e "$f" ] && stop_pidfile "$f"; done
  stop_pidfile /run/slurmctld.pid
  stop_pidfile /run/slurmdbd.pid
  stop_pidfile /run/mysqld/mysqld.pid
}

down() {
  stop_daemons
  hosts_down
  stop_pidfile /run/munge/munged.pid
  log "stopped"
}

case "${1:-up}" in
  install) install_packages ;;
  up) up ;;
  down) down ;;
  status) on submit sinfo; on submit squeue ;;
  on) [ $# -ge 3 ] || { echo "usage: $0 on submit|nI CMD..." >&2; exit 2; }; shift; on "$@" ;;
  *) echo "usage: $0 install|up|down|status|on HOST CMD..." >&2; exit 2 ;;
esac
