package pveapi

import (
	"context"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// backupArchiveName is pve-storage's archive_info grammar for a vzdump
// archive's file name: guest type, the vmid it was made from, a VMA (VMs)
// or tar (containers) archive, optionally compressed.
var backupArchiveName = regexp.MustCompile(`^vzdump-(lxc|openvz|qemu)-(\d+)-.+\.(tgz|tar|vma)(?:\.(gz|lzo|zst|bz2))?$`)

// BackupArchive tells what a backup volume id ("STORAGE:backup/vzdump-...")
// holds by its name, as PVE does: the guest type (GuestTypeQemu for VMA
// archives, GuestTypeLXC for tar archives) and the vmid it was made from.
// ok is false for a name PVE would not take for a vzdump archive.
func BackupArchive(volid string) (guestType string, vmid int, ok bool) {
	storage, volname, found := strings.Cut(volid, ":")
	if !found || storage == "" {
		return "", 0, false
	}
	name, isBackup := strings.CutPrefix(volname, "backup/")
	if !isBackup {
		return "", 0, false
	}
	m := backupArchiveName.FindStringSubmatch(name)
	if m == nil {
		return "", 0, false
	}
	vmid, err := strconv.Atoi(m[2])
	if err != nil {
		return "", 0, false
	}
	switch {
	case m[1] == "qemu" && m[3] == "vma":
		return GuestTypeQemu, vmid, true
	case m[1] != "qemu" && m[3] != "vma":
		return GuestTypeLXC, vmid, true
	}
	return "", 0, false
}

// ExtractConfig reads the guest config a backup archive embeds (GET
// /nodes/{node}/vzdump/extractconfig, W40): the qemu-server.conf of a VM
// archive or the pct.conf of a container archive, parsed like a config
// read. It needs VM.Backup on the archive's guest. A missing archive is a
// 500 "can't find file 'VOLID'"; a volume that is no backup is refused
// with "content type needs to be 'backup'".
func (c *Client) ExtractConfig(ctx context.Context, node, volid string) (GuestConfig, error) {
	var text string
	if err := c.Get(ctx, "/nodes/"+url.PathEscape(node)+"/vzdump/extractconfig", url.Values{"volume": {volid}}, &text); err != nil {
		return nil, err
	}
	return parseConfigFile(text), nil
}

// parseConfigFile reads a guest config file the way PVE's config parsers
// do: "#" lines of the main section are the description (with PVE's %XX
// escapes decoded), "key: value" lines are the keys, and the first
// "[section]" (a snapshot, the pending changes) ends it. vzdump's own
// "#qmdump#" and "#vzdump#" lines are not part of the description.
func parseConfigFile(text string) GuestConfig {
	config := GuestConfig{}
	var description []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case strings.HasPrefix(line, "#qmdump#"), strings.HasPrefix(line, "#vzdump#"):
			continue
		case strings.HasPrefix(line, "["):
			return withDescription(config, description)
		case strings.HasPrefix(line, "#"):
			description = append(description, decodeConfigText(line[1:]))
			continue
		}
		key, value, found := strings.Cut(line, ":")
		key = strings.TrimSpace(key)
		if !found || key == "" {
			continue
		}
		config[key] = strings.TrimSpace(value)
	}
	return withDescription(config, description)
}

func withDescription(config GuestConfig, lines []string) GuestConfig {
	if description := strings.TrimRight(strings.Join(lines, "\n"), "\n"); description != "" {
		config["description"] = description
	}
	return config
}

// configTextEscape is an escape of PVE's encode_text.
var configTextEscape = regexp.MustCompile(`%[0-9a-fA-F]{2}`)

// decodeConfigText is PVE's decode_text for a description line.
func decodeConfigText(s string) string {
	return configTextEscape.ReplaceAllStringFunc(s, func(esc string) string {
		n, err := strconv.ParseUint(esc[1:], 16, 8)
		if err != nil {
			return esc
		}
		return string([]byte{byte(n)})
	})
}
