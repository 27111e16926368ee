package seediso

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf16"
)

// Fixed layout of a built image. Every structure but the directories and the
// file data fits in one sector, so their places are constants.
const (
	sectorPrimaryDescriptor = firstDescriptorSector
	sectorJolietDescriptor  = firstDescriptorSector + 1
	sectorTerminator        = firstDescriptorSector + 2
	sectorPathTableL        = firstDescriptorSector + 3
	sectorPathTableM        = firstDescriptorSector + 4
	sectorJolietPathTableL  = firstDescriptorSector + 5
	sectorJolietPathTableM  = firstDescriptorSector + 6
	sectorContinuationArea  = firstDescriptorSector + 7
	sectorFirstDirectory    = firstDescriptorSector + 8

	// trailingPaddingSectors of zeros end the image, as genisoimage and
	// xorriso add by default: CD-ROM read-ahead past the last file would
	// otherwise hit the end of the medium and log I/O errors in the guest.
	trailingPaddingSectors = 150

	// pathTableSize is the size of a path table holding only the root.
	pathTableSize = 10
)

// Rock Ridge (RRIP 1.10) values for the entries the image carries.
const (
	rockRidgeID                = "RRIP_1991A"
	rockRidgeDescriptor        = "THE ROCK RIDGE INTERCHANGE PROTOCOL PROVIDES SUPPORT FOR POSIX FILE SYSTEM SEMANTICS"
	rockRidgeSource            = "PLEASE CONTACT DISC PUBLISHER FOR SPECIFICATION SOURCE.  SEE PUBLISHER IDENTIFIER IN PRIMARY VOLUME DESCRIPTOR FOR CONTACT INFORMATION."
	modeDirectory       uint32 = 0o40555
	modeFile            uint32 = 0o100444
)

// isoFile is one file at the image's root.
type isoFile struct {
	name string // the exact name a guest sees through Rock Ridge or Joliet
	data []byte
}

// imageEntry is an isoFile placed in the image.
type imageEntry struct {
	isoFile
	shortName string // ISO 9660 level-1 identifier, e.g. "USER_DAT.;1"
	extent    uint32
}

// longNamePattern keeps names inside what Joliet, Rock Ridge and every
// guest accept; the seed only ever writes cloud-init's fixed file names.
var longNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// labelPattern allows lower case although ECMA-119 asks for d-characters:
// cloud-init looks for "cidata", and genisoimage writes the label as given.
var labelPattern = regexp.MustCompile(`^[A-Za-z0-9_]{1,16}$`)

// writeImage returns an ISO 9660 image with Rock Ridge and Joliet names,
// volume label label and files at the root. The bytes depend only on the
// arguments.
func writeImage(label string, files []isoFile) ([]byte, error) {
	if !labelPattern.MatchString(label) {
		return nil, fmt.Errorf("volume label %q: use 1 to 16 letters, digits or underscores", label)
	}
	entries, err := placeEntries(files)
	if err != nil {
		return nil, err
	}

	// Record lengths do not depend on extents, so a first pass with zero
	// extents sizes the directories and a second pass fills them in.
	primaryDir, err := primaryDirectory(entries, 0, 0)
	if err != nil {
		return nil, err
	}
	jolietDir, err := jolietDirectory(entries, 0, 0)
	if err != nil {
		return nil, err
	}
	primaryRoot := uint32(sectorFirstDirectory)
	primarySize := uint32(len(primaryDir))
	jolietRoot := primaryRoot + sectorsFor(len(primaryDir))
	jolietSize := uint32(len(jolietDir))
	next := jolietRoot + sectorsFor(len(jolietDir))
	for i := range entries {
		entries[i].extent = next
		next += sectorsFor(len(entries[i].data))
	}
	totalSectors := next + trailingPaddingSectors

	if primaryDir, err = primaryDirectory(entries, primaryRoot, primarySize); err != nil {
		return nil, err
	}
	if jolietDir, err = jolietDirectory(entries, jolietRoot, jolietSize); err != nil {
		return nil, err
	}

	img := make([]byte, int(totalSectors)*sectorSize)
	at := func(sector uint32) []byte { return img[int(sector)*sectorSize:] }

	copy(at(sectorPrimaryDescriptor), volumeDescriptor(volumeInfo{
		label: label, totalSectors: totalSectors,
		pathTableL: sectorPathTableL, pathTableM: sectorPathTableM,
		rootExtent: primaryRoot, rootSize: primarySize,
	}))
	copy(at(sectorJolietDescriptor), volumeDescriptor(volumeInfo{
		joliet: true, label: label, totalSectors: totalSectors,
		pathTableL: sectorJolietPathTableL, pathTableM: sectorJolietPathTableM,
		rootExtent: jolietRoot, rootSize: jolietSize,
	}))
	copy(at(sectorTerminator), terminatorDescriptor())
	writePathTables(at(sectorPathTableL), at(sectorPathTableM), primaryRoot)
	writePathTables(at(sectorJolietPathTableL), at(sectorJolietPathTableM), jolietRoot)
	copy(at(sectorContinuationArea), rockRidgeER())
	copy(at(primaryRoot), primaryDir)
	copy(at(jolietRoot), jolietDir)
	for _, e := range entries {
		copy(at(e.extent), e.data)
	}
	return img, nil
}

