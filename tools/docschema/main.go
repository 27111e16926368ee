// Command docschema writes the provider's schema as `terraform providers
// schema -json` prints it, for `tfplugindocs generate --providers-schema`.
//
// The resource pages show each resource's identity, which Terraform
// reports only from 1.12 on. With an older Terraform the identity schemas
// are missing from its output, and tfplugindocs refuses a resource's
// import-by-identity example; docschema then adds them from the provider
// itself, so the pages come out the same whichever Terraform is used.
// The list resources' schemas (Terraform 1.14 and later) are added the
// same way.
//
//	go run ./tools/docschema -out FILE
//
// It builds the provider, installs it for a scratch Terraform working
// directory and runs the terraform on PATH there (or $TERRAFORM).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/provider"
)

func main() {
	out := flag.String("out", "", "file to write the schema JSON to")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "docschema: -out is required")
		os.Exit(2)
	}
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "docschema:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	raw, err := terraformSchema()
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("decode the schema: %w", err)
	}
	identities, err := identitySchemas()
	if err != nil {
		return err
	}
	actions, err := actionSchemas()
	if err != nil {
		return err
	}
	lists, err := listResourceSchemas()
	if err != nil {
		return err
	}
	schemas, _ := doc["provider_schemas"].(map[string]any)
	if len(schemas) == 0 {
		return errors.New("terraform reported no provider schema")
	}
	for _, s := range schemas {
		ps, ok := s.(map[string]any)
		if !ok {
			continue
		}
		if _, has := ps["resource_identity_schemas"]; !has {
			ps["resource_identity_schemas"] = identities
		}
		// Terraform before 1.14 lists no actions; the documentation
		// shows them whichever Terraform made the schema.
		if _, has := ps["action_schemas"]; !has {
			ps["action_schemas"] = actions
		}
		if _, has := ps["list_resource_schemas"]; !has {
			ps["list_resource_schemas"] = lists
		}
	}
	encoded, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	return os.WriteFile(out, encoded, 0o600)
}

// terraformSchema is `terraform providers schema -json` of the provider
// built from this repository, installed as tfplugindocs installs it.
func terraformSchema() ([]byte, error) {
	dir, err := os.MkdirTemp("", "docschema")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	plugin := filepath.Join(dir, "plugins", "registry.terraform.io", "hashicorp", "pve", "0.0.1",
		runtime.GOOS+"_"+runtime.GOARCH, "terraform-provider-pve")
	if err := command("go", "build", "-o", plugin, ".").Run(); err != nil {
		return nil, fmt.Errorf("build the provider: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "provider.tf"), []byte("provider \"pve\" {\n}\n"), 0o600); err != nil {
		return nil, err
	}
	tf := os.Getenv("TERRAFORM")
	if tf == "" {
		tf = "terraform"
	}
	init := command(tf, "-chdir="+dir, "init", "-get=false", "-plugin-dir=./plugins")
	if err := init.Run(); err != nil {
		return nil, fmt.Errorf("terraform init: %w", err)
	}
	schema := exec.Command(tf, "-chdir="+dir, "providers", "schema", "-json")
	schema.Stderr = os.Stderr
	raw, err := schema.Output()
	if err != nil {
		return nil, fmt.Errorf("terraform providers schema: %w", err)
	}
	return raw, nil
}

func command(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Stdout, c.Stderr = os.Stderr, os.Stderr
	return c
}

// identitySchemas are the provider's resource identity schemas in the
// JSON form of `terraform providers schema -json`.
func identitySchemas() (map[string]any, error) {
	server, err := providerserver.NewProtocol6WithError(provider.New("docs")())()
	if err != nil {
		return nil, err
	}
	resp, err := server.GetResourceIdentitySchemas(context.Background(), &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		return nil, err
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return nil, fmt.Errorf("identity schemas: %s: %s", d.Summary, d.Detail)
		}
	}
	out := make(map[string]any, len(resp.IdentitySchemas))
	for name, s := range resp.IdentitySchemas {
		attrs := make(map[string]any, len(s.IdentityAttributes))
		for _, a := range s.IdentityAttributes {
			typ, err := typeJSON(a.Type)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", name, a.Name, err)
			}
			attr := map[string]any{"type": typ}
			if a.Description != "" {
				attr["description"] = a.Description
			}
			if a.RequiredForImport {
				attr["required_for_import"] = true
			}
			if a.OptionalForImport {
				attr["optional_for_import"] = true
			}
			attrs[a.Name] = attr
		}
		out[name] = map[string]any{"version": s.Version, "attributes": attrs}
	}
	return out, nil
}

