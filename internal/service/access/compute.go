package access

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// PathGrant is the union of the privileges needed on one path.
type PathGrant struct {
	Path       string
	Privileges []string
}

// Result is what a set of features needs on one release.
type Result struct {
	Release Release
	// Features are the features computed, read included, in table order.
	Features []string
	// Privileges is the union over every path, sorted.
	Privileges []string
	// Grants are the privileges per path, sorted by path.
	Grants []PathGrant
}

// Compute unions the grants of the named features (and of read, which
// every feature needs) for a release. An unknown name is an error listing
// the valid ones.
func Compute(release Release, features []string) (Result, error) {
	if !slices.Contains(Releases, release) {
		return Result{}, fmt.Errorf("unknown release %q: want one of %s", release, quoteList(releaseNames()))
	}
	wanted := map[string]bool{Read: true}
	for _, name := range features {
		if _, ok := featureByName(name); !ok {
			return Result{}, fmt.Errorf("unknown feature %q: want one of %s", name, quoteList(FeatureNames()))
		}
		wanted[name] = true
	}

	res := Result{Release: release}
	all := map[string]bool{}
	byPath := map[string]map[string]bool{}
	for _, f := range Features {
		if !wanted[f.Name] {
			continue
		}
		res.Features = append(res.Features, f.Name)
		for _, g := range f.Grants {
			if g.Only != "" && g.Only != release {
				continue
			}
			if byPath[g.Path] == nil {
				byPath[g.Path] = map[string]bool{}
			}
			for _, p := range g.Privileges {
				all[p] = true
				byPath[g.Path][p] = true
			}
		}
	}
	res.Privileges = sortedKeys(all)
	for _, p := range sortedKeys(byPath) {
		res.Grants = append(res.Grants, PathGrant{Path: p, Privileges: sortedKeys(byPath[p])})
	}
	return res, nil
}

// releasePattern matches what pve_version accepts and what GET /version
// reports as release: "8.4", "9", "9.1".
var releasePattern = regexp.MustCompile(`^(\d+)(?:\.(\d+))?$`)

// ReleaseOf maps a PVE release ("8.4", "9.1", "9") to the table's release.
// PVE 8 before 8.4 is refused: the provider supports 8.4 and 9.
func ReleaseOf(version string) (Release, error) {
	m := releasePattern.FindStringSubmatch(strings.TrimSpace(version))
	switch {
	case m == nil:
		return "", fmt.Errorf("PVE release %q: want a release such as %s", version, quoteList(releaseNames()))
	case m[1] == "9":
		return PVE9, nil
	case m[1] == "8" && m[2] == "4":
		return PVE84, nil
	default:
		return "", fmt.Errorf("PVE %s is not supported: the privileges are known for PVE 8.4 and PVE 9", version)
	}
}

func releaseNames() []string {
	out := make([]string, len(Releases))
	for i, r := range Releases {
		out[i] = string(r)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
