#!/usr/bin/env bash
# scripts/slurm.sh install|up|down|status -- a real single-host Slurm (Debian's slurm-wlm) for
# Fray's tests: munged, slurmctld and fake nodes n1..nN (one slurmd each), no systemd, no cgroups.
#   SLURM_NODES=3   -> nodes n1..n3 (default 3); 1 -> one node named after this host
#   SLURM_CPUS      -> CPUs per node (default: nproc)
#   SLURM_DBD=1     -> also MariaDB + slurmdbd so that sacct works
#   SLURM_REST=1    -> also slurmrestd with JWT auth on 127.0.0.1:6820
#   SLURM_GPUS=2    -> fake GPUs per node (gres gpu:H100, count only: no device files); 0 = none
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
NODES=${SLURM_NODES:-3}; CPUS=${SLURM_CPUS:-$(nproc)}; DBD=${SLURM_DBD:-0}; REST=${SLURM_REST:-0}
GPUS=${SLURM_GPUS:-2}
HN=$(hostname -s); CONF=/etc/slurm/slurm.conf
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
nodes_idle() { [ "$(sinfo -h -N -t idle -o %N | sort -u | wc -l)" -eq "$NODES" ]; }

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

  # --- directories (fresh state every time: job ids restart at 1)
  stop_slurm_daemons
  rm -rf /var/spool/slurmctld /var/spool/slurmd
  install -d -o slurm -g slurm /var/spool/slurmctld /var/log/slurm
  install -d -o root -g root /var/spool/slurmd /etc/slurm

  # --- slurm.conf
  {
    cat <<EOF
ClusterName=ci
SlurmctldHost=${HN}(127.0.0.1)
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
    if [ "$NODES" -eq 1 ]; then
      echo "NodeName=${HN} NodeAddr=127.0.0.1 ${hw}"
      echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
    else
      for i in $(seq 1 "$NODES"); do
        echo "NodeName=n${i} NodeHostname=${HN} NodeAddr=127.0.0.1 Port=$((17000 + i)) ${hw}"
      done
      echo "PartitionName=debug Nodes=n[1-${NODES}] Default=YES MaxTime=INFINITE State=UP"
    fi
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
      /usr/sbin/mariadbd --user=mysql --bind-address=127.0.0.1 --pid-file=/run/mysqld/mysqld.pid \
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
    slurmdbd
    wait_for 30 sacctmgr -n show cluster
    sacctmgr -n show cluster format=cluster | grep -qw ci || sacctmgr -i add cluster ci >/dev/null
    log "slurmdbd pid $(cat /run/slurmdbd.pid), mariadbd pid $(cat /run/mysqld/mysqld.pid)"
  fi

  slurmctld
  wait_for 30 scontrol ping
  if [ "$NODES" -eq 1 ]; then
    slurmd
  else
    for i in $(seq 1 "$NODES"); do slurmd -N "n${i}"; done
  fi
  wait_for 60 nodes_idle
  log "slurmctld pid $(cat /run/slurmctld.pid); slurmd pids $(cat /run/slurmd-*.pid | tr '\n' ' ')"

  if [ "$REST" = 1 ]; then
    id slurmrest >/dev/null 2>&1 || useradd -r -M -s /usr/sbin/nologin slurmrest
    # slurmrestd refuses to run as root or as SlurmUser; SLURM_JWT=daemon makes it use JWT towards slurmctld
    local plugins=openapi/v0.0.38   # the dbv0.0.38 plugin makes slurmrestd exit unless slurmdbd is used
    [ "$DBD" = 1 ] && plugins=openapi/v0.0.38,openapi/dbv0.0.38
    # setpriv execs (no fork), so $! is slurmrestd's own PID
    SLURM_JWT=daemon setpriv --reuid=slurmrest --regid=slurmrest --init-groups \
      /usr/sbin/slurmrestd -s "$plugins" -a rest_auth/jwt 127.0.0.1:6820 \
      >/var/log/slurm/slurmrestd.log 2>&1 </dev/null &
    echo $! > /run/slurmrestd.pid
    wait_for 20 sh -c 'curl -s -o /dev/null -w "%{http_code}" http://127.0.0.1:6820/slurm/v0.0.38/ping | grep -q 401'
    log "slurmrestd pid $(cat /run/slurmrestd.pid) on 127.0.0.1:6820 (token: scontrol token username=USER)"
  fi
  sinfo
}

stop_slurm_daemons() {
  stop_pidfile /run/slurmrestd.pid
  for f in /run/slurmd-*.pid /run/slurmd.pid; do [ -e "$f" ] && stop_pidfile "$f"; done
  stop_pidfile /run/slurmctld.pid
  return 0
}

down() {
  stop_slurm_daemons
  stop_pidfile /run/slurmdbd.pid
  stop_pidfile /run/mysqld/mysqld.pid
  stop_pidfile /run/munge/munged.pid
  log "stopped"
}

case "${1:-up}" in
  install) install_packages ;;
  up) up ;;
  down) down ;;
  status) sinfo; squeue ;;
  *) echo "usage: $0 install|up|down|status" >&2; exit 2 ;;
esac
