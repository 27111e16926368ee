package pvesim

import (
	"crypto/sha512"
	"encoding/hex"
	"net/http"
	"strings"
)

// The appliance index: pve-manager PVE/API2/Nodes.pm aplinfo and
// apl_download, over the records pve-manager PVE/APLInfo.pm
// read_aplinfo_from_fh parsed from the downloaded aplinfo.dat files.

// appliance is one record of the index as APLInfo.pm keeps it (fields:
// the record's fields lowercased, Description split into headline and
// description, plus source and template) and the simulated file's size.
type appliance struct {
	fields map[string]string
	size   int64
}

const (
	aplSourceProxmox  = "http://download.proxmox.com/images"
	aplSourceTurnkey  = "https://releases.turnkeylinux.org/pve"
	aplInfopageLXC    = "https://pve.proxmox.com/wiki/Linux_Container#pct_supported_distributions"
	aplMaintainerPVE  = "Proxmox Support Team <support@proxmox.com>"
	aplMaintainerTKL  = "Turnkey Linux <support@turnkeylinux.org>"
	aplSectionSystem  = "system"
	aplSectionTurnkey = "turnkeylinux"
)

// applianceCatalog is the simulated index: a few system templates of
// download.proxmox.com and one TurnKey appliance. The checksums are those
// of the simulated files (sha512 of a fixed text per template), and sizes
// plausible ones; the Debian 13 template is the one every node's "local"
// storage starts with (seed.go).
var applianceCatalog = func() map[string]appliance {
	system := func(pkg, os, version, headline, description, ext string, size int64) appliance {
		template := pkg + "_" + version + "_amd64.tar." + ext
		return appliance{size: size, fields: map[string]string{
			"package": pkg, "os": os, "version": version, "type": "lxc", "section": aplSectionSystem,
			"headline": headline, "description": description, "infopage": aplInfopageLXC,
			"maintainer": aplMaintainerPVE, "architecture": "amd64",
			"location": aplSourceProxmox + "/" + aplSectionSystem + "/" + template,
			"source":   aplSourceProxmox, "template": template,
		}}
	}
	list := []appliance{
		system("debian-13-standard", "debian-13", "13.1-1", "Debian 13 Trixie (standard)",
			"A small Debian Trixie system including all standard packages.", "zst", 126*mib),
		system("debian-12-standard", "debian-12", "12.12-1", "Debian 12 Bookworm (standard)",
			"A small Debian Bookworm system including all standard packages.", "zst", 120*mib),
		system("ubuntu-24.04-standard", "ubuntu-24.04", "24.04-2", "Ubuntu 24.04 Noble (standard)",
			"A small Ubuntu 24.04 Noble Numbat system including all standard packages.", "zst", 141*mib),
		system("alpine-3.22-default", "alpine-3.22", "20250617", "Alpine Linux 3.22 (default)",
			"A small Alpine Linux system with a few default packages.", "xz", 3*mib),
		{size: 316 * mib, fields: map[string]string{
			"package": "turnkey-wordpress", "os": "debian-12", "version": "18.1-1", "type": "lxc",
			"section": aplSectionTurnkey, "headline": "TurnKey WordPress",
			"description": "WordPress is an open source blogging and content management system.",
			"infopage":    "https://www.turnkeylinux.org/wordpress", "maintainer": aplMaintainerTKL,
			"architecture": "amd64", "certified": "yes", "manageurl": "https://__IPADDRESS__/",
			"location": aplSourceTurnkey + "/debian-12-turnkey-wordpress_18.1-1_amd64.tar.gz",
			"source":   aplSourceTurnkey, "template": "debian-12-turnkey-wordpress_18.1-1_amd64.tar.gz",
		}},
	}
	out := map[string]appliance{}
	for _, a := range list {
		sum := sha512.Sum512([]byte("pvesim appliance " + a.fields["template"]))
		a.fields["sha512sum"] = hex.EncodeToString(sum[:])
		out[a.fields["template"]] = a
	}
	return out
}()

