// Command schemagen generates the request-checking tables of the PVE
// simulator (internal/pvesim/schema) from PVE's API schema dumps, one table
// file per PVE release in schema.TableSets.
//
// Run it anywhere inside the repository:
//
//	go run ./tools/schemagen [-shared DIR] [-formats FILE] [-outdir DIR]
//
// By default it reads the dumps and formats.json from shared/pve-api beside
// the repository clone and writes the table files to
// internal/pvesim/schema.
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
	fs := flag.NewFlagSet("schemagen", flag.ContinueOnError)
	sharedDir := fs.String("shared", filepath.Join(root, "..", "shared", "pve-api"), "folder with the PVE API schema dumps")
	formatsPath := fs.String("formats", "", "named formats supplement (default: formats.json in the shared folder)")
	outDir := fs.String("outdir", filepath.Join(root, "internal", "pvesim", "schema"), "output folder")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if *formatsPath == "" {
		*formatsPath = filepath.Join(*sharedDir, "formats.json")
	}
	formats, err := os.ReadFile(*formatsPath)
	if err != nil {
		return err
	}
	for _, set := range schema.TableSets {
		apidoc, err := os.ReadFile(filepath.Join(*sharedDir, set.APIDoc))
		if err != nil {
			return err
		}
		raw, err := schema.Generate(apidoc, formats, set.Unchecked...)
		if err != nil {
			return fmt.Errorf("PVE %s: %w", set.Release, err)
		}
		gz, err := schema.Compress(raw)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(*outDir, set.File), gz, 0o644); err != nil {
			return err
		}
	}
	return nil
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
