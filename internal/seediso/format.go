package seediso

import (
	"encoding/binary"
	"fmt"
	"time"
)

// Structure of ISO 9660 (ECMA-119), Joliet and the System Use Sharing
// Protocol / Rock Ridge as far as a flat image with one root directory needs
// them. Offsets are those of ECMA-119 sections 8.4 (volume descriptors) and
// 9.1 (directory records).
const (
	sectorSize            = 2048
	firstDescriptorSector = 16 // sectors 0-15 are the system area

	descriptorPrimary       = 1
	descriptorSupplementary = 2
	descriptorTerminator    = 255

	standardIdentifier = "CD001"

	// Volume descriptor field offsets.
	vdVolumeIdentifier = 40
	vdVolumeSpaceSize  = 80
	vdEscapeSequences  = 88
	vdLogicalBlockSize = 128
	vdRootRecord       = 156

	// Directory record field offsets and limits.
	recordExtent      = 2
	recordDataLength  = 10
	recordFlags       = 25
	recordIdentLength = 32
	recordFixedLength = 33 // bytes before the file identifier
	recordMaxLength   = 255

	flagDirectory   = 0x02
	flagAssociated  = 0x04
	flagMultiExtent = 0x80

	// Identifiers of the "." and ".." records.
	identSelf   = 0x00
	identParent = 0x01
)

// jolietLevels are the escape sequences of a Joliet supplementary volume
// descriptor (UCS-2 levels 1 to 3).
var jolietLevels = []string{"%/@", "%/C", "%/E"}

// fixedEpoch stands in for every timestamp in a built image. The date means
// nothing; it is constant so that identical inputs give identical bytes.
var fixedEpoch = time.Date(2020, time.January, 1, 0, 0, 0, 0, time.UTC)

// putBoth32 writes v in ECMA-119 "both-byte order": little-endian then
// big-endian, 8 bytes.
func putBoth32(b []byte, v uint32) {
	binary.LittleEndian.PutUint32(b, v)
	binary.BigEndian.PutUint32(b[4:], v)
}

// putBoth16 writes v in both-byte order, 4 bytes.
func putBoth16(b []byte, v uint16) {
	binary.LittleEndian.PutUint16(b, v)
	binary.BigEndian.PutUint16(b[2:], v)
}

// readBoth32 reads the little-endian half of a both-byte-order field, as the
// Linux kernel does, so an image whose big-endian half is wrong still reads
// the way a guest would read it.
func readBoth32(b []byte) uint32 {
	return binary.LittleEndian.Uint32(b)
}

// recordingTime is the 7-byte date of a directory record (ECMA-119 9.1.5):
// years since 1900, month, day, hour, minute, second, offset from UTC in
// 15-minute steps.
func recordingTime(t time.Time) [7]byte {
	t = t.UTC()
	return [7]byte{
		byte(t.Year() - 1900), byte(t.Month()), byte(t.Day()),
		byte(t.Hour()), byte(t.Minute()), byte(t.Second()), 0,
	}
}

// volumeTime is the 17-byte date of a volume descriptor (ECMA-119 8.4.26.1):
// sixteen ASCII digits and the UTC offset byte.
func volumeTime(t time.Time) [17]byte {
	t = t.UTC()
	var out [17]byte
	copy(out[:], fmt.Sprintf("%04d%02d%02d%02d%02d%02d%02d",
		t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1e7))
	return out
}

// unspecifiedVolumeTime is ECMA-119's "not specified" date: all digits zero.
func unspecifiedVolumeTime() [17]byte {
	var out [17]byte
	copy(out[:], "0000000000000000")
	return out
}

// sectorsFor is the number of whole sectors n bytes occupy.
func sectorsFor(n int) uint32 {
	return uint32((n + sectorSize - 1) / sectorSize)
}
