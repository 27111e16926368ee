// Command terraform-provider-pve is the Terraform and OpenTofu provider for
// Proxmox VE.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/provider"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
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
	// A run that staged SDN changes without applying them (no applier in
	// the configuration, or one that failed) still holds PVE's SDN lock.
	// Serve returns when Terraform shuts the plugin down (go-plugin's
	// controller stops the server), and Terraform kills the process 2
	// seconds later: the release must fit in that window.
	releaseCtx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	if releaseErr := pveapi.ReleaseSDNLocks(releaseCtx); releaseErr != nil {
		log.Printf("[WARN] releasing the SDN lock failed: %v", releaseErr)
	}
	cancel()
	if err != nil {
		log.Fatal(err.Error())
	}
}
