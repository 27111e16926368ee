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
// command is a whole start of a large binary, and an applying test step
// runs about ten of them. Some of those buy nothing, so the tests run
// Terraform through a small wrapper script:
//
//   - terraform-plugin-testing asks `terraform version -json` for every test
//     case and every working directory it makes (about three times a test).
//     The answer cannot change while the binary stays the same, so the
//     wrapper gives it from a file written once per binary.
//   - After every plan that has changes (each applying step's first plan),
//     the library runs `terraform show -no-color PLANFILE` only to log the
//     plan at trace level. The wrapper answers that first show of a plan
//     file with nothing. A second show of the same plan file is the one
//     whose text goes into a failure ("the plan was not empty"), and runs
//     Terraform. A new plan starts over.
//   - The library reads the state (`terraform show -json`) for a step's
//     Check and again for its ConfigStateChecks, and more often around
//     imports, while the state file does not change. The wrapper keeps
//     Terraform's answer in the working directory under the digest of
//     the state file and answers the same state from it. A state show
//     renders the state file with the provider's schema, which one test
//     process does not change. Only the default local state is kept: a
//     working directory with another backend or workspace always asks
//     Terraform.
//   - Every other command runs the real binary with its garbage collector
//     off (GOGC=off): a command lives for a fraction of a second, so
//     collecting is pure overhead (about a tenth of its CPU time).
//
// TF_ACC_TERRAFORM_PATH or TF_ACC_TERRAFORM_VERSION set by the developer
// win: the wrapper is only used when the library would take terraform from
// PATH. TF_ACC_TERRAFORM_PATH=$(command -v terraform) runs every command,
// for a trace log that shows each plan.
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
	sum := sha256.Sum256(fmt.Appendf(nil, "%s|%d|%d|%d", real, info.Size(), info.ModTime().UnixNano(), wrapperVersion))
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
	if err := writeAtomically(wrapper, []byte(wrapperScript(real, versionFile)), 0o700); err != nil {
		return "", err
	}
	return wrapper, nil
}

// wrapperVersion names the wrapper's script in the directory's name: a
// changed script gets a directory of its own instead of an older one made
// by another checkout.
const wrapperVersion = 2

// wrapperScript is the wrapper for the terraform binary real (see the top
// of this file).
func wrapperScript(real, versionFile string) string {
	return `#!/bin/sh
real=` + shellQuote(real) + `
case "$1" in
version)
  if [ "$#" -eq 2 ] && [ "$2" = -json ]; then
    exec cat ` + shellQuote(versionFile) + `
  fi
  ;;
plan)
  # A new plan file: its first show is again the trace-only one.
  for arg in "$@"; do
    case "$arg" in -out=*) rm -f -- "${arg#-out=}.shown" ;; esac
  done
  ;;
show)
  if [ "$#" -eq 3 ] && [ "$2" = -no-color ] && [ -f "$3" ] && [ ! -e "$3.shown" ]; then
    : >"$3.shown" && exit 0
  fi
  if [ "$#" -eq 3 ] && [ "$2" = -json ] && [ "$3" = -no-color ] && [ -f terraform.tfstate ] &&
    [ ! -e .terraform/terraform.tfstate ] && [ ! -e .terraform/environment ] && [ ! -e terraform.tfstate.d ]; then
    digest=$(sha256sum <terraform.tfstate 2>/dev/null | cut -c1-64)
    if [ "${#digest}" -eq 64 ]; then
      cache=".state-show-$digest"
      if [ ! -f "$cache" ]; then
        GOGC=off "$real" "$@" >"$cache.tmp"
        status=$?
        if [ "$status" -ne 0 ]; then
          cat "$cache.tmp"
          rm -f "$cache.tmp"
          exit "$status"
        fi
        mv -f "$cache.tmp" "$cache"
      fi
      exec cat "$cache"
    fi
  fi
  ;;
esac
GOGC=off exec "$real" "$@"
`
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
