variable "powerdns_key" {
  type      = string
  sensitive = true
}

# A PowerDNS server where SDN zones register their guests' names. The API
# key is write-only: it never reaches the state; bump key_wo_version to send
# a new one.
resource "pve_sdn_dns" "powerdns" {
  dns            = "powerdns"
  type           = "powerdns"
  url            = "http://192.0.2.53:8081/api/v1/servers/localhost"
  key_wo         = var.powerdns_key
  key_wo_version = 1
  ttl            = 3600
}
