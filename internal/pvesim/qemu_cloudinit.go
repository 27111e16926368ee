package pvesim

import (
	"bytes"
	"io"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/seediso"
)

// SeedCheck is what the simulator found in an uploaded ISO image small
// enough to be a NoCloud seed (W32): the image as a guest would read it, or
// why it is no ISO 9660 image. PVE itself keeps any bytes as an iso; the
// record lets tests assert that what the provider attached is a real seed.
type SeedCheck struct {
	Parsed *seediso.Parsed
	Err    error
}

// IsSeed reports whether the image is a seed cloud-init would take: label
// cidata, user-data and meta-data at the root.
func (c *SeedCheck) IsSeed() error {
	if c.Err != nil {
		return c.Err
	}
	return c.Parsed.CheckSeed()
}

// maxSeedCheckBytes bounds the images the simulator parses; bigger ISOs
// are installers, not seeds.
const maxSeedCheckBytes = 16 << 20

// seedCapture keeps the bytes of an uploaded .iso while they stream in,
// up to maxSeedCheckBytes.
type seedCapture struct {
	buf  bytes.Buffer
	over bool
}

// newSeedCapture returns a capture for a file named like an ISO, or nil.
func newSeedCapture(fileName string) *seedCapture {
	if !strings.HasSuffix(strings.ToLower(fileName), ".iso") {
		return nil
	}
	return &seedCapture{}
}

// writer is where the upload copies the file besides its blob.
func (c *seedCapture) writer() io.Writer {
	if c == nil {
		return io.Discard
	}
	return c
}

func (c *seedCapture) Write(p []byte) (int, error) {
	if !c.over && c.buf.Len()+len(p) <= maxSeedCheckBytes {
		c.buf.Write(p)
	} else {
		c.over = true
		c.buf = bytes.Buffer{}
	}
	return len(p), nil
}

// check parses the captured image; nil when there is nothing to check.
func (c *seedCapture) check() *SeedCheck {
	if c == nil || c.over {
		return nil
	}
	data := c.buf.Bytes()
	parsed, err := seediso.Parse(bytes.NewReader(data), int64(len(data)))
	return &SeedCheck{Parsed: parsed, Err: err}
}