// placeEntries validates the names, gives each file its level-1 short name
// and orders the files by long name, which is also the order of their data.
func placeEntries(files []isoFile) ([]imageEntry, error) {
	entries := make([]imageEntry, 0, len(files))
	seenShort := map[string]string{}
	for _, f := range files {
		if !longNamePattern.MatchString(f.name) {
			return nil, fmt.Errorf("file name %q: use 1 to 64 letters, digits, dots, hyphens or underscores", f.name)
		}
		short := shortName(f.name)
		if other, dup := seenShort[short]; dup {
			return nil, fmt.Errorf("file names %q and %q map to the same ISO 9660 name %q", other, f.name, short)
		}
		seenShort[short] = f.name
		entries = append(entries, imageEntry{isoFile: f, shortName: short})
	}
	slices.SortFunc(entries, func(a, b imageEntry) int { return strings.Compare(a.name, b.name) })
	return entries, nil
}

// shortName maps a long name to an ISO 9660 level-1 identifier: at most eight
// d-characters, a dot, at most three d-characters, version ";1". Only guests
// that ignore both Rock Ridge and Joliet ever see it.
func shortName(long string) string {
	base, ext := long, ""
	if i := strings.LastIndexByte(long, '.'); i > 0 {
		base, ext = long[:i], long[i+1:]
	}
	return dCharacters(base, 8) + "." + dCharacters(ext, 3) + ";1"
}

// dCharacters upper-cases s, replaces what is not a d-character (A-Z, 0-9,
// _) with '_' and cuts it to max characters.
func dCharacters(s string, maxLen int) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if b.Len() == maxLen {
			break
		}
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// primaryDirectory is the root directory of the primary tree: "." and ".."
// then the files by short name, each with Rock Ridge entries. Comparing the
// identifiers as bytes is the ECMA-119 9.3 order here because d-characters
// all sort after the '.' separator, as they do after the padding space.
func primaryDirectory(entries []imageEntry, rootExtent, rootSize uint32) ([]byte, error) {
	self := slices.Concat(
		rockRidgeSP(),
		rockRidgePX(modeDirectory, 2),
		rockRidgeCE(sectorContinuationArea, 0, uint32(len(rockRidgeER()))),
	)
	records := [][]byte{
		directoryRecord(rootExtent, rootSize, flagDirectory, []byte{identSelf}, self),
		directoryRecord(rootExtent, rootSize, flagDirectory, []byte{identParent}, rockRidgePX(modeDirectory, 2)),
	}
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b imageEntry) int { return strings.Compare(a.shortName, b.shortName) })
	for _, e := range sorted {
		su := slices.Concat(rockRidgeNM(e.name), rockRidgePX(modeFile, 1))
		records = append(records, directoryRecord(e.extent, uint32(len(e.data)), 0, []byte(e.shortName), su))
	}
	return packRecords(records)
}