// actionSchemas are the provider's action schemas in the JSON form of
// `terraform providers schema -json` (Terraform 1.14 and later). The
// actions have attributes of primitive types only.
func actionSchemas() (map[string]any, error) {
	server, err := providerserver.NewProtocol6WithError(provider.New("docs")())()
	if err != nil {
		return nil, err
	}
	resp, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return nil, err
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return nil, fmt.Errorf("provider schema: %s: %s", d.Summary, d.Detail)
		}
	}
	out := make(map[string]any, len(resp.ActionSchemas))
	for name, s := range resp.ActionSchemas {
		block := s.Schema.Block
		if len(block.BlockTypes) > 0 {
			return nil, fmt.Errorf("action %s: nested blocks are not supported here", name)
		}
		attrs := make(map[string]any, len(block.Attributes))
		for _, a := range block.Attributes {
			if a.NestedType != nil {
				return nil, fmt.Errorf("action %s.%s: nested attributes are not supported here", name, a.Name)
			}
			typ, err := typeJSON(a.Type)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", name, a.Name, err)
			}
			attr := map[string]any{"type": typ, "description_kind": "markdown"}
			if a.Description != "" {
				attr["description"] = a.Description
			}
			for flag, set := range map[string]bool{"required": a.Required, "optional": a.Optional, "deprecated": a.Deprecated} {
				if set {
					attr[flag] = true
				}
			}
			attrs[a.Name] = attr
		}
		b := map[string]any{"attributes": attrs, "description_kind": "markdown"}
		if block.Description != "" {
			b["description"] = block.Description
		}
		out[name] = map[string]any{"block": b}
	}
	return out, nil
}

// typeJSON is a primitive type as Terraform writes it in JSON.
func typeJSON(t tftypes.Type) (string, error) {
	switch {
	case t.Is(tftypes.String):
		return "string", nil
	case t.Is(tftypes.Number):
		return "number", nil
	case t.Is(tftypes.Bool):
		return "bool", nil
	}
	return "", fmt.Errorf("attribute of type %s", t)
}

// listResourceSchemas are the provider's list resource schemas in the
// JSON form of `terraform providers schema -json`: a block of attributes
// (list blocks' configs have no nested blocks).
func listResourceSchemas() (map[string]any, error) {
	server, err := providerserver.NewProtocol6WithError(provider.New("docs")())()
	if err != nil {
		return nil, err
	}
	resp, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return nil, err
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return nil, fmt.Errorf("provider schema: %s: %s", d.Summary, d.Detail)
		}
	}
	out := make(map[string]any, len(resp.ListResourceSchemas))
	for name, s := range resp.ListResourceSchemas {
		if len(s.Block.BlockTypes) > 0 {
			return nil, fmt.Errorf("list resource %s: nested blocks are not supported here", name)
		}
		attrs := make(map[string]any, len(s.Block.Attributes))
		for _, a := range s.Block.Attributes {
			typ, err := json.Marshal(a.Type)
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %w", name, a.Name, err)
			}
			attr := map[string]any{"type": json.RawMessage(typ)}
			setDescription(attr, a.Description, a.DescriptionKind)
			for flag, set := range map[string]bool{"required": a.Required, "optional": a.Optional, "computed": a.Computed, "sensitive": a.Sensitive} {
				if set {
					attr[flag] = true
				}
			}
			attrs[a.Name] = attr
		}
		block := map[string]any{"attributes": attrs}
		setDescription(block, s.Block.Description, s.Block.DescriptionKind)
		out[name] = map[string]any{"version": s.Version, "block": block}
	}
	return out, nil
}

// setDescription sets m's description and its kind, as Terraform writes
// them.
func setDescription(m map[string]any, text string, kind tfprotov6.StringKind) {
	if text == "" {
		return
	}
	m["description"] = text
	m["description_kind"] = "plain"
	if kind == tfprotov6.StringKindMarkdown {
		m["description_kind"] = "markdown"
	}
}
