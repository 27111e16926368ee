package acctest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Terraform's start dominates what a Terraform-level test costs: every
// command is a whole start of a large binary (about 0.15 s of CPU before it
// does anything), and a test step runs seven of them. Two of those costs
// buy nothing, so the tests run Terraform through a small wrapper script:
//
//   - terraform-plugin-testing asks `terraform version -json` for every test
//     case and every working directory it makes (about three times a test).
//     The answer cannot change while the binary stays the same, so the
//     wrapper gives it from a file written once per binary.
//   - Every other command runs the real binary with its garbage collector
//     off (GOGC=off): a command lives for a fraction of a second, so
//     collecting is pure overhead (about a tenth of its CPU time).
//
// TF_ACC_TERRAFORM_PATH or TF_ACC_TERRAFORM_VERSION set by the developer
// win: the wrapper is only used when the library would take terraform from
// PATH.
const (
	envTerraformPath    = "TF_ACC_TERRAFORM_PATH"
	envTerraformVersion = "TF_ACC_TERRAFORM_VERSION"
)

var terraformWrapperOnce sync.Once

// useTerraformWrapper points terraform-plugin-testing at the wrapper. When
// the wrapper cannot be made the library finds terraform itself, as it
// would without it.
func useTerraformWrapper() {
	terraformWrapperOnce.Do(func() {
		if os.Getenv(envTerraformPath) != "" || os.Getenv(envTerraformVersion) != "" {
			return
		}
		wrapper, err := terraformWrapper()
		if err != nil {
			return
		}
		_ = os.Setenv(envTerraformPath, wrapper)
	})
}

// terraformWrapper writes the wrapper for the terraform on PATH, once per
// binary (its path, size and time of change name the directory), and
// returns its path. Test processes that run at the same time write the
// same files and rename them into place, so none sees half a file.
func terraformWrapper() (string, error) {
	real, err := exec.LookPath("terraform")
	if err != nil {
		return "", err
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", err
	}
	info, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s|%d|%d", real, info.Size(), info.ModTime().UnixNano()))
	dir := filepath.Join(os.TempDir(), "pve-acctest-terraform-"+hex.EncodeToString(sum[:8]))
	wrapper := filepath.Join(dir, "terraform")
	if _, err := os.Stat(wrapper); err == nil {
		return wrapper, nil
	}
	versionJSON, err := exec.Command(real, "version", "-json").Output()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	versionFile := filepath.Join(dir, "version.json")
	if err := writeAtomically(versionFile, versionJSON, 0o600); err != nil {
		return "", err
	}
	script := "#!/bin/sh\n" +
		"if [ \"$#\" -eq 2 ] && [ \"$1\" = version ] && [ \"$2\" = -json ]; then\n" +
		"  exec cat " + shellQuote(versionFile) + "\n" +
		"fi\n" +
		"GOGC=off exec " + shellQuote(real) + " \"$@\"\n"
	if err := writeAtomically(wrapper, []byte(script), 0o700); err != nil {
		return "", err
	}
	return wrapper, nil
}

func writeAtomically(path string, content []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(content)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), mode)); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
