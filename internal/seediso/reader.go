package seediso

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
)

// ErrInvalidImage is wrapped by every error Parse returns for input that is
// not a readable ISO 9660 image (garbage, truncated, corrupt or using
// features this reader does not follow).
var ErrInvalidImage = errors.New("invalid ISO 9660 image")

// Limits that keep Parse cheap on hostile input.
const (
	maxDescriptors        = 32      // volume descriptors scanned before giving up on a terminator
	maxRootDirectoryBytes = 1 << 20 // far above any real root directory
	maxContinuations      = 16      // SUSP continuation areas followed per record
)

// Parsed is what a guest sees of an image: its volume label and the regular
// files at its root, by the names Linux shows with default mount options.
type Parsed struct {
	Label string
	Files map[string][]byte
}

// Parse reads the ISO 9660 image of size bytes behind r. Names come from
// Rock Ridge when the image has it, otherwise from Joliet, otherwise from
// the plain ISO 9660 identifiers lower-cased without ";1" (as Linux maps
// them). Files in subdirectories are not read; a root file larger than
// MaxFileSize is an error.
func Parse(r io.ReaderAt, size int64) (*Parsed, error) {
	return parse(r, size, nameSources{rockRidge: true, joliet: true})
}

// nameSources chooses which extensions parse may take names from; tests
// turn them off to read each tree of a built image on its own.
type nameSources struct {
	rockRidge bool
	joliet    bool
}

func parse(r io.ReaderAt, size int64, sources nameSources) (*Parsed, error) {
	img := imageReader{r: r, size: size}
	primary, joliet, err := img.volumeDescriptors()
	if err != nil {
		return nil, err
	}
	if blockSize := binary.LittleEndian.Uint16(primary[vdLogicalBlockSize:]); blockSize != sectorSize {
		return nil, invalid("logical block size %d is not %d", blockSize, sectorSize)
	}
	if declared := int64(readBoth32(primary[vdVolumeSpaceSize:])) * sectorSize; declared > size {
		return nil, invalid("the volume declares %d bytes but the image has %d (truncated?)", declared, size)
	}
	parsed := &Parsed{
		Label: strings.TrimRight(string(primary[vdVolumeIdentifier:vdVolumeIdentifier+32]), " \x00"),
	}

	records, err := img.rootRecords(primary)
	if err != nil {
		return nil, err
	}
	rockRidge, skip := false, 0
	if sources.rockRidge && len(records) > 0 {
		rockRidge, skip = suspInUse(records[0])
	}
	nameOf := plainName
	switch {
	case rockRidge:
		nameOf = func(rec directoryEntry) (string, error) { return img.rockRidgeName(rec, skip) }
	case sources.joliet && joliet != nil:
		if records, err = img.rootRecords(joliet); err != nil {
			return nil, err
		}
		nameOf = jolietName
	}

	parsed.Files = map[string][]byte{}
	for _, rec := range records {
		if rec.isSelfOrParent() || rec.flags&(flagDirectory|flagAssociated) != 0 {
			continue
		}
		name, err := nameOf(rec)
		if err != nil {
			return nil, err
		}
		if name == "" {
			return nil, invalid("a root file has an empty name")
		}
		if rec.flags&flagMultiExtent != 0 {
			return nil, invalid("file %q spans several extents, which this reader does not follow", name)
		}
		if _, dup := parsed.Files[name]; dup {
			return nil, invalid("the root directory holds %q twice", name)
		}
		if rec.size > MaxFileSize {
			return nil, invalid("file %q is %d bytes, above the %d this reader loads", name, rec.size, MaxFileSize)
		}
		data, err := img.read(int64(rec.extent)*sectorSize, int64(rec.size))
		if err != nil {
			return nil, fmt.Errorf("file %q: %w", name, err)
		}
		parsed.Files[name] = data
	}
	return parsed, nil
}

// imageReader reads bounded ranges of an image.
type imageReader struct {
	r    io.ReaderAt
	size int64
}

