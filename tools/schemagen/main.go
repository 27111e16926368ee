// Command schemagen generates the request-checking tables of the PVE
// simulator (internal/pvesim/schema) from PVE's API schema dump.
//
// Run it anywhere inside the repository:
//
//	go run ./tools/schemagen [-apidoc FILE] [-formats FILE] [-out FILE]
//
// By default it reads apidoc.json and formats.json from shared/pve-api beside
// the repository clone and writes internal/pvesim/schema/tables.json.gz.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/schema"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	shared := filepath.Join(root, "..", "shared", "pve-api")

	fs := flag.NewFlagSet("schemagen", flag.ContinueOnError)
	apidocPath := fs.String("apidoc", filepath.Join(shared, "apidoc.json"), "PVE API schema dump")
	formatsPath := fs.String("formats", filepath.Join(shared, "formats.json"), "named formats supplement")
	outPath := fs.String("out", filepath.Join(root, "internal", "pvesim", "schema", schema.TablesFileName), "output file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}

	apidoc, err := os.ReadFile(*apidocPath)
	if err != nil {
		return err
	}
	formats, err := os.ReadFile(*formatsPath)
	if err != nil {
		return err
	}
	raw, err := schema.Generate(apidoc, formats)
	if err != nil {
		return err
	}
	gz, err := schema.Compress(raw)
	if err != nil {
		return err
	}
	return os.WriteFile(*outPath, gz, 0o644)
}

// repoRoot walks up from the working directory to the directory holding
// go.mod, so the command behaves the same from the root and from go:generate.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod found above the working directory")
		}
		dir = parent
	}
}
