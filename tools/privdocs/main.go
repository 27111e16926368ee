// Command privdocs writes the privileges table and the pveum example of the
// provider documentation (templates/index.md.tmpl) from the feature table
// of pve_provider_privileges (internal/service/access/features.go), so the
// documentation and the data source never disagree. make generate runs it
// before tfplugindocs.
//
//	go run ./tools/privdocs [-template FILE]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/proxops/terraform-provider-pve/internal/service/access"
)

func main() {
	template := flag.String("template", "templates/index.md.tmpl", "provider documentation template to update")
	flag.Parse()
	if err := run(*template); err != nil {
		fmt.Fprintln(os.Stderr, "privdocs:", err)
		os.Exit(1)
	}
}

func run(template string) error {
	text, err := os.ReadFile(template)
	if err != nil {
		return err
	}
	updated, err := access.UpdateTemplate(string(text))
	if err != nil {
		return fmt.Errorf("%s: %w", template, err)
	}
	if updated == string(text) {
		return nil
	}
	return os.WriteFile(template, []byte(updated), 0o644)
}
