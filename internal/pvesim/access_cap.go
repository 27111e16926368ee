package pvesim

import (
	"regexp"
	"strings"
)

// capCategories are compute_api_permission's categories and the
// privileges each one lists (pve-access-control src/PVE/RPCEnvironment.pm
// compute_api_permission, $priv_re_map; the regexes are anchored at the
// start, and Permissions.Modify's dot is any character in "mapping").
var capCategories = map[string]*regexp.Regexp{
	"vms":     regexp.MustCompile(`^(VM\.|Permissions\.Modify)`),
	"access":  regexp.MustCompile(`^((User|Group)\.|Permissions\.Modify)`),
	"storage": regexp.MustCompile(`^(Datastore\.|Permissions\.Modify)`),
	"nodes":   regexp.MustCompile(`^(Sys\.|Permissions\.Modify)`),
	"sdn":     regexp.MustCompile(`^(SDN\.|Permissions\.Modify)`),
	"dc":      regexp.MustCompile(`^(Sys\.Audit|Sys\.Modify|SDN\.)`),
	"mapping": regexp.MustCompile(`^(Mapping\.|Permissions.Modify)`),
}

// capTopLevel matches the first component of a path as compute_api_permission
// reads it (/^\/(\w+)/); other paths count as "dc".
var capTopLevel = regexp.MustCompile(`^/(\w+)`)

// apiCapabilities is the login answer's "cap" (compute_api_permission):
// per category, the privileges the user holds on the category's paths,
// each as 1. The paths are the fixed ones and every path of the ACL tree;
// a path's first component picks its category ("dc" when none matches).
// Pool paths add their VM and Datastore privileges to "vms" and "storage",
// and Permissions.Modify to both.
func (s *Sim) apiCapabilities(user identity) map[string]map[string]int {
	out := make(map[string]map[string]int, len(capCategories))
	for category := range capCategories {
		out[category] = map[string]int{}
	}
	paths := []string{"/", "/nodes", "/access/groups", "/vms", "/storage", "/sdn", "/mapping"}
	paths = append(paths, s.cluster.Access.aclPaths()...)
	checked := map[string]bool{}
	for _, path := range paths {
		if checked[path] {
			continue
		}
		checked[path] = true
		top := "dc"
		if m := capTopLevel.FindStringSubmatch(path); m != nil {
			top = m[1]
		}
		for priv := range s.permissions(user, path) {
			if top == "pool" {
				switch {
				case strings.HasPrefix(priv, "VM."):
					out["vms"][priv] = 1
				case strings.HasPrefix(priv, "Datastore."):
					out["storage"][priv] = 1
				case priv == "Permissions.Modify":
					out["storage"][priv] = 1
					out["vms"][priv] = 1
				}
				continue
			}
			re, ok := capCategories[top]
			if ok && re.MatchString(priv) {
				out[top][priv] = 1
			}
		}
	}
	return out
}
