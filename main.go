// Command terraform-provider-pve is the Terraform and OpenTofu provider for
// Proxmox VE.
package main

import (
	"context"
	"flag"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/provider"
)

// version is set at build time through -ldflags "-X main.version=...".
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()
	fwutil.TuneGC(os.LookupEnv)
	// A provider started for a debugger prints its logs itself; otherwise
	// Terraform only passes them on when asked to.
	if !debug {
		if err := fwutil.QuietDiscardedLogs(os.LookupEnv, os.Setenv); err != nil {
			log.Fatal(err.Error())
		}
	}

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: provider.RegistryAddress,
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}
