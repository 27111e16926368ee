# Step one of adopting with generated configuration: render one import block
# per guest tagged "prod" (Terraform generates configuration only for import
# blocks without for_each). Apply, then write the output to imports.tf:
#
#   terraform apply
#   terraform output -raw import_blocks > imports.tf

data "pve_vms" "adopt" {
  tags     = ["prod"]
  template = false
}

data "pve_containers" "adopt" {
  tags     = ["prod"]
  template = false
}

output "import_blocks" {
  value = join("", concat(
    [for vm in data.pve_vms.adopt.vms :
    "import {\n  to = pve_vm.vm_${vm.vmid}\n  id = \"${vm.node}/${vm.vmid}\"\n}\n\n"],
    [for ct in data.pve_containers.adopt.containers :
    "import {\n  to = pve_container.ct_${ct.vmid}\n  id = \"${ct.node}/${ct.vmid}\"\n}\n\n"],
  ))
}
