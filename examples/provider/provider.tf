# API token authentication (preferred). Every setting can also come from the
# environment: PVE_ENDPOINT, PVE_API_TOKEN, PVE_CA_FILE, ...
provider "pve" {
  endpoint  = "https://pve1.example.com:8006"
  api_token = var.pve_api_token # terraform@pve!provider=<secret>
  ca_file   = "${path.module}/pve-ca.pem"

  # Guests without an explicit vmid get one from this range.
  vmid_range = {
    min = 5000
    max = 5999
  }
}

variable "pve_api_token" {
  type      = string
  sensitive = true
}