// jolietDirectory is the root directory of the Joliet tree: the files by
// their UCS-2 names, which for ASCII names sort as the names do. Joliet
// names carry no ";1" version: Linux and Windows both read them without.
func jolietDirectory(entries []imageEntry, rootExtent, rootSize uint32) ([]byte, error) {
	records := [][]byte{
		directoryRecord(rootExtent, rootSize, flagDirectory, []byte{identSelf}, nil),
		directoryRecord(rootExtent, rootSize, flagDirectory, []byte{identParent}, nil),
	}
	for _, e := range entries {
		records = append(records, directoryRecord(e.extent, uint32(len(e.data)), 0, ucs2(e.name), nil))
	}
	return packRecords(records)
}

// directoryRecord lays out one ECMA-119 9.1 directory record. A padding byte
// follows an identifier of even length, and the record as a whole is kept
// to an even length, so the system use area starts on an even offset.
func directoryRecord(extent, size uint32, flags byte, ident, systemUse []byte) []byte {
	n := recordFixedLength + len(ident)
	if len(ident)%2 == 0 {
		n++
	}
	suStart := n
	n += len(systemUse)
	if n%2 == 1 {
		n++
	}
	rec := make([]byte, n)
	rec[0] = byte(n) // checked against recordMaxLength by packRecords
	putBoth32(rec[recordExtent:], extent)
	putBoth32(rec[recordDataLength:], size)
	date := recordingTime(fixedEpoch)
	copy(rec[18:25], date[:])
	rec[recordFlags] = flags
	putBoth16(rec[28:], 1) // volume sequence number
	rec[recordIdentLength] = byte(len(ident))
	copy(rec[recordFixedLength:], ident)
	copy(rec[suStart:], systemUse)
	return rec
}

// packRecords puts records one after another; one that does not fit in
// what is left of a sector starts the next sector (ECMA-119 6.8.1.1).
func packRecords(records [][]byte) ([]byte, error) {
	var buf bytes.Buffer
	for _, rec := range records {
		if len(rec) > recordMaxLength {
			return nil, fmt.Errorf("directory record of %d bytes exceeds %d", len(rec), recordMaxLength)
		}
		if used := buf.Len() % sectorSize; used+len(rec) > sectorSize {
			buf.Write(make([]byte, sectorSize-used))
		}
		buf.Write(rec)
	}
	if used := buf.Len() % sectorSize; used != 0 {
		buf.Write(make([]byte, sectorSize-used))
	}
	return buf.Bytes(), nil
}

// volumeInfo is what differs between the primary and the Joliet volume
// descriptor.
type volumeInfo struct {
	joliet                 bool
	label                  string
	totalSectors           uint32
	pathTableL, pathTableM uint32
	rootExtent, rootSize   uint32
}

// volumeDescriptor lays out a primary (ECMA-119 8.4) or Joliet
// supplementary volume descriptor; both share one layout.
func volumeDescriptor(v volumeInfo) []byte {
	d := make([]byte, sectorSize)
	d[0] = descriptorPrimary
	if v.joliet {
		d[0] = descriptorSupplementary
		copy(d[vdEscapeSequences:], jolietLevels[2])
	}
	copy(d[1:6], standardIdentifier)
	d[6] = 1 // descriptor version
	putText(d[8:40], "", v.joliet)
	putText(d[vdVolumeIdentifier:72], v.label, v.joliet)
	putBoth32(d[vdVolumeSpaceSize:], v.totalSectors)
	putBoth16(d[120:], 1) // volume set size
	putBoth16(d[124:], 1) // volume sequence number
	putBoth16(d[vdLogicalBlockSize:], sectorSize)
	putBoth32(d[132:], pathTableSize)
	binary.LittleEndian.PutUint32(d[140:], v.pathTableL)
	binary.BigEndian.PutUint32(d[148:], v.pathTableM)
	copy(d[vdRootRecord:], directoryRecord(v.rootExtent, v.rootSize, flagDirectory, []byte{identSelf}, nil))
	for _, field := range [][2]int{{190, 318}, {318, 446}, {446, 574}, {574, 702}, {702, 739}, {739, 776}, {776, 813}} {
		putText(d[field[0]:field[1]], "", v.joliet)
	}
	made := volumeTime(fixedEpoch)
	unspecified := unspecifiedVolumeTime()
	copy(d[813:], made[:])        // creation
	copy(d[830:], made[:])        // modification; blkid derives the UUID from it
	copy(d[847:], unspecified[:]) // expiration
	copy(d[864:], unspecified[:]) // effective
	d[881] = 1                    // file structure version
	return d
}

