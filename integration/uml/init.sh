#!/bin/bash
# init of a real-kernel node: User-Mode Linux over the host's root (reference: real-kernel.md).
# The kernel command line hands us XCHG (a host directory shared read-write: commands in,
# results and logs out) and MODROOT (a directory whose lib/modules/<release> holds UML's
# modules). Everything written inside lands on tmpfs or overlays: the host is never touched
# except XCHG. A reboot restores /etc and /var from XCHG/persist.tar (see `RealKernelNode::reboot`).
#
# After the base services (D-Bus, OVS on the kernel datapath, NetworkManager without the
# harness switches) it serves commands: the host writes `N.sh` in XCHG, this runs it with
# output to `N.out` and its exit status to `N.rc` (written last), then waits for N+1.

mount -t proc proc /proc
mount -t sysfs -o ro sys /sys # read-only: NetworkManager manages devices without udev, as in the harness
mount -t tmpfs tmp /run
mount -t devtmpfs dev /dev
ln -sf /proc/self/fd /dev/fd
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
for m in openvswitch bonding team team_mode_activebackup team_mode_loadbalance team_mode_lacp \
    8021q veth bridge overlay sch_netem; do
    modprobe -d "$MODROOT" "$m"
done
mkdir -p /run/x
mount -t hostfs none /run/x -o "$XCHG"
# A reboot: what the previous boot wrote to /etc and /var (profiles, OVSDB, /var/lib/ovnk).
if [ -e /run/x/persist.tar ]; then
    mkdir -p /run/ov
    tar -C /run/ov --xattrs --xattrs-include='*' -xf /run/x/persist.tar
fi
for d in /etc /var /tmp /root; do
    mkdir -p "/run/ov$d/u" "/run/ov$d/w"
    chmod --reference="$d" "/run/ov$d/u" # an overlay's root has its upper dir's mode: /tmp is 1777
    mount -t overlay overlay -o "lowerdir=$d,upperdir=/run/ov$d/u,workdir=/run/ov$d/w" "$d"
done
X=/run/x
exec >"$X/init.log" 2>&1 </dev/null
set -x
# The node's name where a node keeps it (the host's own /etc/hostname is under the overlay).
echo "${NODE_NAME:-node}" >/etc/hostname
hostname "${NODE_NAME:-node}"
# The node's resolver configuration is its own (none until something writes one): the host's
# names a resolver the guest cannot reach, whose silence every change's nameserver probe would
# wait out before changing anything.
[ -e /run/x/persist.tar ] || : >/etc/resolv.conf
mkdir -p /var/lib/NetworkManager /etc/NetworkManager/system-connections /etc/NetworkManager/conf.d \
    /var/lib/openvswitch /etc/openvswitch /var/log/openvswitch /run/dbus /run/openvswitch
if [ ! -e /run/x/persist.tar ]; then # the host's own configuration is not the node's
    rm -f /etc/NetworkManager/system-connections/* /etc/NetworkManager/conf.d/* /etc/openvswitch/*
fi
ip link set lo up

dbus-daemon --system --fork
[ -e /etc/openvswitch/conf.db ] || ovsdb-tool create /etc/openvswitch/conf.db /usr/share/openvswitch/vswitch.ovsschema
ovsdb-server /etc/openvswitch/conf.db --remote=punix:/run/openvswitch/db.sock --pidfile --detach \
    --no-chdir --log-file="$X/ovsdb-server.log"
ovs-vsctl --no-wait init # what ovs-ctl does on a real node
ovs-vswitchd --pidfile --detach --no-chdir --log-file="$X/ovs-vswitchd.log"
ovs-vsctl add-br warmup0 # its upcall threads start with the first bridge (see below)
# vswitchd forwards once it has an upcall handler next to its revalidator ("Starting 2
# threads"). In UML its first count of the CPUs often gives it none ("Overriding
# n-handler-threads to 0", "Starting 1 threads") until its recount 10 s later, and a datapath
# port added before then gets no upcalls: every lookup is "lost" (ovs-dpctl show) and nothing is
# forwarded, on that port for good. A node's vswitchd has long been running when br-ex is built:
# wait here for the handler, restarting vswitchd if the recount does not come, before
# NetworkManager starts (after a reboot it brings br-ex up on its own at once).
{ set +x; } 2>/dev/null
has_handler() {
    grep -o 'Starting [0-9]* threads' "$X/ovs-vswitchd.log" | tail -n 1 | grep -qv 'Starting 1 threads'
}
for attempt in 1 2 3; do
    for _ in $(seq 300); do
        has_handler && break
        sleep 0.1
    done
    has_handler && break
    echo "vswitchd: no upcall handler within 30 s: restarting it"
    ovs-appctl -t ovs-vswitchd exit
    mv "$X/ovs-vswitchd.log" "$X/ovs-vswitchd.log.$attempt"
    ovs-vswitchd --pidfile --detach --no-chdir --log-file="$X/ovs-vswitchd.log"
done
ovs-vsctl del-br warmup0
echo "vswitchd: $(grep -o 'Starting [0-9]* threads' "$X/ovs-vswitchd.log" | tail -n 1)"
set -x

# NetworkManager as `cargo xtask deps` built it, with none of the harness's HARNESS_* switches,
# configured as the harness's (the host wrote the files into XCHG), logging to nm.log.
cp "$X/nm/NetworkManager.conf" /etc/NetworkManager/
cp "$X"/nm/conf.d/* /etc/NetworkManager/conf.d/
"$NM_PREFIX/sbin/NetworkManager" --debug >"$X/nm.log" 2>&1 &
echo $! >/run/nm.pid
for _ in $(seq 120); do
    nmcli -t -f RUNNING general 2>/dev/null | grep -q running && break
    sleep 0.5
done
set +x
echo READY >"$X/ready"

# A sleep that forks nothing (process creation is slow here): read on an empty, open pipe.
exec {nap}<> <(:)
n=0
while :; do
    if [ -e "$X/$n.sh" ]; then
        bash "$X/$n.sh" >"$X/$n.out" 2>&1 </dev/null
        echo $? >"$X/$n.rc"
        n=$((n + 1))
    else
        read -r -t 0.05 -u "$nap" _
    fi
done