// read returns n bytes at off, refusing ranges outside the image.
func (img imageReader) read(off, n int64) ([]byte, error) {
	if off < 0 || n < 0 || off > img.size || n > img.size-off {
		return nil, invalid("%d bytes at offset %d lie beyond the end of the %d-byte image (truncated?)", n, off, img.size)
	}
	buf := make([]byte, n)
	if n == 0 {
		return buf, nil
	}
	got, err := img.r.ReadAt(buf, off)
	if got == len(buf) {
		return buf, nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return nil, fmt.Errorf("%w: reading %d bytes at offset %d: %w", ErrInvalidImage, n, off, err)
}

// volumeDescriptors scans the descriptor set from sector 16 to its
// terminator and returns the primary descriptor and, when present, a Joliet
// supplementary descriptor.
func (img imageReader) volumeDescriptors() (primary, joliet []byte, err error) {
	if minSize := int64(firstDescriptorSector+1) * sectorSize; img.size < minSize {
		return nil, nil, invalid("%d bytes is smaller than the %d before the first volume descriptor ends", img.size, minSize)
	}
	for i := range maxDescriptors {
		sector := int64(firstDescriptorSector + i)
		if (sector+1)*sectorSize > img.size {
			return nil, nil, invalid("volume descriptor set ends without a terminator at sector %d", sector)
		}
		d, err := img.read(sector*sectorSize, sectorSize)
		if err != nil {
			return nil, nil, err
		}
		if string(d[1:6]) != standardIdentifier {
			return nil, nil, invalid("no %s volume descriptor at sector %d", standardIdentifier, sector)
		}
		switch d[0] {
		case descriptorPrimary:
			if primary == nil {
				primary = d
			}
		case descriptorSupplementary:
			if joliet == nil && isJoliet(d) {
				joliet = d
			}
		case descriptorTerminator:
			if primary == nil {
				return nil, nil, invalid("no primary volume descriptor")
			}
			return primary, joliet, nil
		}
	}
	return nil, nil, invalid("no volume descriptor set terminator within %d descriptors", maxDescriptors)
}

// isJoliet tells a Joliet supplementary descriptor by its UCS-2 escape
// sequence.
func isJoliet(d []byte) bool {
	escape := string(d[vdEscapeSequences : vdEscapeSequences+3])
	for _, level := range jolietLevels {
		if escape == level {
			return true
		}
	}
	return false
}

// directoryEntry is one parsed directory record.
type directoryEntry struct {
	extent    uint32
	size      uint32
	flags     byte
	ident     []byte
	systemUse []byte
}

func (e directoryEntry) isSelfOrParent() bool {
	return len(e.ident) == 1 && (e.ident[0] == identSelf || e.ident[0] == identParent)
}

// rootRecords reads the root directory a volume descriptor points to.
func (img imageReader) rootRecords(descriptor []byte) ([]directoryEntry, error) {
	root := descriptor[vdRootRecord : vdRootRecord+34]
	extent, size := readBoth32(root[recordExtent:]), readBoth32(root[recordDataLength:])
	if size > maxRootDirectoryBytes {
		return nil, invalid("root directory of %d bytes exceeds %d", size, maxRootDirectoryBytes)
	}
	dir, err := img.read(int64(extent)*sectorSize, int64(size))
	if err != nil {
		return nil, fmt.Errorf("root directory: %w", err)
	}
	return parseRecords(dir)
}

// parseRecords splits a directory extent into records. A zero length byte
// means the rest of the sector is unused (ECMA-119 6.8.1.1).
func parseRecords(dir []byte) ([]directoryEntry, error) {
	var entries []directoryEntry
	for off := 0; off < len(dir); {
		n := int(dir[off])
		if n == 0 {
			off = (off/sectorSize + 1) * sectorSize
			continue
		}
		if n < recordFixedLength+1 || off+n > len(dir) {
			return nil, invalid("malformed directory record at byte %d of the root directory", off)
		}
		rec := dir[off : off+n]
		identLen := int(rec[recordIdentLength])
		identEnd := recordFixedLength + identLen
		if identLen == 0 || identEnd > n {
			return nil, invalid("directory record at byte %d has an identifier longer than the record", off)
		}
		suStart := identEnd
		if identLen%2 == 0 {
			suStart++
		}
		suStart = min(suStart, n)
		entries = append(entries, directoryEntry{
			extent:    readBoth32(rec[recordExtent:]),
			size:      readBoth32(rec[recordDataLength:]),
			flags:     rec[recordFlags],
			ident:     rec[recordFixedLength:identEnd],
			systemUse: rec[suStart:],
		})
		off += n
	}
	return entries, nil
}

// suspInUse reports whether the root's "." record starts with a SUSP "SP"
// entry, and how many bytes every record's system use area skips.
func suspInUse(self directoryEntry) (bool, int) {
	su := self.systemUse
	if len(su) >= 7 && su[0] == 'S' && su[1] == 'P' && su[2] == 7 && su[4] == 0xBE && su[5] == 0xEF {
		return true, int(su[6])
	}
	return false, 0
}

// Flags of a Rock Ridge NM entry.
const (
	nmContinue = 0x01
	nmCurrent  = 0x02
	nmParent   = 0x04
)

// rockRidgeName assembles the NM entries of a record, following SUSP
// continuation areas; a record without NM keeps its plain name.
func (img imageReader) rockRidgeName(rec directoryEntry, skip int) (string, error) {
	if skip > len(rec.systemUse) {
		return plainName(rec)
	}
	su := rec.systemUse[skip:]
	var name []byte
	found := false
	for hops := 0; ; hops++ {
		var next []byte // CE body: sector, offset, length
		for len(su) >= 4 {
			n := int(su[2])
			if n < 4 || n > len(su) {
				break // padding or damage: the rest is not SUSP, as Linux reads it
			}
			body := su[4:n]
			switch string(su[:2]) {
			case "NM":
				if len(body) >= 1 && body[0]&(nmCurrent|nmParent) == 0 {
					name = append(name, body[1:]...)
					found = true
				}
			case "CE":
				if len(body) >= 24 {
					next = body
				}
			case "ST":
				n = len(su)
			}
			su = su[n:]
		}
		if next == nil {
			break
		}
		if hops == maxContinuations {
			return "", invalid("more than %d SUSP continuation areas for one record", maxContinuations)
		}
		sector, offset, length := readBoth32(next[0:]), readBoth32(next[8:]), readBoth32(next[16:])
		if length > sectorSize {
			return "", invalid("SUSP continuation area of %d bytes exceeds a sector", length)
		}
		var err error
		if su, err = img.read(int64(sector)*sectorSize+int64(offset), int64(length)); err != nil {
			return "", fmt.Errorf("rock ridge continuation area: %w", err)
		}
	}
	if !found {
		return plainName(rec)
	}
	return string(name), nil
}

// jolietName decodes a UCS-2 big-endian identifier and drops a ";1" style
// version and a trailing dot, as Linux does.
func jolietName(rec directoryEntry) (string, error) {
	if len(rec.ident)%2 != 0 {
		return "", invalid("Joliet identifier of odd length %d", len(rec.ident))
	}
	units := make([]uint16, len(rec.ident)/2)
	for i := range units {
		units[i] = binary.BigEndian.Uint16(rec.ident[2*i:])
	}
	return trimVersion(string(utf16.Decode(units))), nil
}

// plainName maps an ISO 9660 identifier the way Linux's default "map=normal"
// does: lower case, no version, no trailing dot ("USER_DAT.;1" ->
// "user_dat").
func plainName(rec directoryEntry) (string, error) {
	return strings.ToLower(trimVersion(string(rec.ident))), nil
}

func trimVersion(name string) string {
	if i := strings.LastIndexByte(name, ';'); i >= 0 {
		name = name[:i]
	}
	return strings.TrimSuffix(name, ".")
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidImage, fmt.Sprintf(format, args...))
}