// terminatorDescriptor ends the volume descriptor set.
func terminatorDescriptor() []byte {
	d := make([]byte, sectorSize)
	d[0] = descriptorTerminator
	copy(d[1:6], standardIdentifier)
	d[6] = 1
	return d
}

// putText fills an identifier field with s and pads it with spaces: single
// bytes in the primary descriptor, UCS-2 big-endian pairs in a Joliet one
// (an odd trailing byte stays zero).
func putText(field []byte, s string, joliet bool) {
	if !joliet {
		copy(field, s)
		for i := len(s); i < len(field); i++ {
			field[i] = ' '
		}
		return
	}
	encoded := ucs2(s)
	copy(field, encoded)
	for i := len(encoded); i+1 < len(field); i += 2 {
		field[i], field[i+1] = 0x00, ' '
	}
}

// ucs2 encodes an ASCII or BMP string as UCS-2 big-endian.
func ucs2(s string) []byte {
	units := utf16.Encode([]rune(s))
	out := make([]byte, 2*len(units))
	for i, u := range units {
		binary.BigEndian.PutUint16(out[2*i:], u)
	}
	return out
}

// writePathTables writes the little-endian (L) and big-endian (M) path
// tables of a tree whose only directory is the root (ECMA-119 9.4).
func writePathTables(l, m []byte, rootExtent uint32) {
	for _, t := range [][]byte{l, m} {
		t[0] = 1 // identifier length
		t[1] = 0 // extended attribute record length
		t[8] = identSelf
	}
	binary.LittleEndian.PutUint32(l[2:], rootExtent)
	binary.LittleEndian.PutUint16(l[6:], 1) // parent: the root itself
	binary.BigEndian.PutUint32(m[2:], rootExtent)
	binary.BigEndian.PutUint16(m[6:], 1)
}

// rockRidgeSP marks the root's "." record as using SUSP (SUSP 5.3), with no
// bytes skipped before each record's entries.
func rockRidgeSP() []byte {
	return []byte{'S', 'P', 7, 1, 0xBE, 0xEF, 0}
}

// rockRidgePX carries POSIX mode and link count, owner root (RRIP 4.1.1).
func rockRidgePX(mode, links uint32) []byte {
	e := make([]byte, 36)
	copy(e, "PX")
	e[2], e[3] = byte(len(e)), 1
	putBoth32(e[4:], mode)
	putBoth32(e[12:], links)
	return e
}

// rockRidgeNM carries the exact file name (RRIP 4.1.4).
func rockRidgeNM(name string) []byte {
	return append([]byte{'N', 'M', byte(5 + len(name)), 1, 0}, name...)
}

// rockRidgeCE points to the continuation area holding the ER entry, which
// does not fit in the 255 bytes of the root's "." record (SUSP 5.1).
func rockRidgeCE(sector, offset, length uint32) []byte {
	e := make([]byte, 28)
	copy(e, "CE")
	e[2], e[3] = byte(len(e)), 1
	putBoth32(e[4:], sector)
	putBoth32(e[12:], offset)
	putBoth32(e[20:], length)
	return e
}

// rockRidgeER declares the Rock Ridge extension (SUSP 5.5). Linux uses the
// Rock Ridge names in preference to Joliet only once it has seen this entry.
func rockRidgeER() []byte {
	e := []byte{'E', 'R', 0, 1, byte(len(rockRidgeID)), byte(len(rockRidgeDescriptor)), byte(len(rockRidgeSource)), 1}
	e = append(e, rockRidgeID...)
	e = append(e, rockRidgeDescriptor...)
	e = append(e, rockRidgeSource...)
	e[2] = byte(len(e))
	return e
}