// seedDigests are the digests the simulator knows of a seed file: those of
// its appliance record when it is one.
func seedDigests(volid string) map[string]string {
	_, name, ok := strings.Cut(volid, ":vztmpl/")
	if !ok {
		return nil
	}
	if a, known := applianceCatalog[name]; known {
		return map[string]string{"sha512": a.fields["sha512sum"]}
	}
	return nil
}

func (s *Sim) registerAplinfoRoutes() {
	s.handle(http.MethodGet, "/nodes/{node}/aplinfo", route{handle: aplinfoIndex})
	s.handle(http.MethodPost, "/nodes/{node}/aplinfo", route{
		perm:   permission{path: "/storage/{storage}", privs: []string{"Datastore.AllocateTemplate"}},
		handle: s.aplDownload,
	})
	s.handle(http.MethodGet, "/nodes/{node}/query-url-metadata", route{handle: queryURLMetadata})
}

// aplinfoIndex is aplinfo: every record of the index (pve-web-news left
// out), each with the fields its record has. PVE walks a Perl hash (no
// order); the simulator sorts by template.
func aplinfoIndex(*call) (any, error) {
	out := []map[string]string{}
	for _, name := range sortedKeys(applianceCatalog) {
		out = append(out, copyMap(applianceCatalog[name].fields))
	}
	return out, nil
}

// aplDownload is pve-manager PVE/API2/Nodes.pm apl_download (its texts):
// the template must be in the index (a parameter error), the storage
// enabled on the node, the record of type lxc or openvz and the storage
// able to hold templates; the worker ('download', id the template) is
// pve-common src/PVE/Tools.pm download_file_from_url with the record's
// sha512sum required: an existing file is kept when its checksum matches
// and refused otherwise (its "checksum mismatch ... aborting" text).
func (s *Sim) aplDownload(c *call) (any, error) {
	node, template := c.str("node"), c.str("template")
	apl, ok := applianceCatalog[template]
	if !ok {
		return nil, paramError(map[string]string{"template": "no such template"})
	}
	st, err := usableStorage(c.cluster, c.str("storage"), node)
	if err != nil {
		return nil, err
	}
	a := apl.fields
	if a["type"] != "openvz" && a["type"] != "lxc" {
		return nil, errorf("unknown template type '%s'", a["type"])
	}
	if !st.hasContent("vztmpl") {
		return nil, errorf("storage '%s' does not support templates", st.ID)
	}
	cl := c.cluster
	dest := contentPath(st, "vztmpl", template)
	// download_file_from_url looks at the destination as the worker starts
	// (keepExistingDownload); the template is in place when it ends
	// (pve-manager PVE/API2/Nodes.pm apl_download $worker).
	volid := contentVolID(st.ID, "vztmpl", template)
	done := false
	t := s.startWorker(node, "download", template, c.user, workerSpec{
		begin: func(t *Task) error {
			t.Log("downloading %s to %s", a["location"], dest)
			var err error
			done, err = keepExistingDownload(t, cl.Volume(node, volid), "sha512", a["sha512sum"], dest)
			return err
		},
		work: func(t *Task) error {
			if done {
				return nil
			}
			if free := st.Capacity - cl.used(st, node); apl.size > free {
				// inferred: what wget reports when the disk fills up, as the
				// simulator's download-url has it.
				tmp := dest + ".tmp_dwnl." + itoa(t.PID)
				t.Log("%s: No space left on device", tmp)
				return errorf("download failed: command 'wget --progress=dot:giga -O %s %s' failed: exit code 3", tmp, a["location"])
			}
			t.Log("calculating checksum...OK, checksum verified")
			if err := cl.AddVolume(&Volume{
				VolID: volid, Storage: st.ID, Node: node,
				Content: "vztmpl", Format: templateFormat("vztmpl", template), Size: apl.size,
				CTime: s.now().Unix(), Digests: map[string]string{"sha512": a["sha512sum"]},
			}); err != nil {
				return err
			}
			t.Log("download of '%s' to '%s' finished", a["location"], dest)
			return nil
		},
	})
	return t.UPID, nil
}
