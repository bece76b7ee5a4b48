# shellcheck shell=bash
# Settings and helpers of the multi-NUMA guest (image.sh, guest.sh). Source it; do not run it.
#
# It builds on e2e-node/lib.sh. Paths can be overridden from the environment:
#   VM_OUT   guest images, ssh key and running guests (default: $E2E_OUT/vm)

# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
VM_DIR=$E2E_DIR/vm
VM_OUT=${VM_OUT:-$E2E_OUT/vm}

# The guest's topologies, as qemu options: name -> "SOCKETS CORES THREADS MEM_PER_NODE_MIB".
# Each socket is one NUMA node; its CPUs are numbered consecutively (node 0 first), and
# hyperthreads of one core are adjacent, as qemu numbers them.
declare -A VM_TOPOLOGIES=(
  [numa2]="2 2 1 2048"
  [numa2-smt]="2 2 2 2048"
)
VM_DEFAULT_TOPOLOGY=numa2-smt

# topology_names: the preset names, sorted.
topology_names() { printf '%s\n' "${!VM_TOPOLOGIES[@]}" | sort | paste -sd' '; }

# qemu_topology NAME: the -smp, -m and -numa options of preset NAME, one per line.
qemu_topology() {
  local spec=${VM_TOPOLOGIES[$1]:-}
  [ -n "$spec" ] || die "unknown topology '$1': choose one of $(topology_names)"
  local sockets cores threads mem node first per_node
  read -r sockets cores threads mem <<<"$spec"
  per_node=$((cores * threads))
  printf '%s\n' -smp "$((sockets * per_node)),sockets=$sockets,cores=$cores,threads=$threads" -m "$((mem * sockets))M"
  for ((node = 0; node < sockets; node++)); do
    first=$((node * per_node))
    printf '%s\n' -object "memory-backend-ram,id=mem$node,size=${mem}M" \
      -numa "node,nodeid=$node,cpus=$first-$((first + per_node - 1)),memdev=mem$node"
  done
  # Remote memory is twice as far as local memory, as ACPI SLIT tables of two-socket servers say.
  for ((node = 1; node < sockets; node++)); do
    printf '%s\n' -numa "dist,src=0,dst=$node,val=20"
  done
}

# The ssh key the image authorizes for root (made once per VM_OUT) and the options for the guest.
VM_KEY=$VM_OUT/ssh/id_ed25519
vm_ssh_opts() {
  printf '%s\n' -i "$VM_KEY" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
    -o LogLevel=ERROR -o ConnectTimeout=30
}
