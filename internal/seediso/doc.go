// Package seediso builds and reads the NoCloud seed images that carry full
// cloud-init user-data to a Proxmox VE guest without SSH to the node (W32).
//
// PVE's upload endpoint takes iso, vztmpl and import content but never
// snippets, so user-data the provider cannot express through PVE's own
// cloud-init keys travels as a small ISO 9660 image: volume label "cidata",
// files user-data, meta-data and optionally vendor-data and network-config at
// the root. The image is uploaded as an iso volume and attached as a cdrom;
// cloud-init's NoCloud datasource finds it by label.
//
// Build writes the image itself rather than through a library because the
// bytes must be identical for identical inputs (otherwise every plan would
// show a change): no clock, no random identifiers, a fixed order. Plain
// ISO 9660 names are upper-case 8.3 ("USER_DAT.;1"), which cloud-init cannot
// use, so the image carries the exact names twice: in Rock Ridge entries of
// the primary tree and in a Joliet tree, the same pair of extensions
// genisoimage writes for "-joliet -rock".
//
// Parse reads an image back (label and root files under the names a Linux
// guest would see) so the simulator can check that an upload really is a
// seed. It trusts nothing in its input: every offset and length is checked
// against the image size before use.
package seediso
