#!/usr/bin/env bash
# make demo: build the provider, start the PVE simulator on a free loopback
# port, apply examples/quickstart against it, show the outputs, prove that the
# next plan is empty, destroy, and stop the simulator. Any failing step fails
# the demo.
#
# PVE_PROVIDER_BINARY, when set, names a provider binary to run instead of
# building one (make release-dry-run passes the snapshot goreleaser built).
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
sim_pid=""

cleanup() {
  if [ -n "$sim_pid" ] && kill -0 "$sim_pid" 2>/dev/null; then
    kill "$sim_pid" 2>/dev/null || true
    wait "$sim_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

say() { printf '\n==> %s\n' "$*"; }

command -v terraform >/dev/null || { echo "terraform is not on PATH (Terraform >= 1.5, or OpenTofu installed as terraform)" >&2; exit 1; }

mkdir -p "$work/plugins"
if [ -n "${PVE_PROVIDER_BINARY:-}" ]; then
  say "Using the provider binary $PVE_PROVIDER_BINARY, building the simulator"
  [ -x "$PVE_PROVIDER_BINARY" ] || { echo "PVE_PROVIDER_BINARY=$PVE_PROVIDER_BINARY is not an executable file" >&2; exit 1; }
  cp "$PVE_PROVIDER_BINARY" "$work/plugins/terraform-provider-pve"
  (cd "$root" && go build -o "$work/pvesim" ./tools/pvesim)
else
  say "Building the provider and the simulator"
  (cd "$root" && go build -o "$work/plugins/terraform-provider-pve" . && go build -o "$work/pvesim" ./tools/pvesim)
fi

say "Starting the PVE simulator"
"$work/pvesim" --listen 127.0.0.1:0 --ca-file "$work/pvesim-ca.pem" >"$work/sim.out" 2>"$work/sim.err" &
sim_pid=$!
for _ in $(seq 1 100); do
  grep -qx ready "$work/sim.out" 2>/dev/null && break
  kill -0 "$sim_pid" 2>/dev/null || { cat "$work/sim.err" >&2; echo "the simulator exited early" >&2; exit 1; }
  sleep 0.1
done
grep -qx ready "$work/sim.out" || { echo "the simulator did not become ready" >&2; exit 1; }
while IFS='=' read -r key value; do
  case "$key" in PVE_ENDPOINT|PVE_API_TOKEN|PVE_CA_FILE) export "$key=$value" ;; esac
done <"$work/sim.out"
echo "simulator at $PVE_ENDPOINT"

cat >"$work/terraformrc" <<RC
provider_installation {
  dev_overrides {
    "proxops/pve" = "$work/plugins"
  }
  direct {}
}
RC
export TF_CLI_CONFIG_FILE="$work/terraformrc"
export TF_IN_AUTOMATION=1
export CHECKPOINT_DISABLE=1

cp -R "$root/examples/quickstart" "$work/quickstart"
tf() { terraform -chdir="$work/quickstart" "$@"; }

say "terraform apply"
tf apply -auto-approve -input=false -no-color

say "Outputs"
tf output -no-color

say "A second plan must show no changes"
set +e
tf plan -detailed-exitcode -input=false -no-color
code=$?
set -e
if [ "$code" -ne 0 ]; then
  echo "the plan after apply is not empty (exit code $code)" >&2
  exit 1
fi

say "terraform destroy"
tf destroy -auto-approve -input=false -no-color

say "Demo passed"
