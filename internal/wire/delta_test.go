package wire

import (
	"net/url"
	"slices"
	"testing"
)

// W16: set and delete are disjoint; the last operation on a key wins.
func TestConfigDeltaDisjointW16(t *testing.T) {
	t.Parallel()
	var d ConfigDelta
	if !d.IsEmpty() {
		t.Fatal("zero delta is not empty")
	}
	d.Set("name", "web-01")
	d.Delete("name")
	if _, ok := d.Get("name"); ok || !d.IsDeleted("name") {
		t.Fatal("Delete did not remove the set key")
	}
	d.Set("name", "web-02")
	if v, ok := d.Get("name"); !ok || v != "web-02" || d.IsDeleted("name") {
		t.Fatal("Set did not remove the deleted key")
	}
	d.Delete("sshkeys")
	d.Delete("ipconfig0")
	d.Set("tags", "prod")
	if got := d.SetKeys(); !slices.Equal(got, []string{"name", "tags"}) {
		t.Fatalf("SetKeys = %q", got)
	}
	if got := d.Deleted(); !slices.Equal(got, []string{"ipconfig0", "sshkeys"}) {
		t.Fatalf("Deleted = %q", got)
	}
	d.Forget("tags")
	d.Forget("sshkeys")
	if _, ok := d.Get("tags"); ok || d.IsDeleted("sshkeys") {
		t.Fatal("Forget left the key in the delta")
	}
}

func TestConfigDeltaValues(t *testing.T) {
	t.Parallel()
	var d ConfigDelta
	if got := d.Values(); len(got) != 0 {
		t.Fatalf("empty delta Values = %v", got)
	}
	d.Set("memory", "4096")
	d.Set("description", "line one\nline two")
	got := d.Values()
	if _, ok := got["delete"]; ok {
		t.Fatal("delete present without deletions")
	}
	d.Delete("sshkeys")
	d.Delete("cicustom")
	got = d.Values()
	want := url.Values{
		"memory":      {"4096"},
		"description": {"line one\nline two"},
		"delete":      {"cicustom,sshkeys"},
	}
	if got.Encode() != want.Encode() {
		t.Fatalf("Values = %v, want %v", got, want)
	}
}

func TestConfigDeltaMergeAndClone(t *testing.T) {
	t.Parallel()
	var a, b ConfigDelta
	a.Set("name", "a")
	a.Delete("tags")
	a.Set("cores", "2")
	b.Delete("name")
	b.Set("tags", "x")
	a.Merge(&b)
	a.Merge(nil)
	if !a.IsDeleted("name") || !slices.Equal(a.SetKeys(), []string{"cores", "tags"}) {
		t.Fatalf("Merge: set %q deleted %q", a.SetKeys(), a.Deleted())
	}
	c := a.Clone()
	c.Set("name", "c")
	if !a.IsDeleted("name") {
		t.Fatal("Clone shares state with the original")
	}
	if !b.IsDeleted("name") || len(b.SetKeys()) != 1 {
		t.Fatal("Merge changed its argument")
	}
}

func TestConfigDeltaValidate(t *testing.T) {
	t.Parallel()
	var ok ConfigDelta
	ok.Set("net0", "virtio,bridge=vmbr0")
	ok.Delete("ipconfig1")
	if err := ok.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	for _, key := range []string{"delete", "0net", "a", "bad key", "x,y"} {
		var d ConfigDelta
		d.Set(key, "1")
		if err := d.Validate(); err == nil {
			t.Errorf("Validate accepted set key %q", key)
		}
		var e ConfigDelta
		e.Delete(key)
		if err := e.Validate(); err == nil {
			t.Errorf("Validate accepted deleted key %q", key)
		}
	}
}

// W16: PVE refuses a request that both sets and deletes a key, with its text
// on the delete parameter.
func TestConfigDeltaFromValuesW16(t *testing.T) {
	t.Parallel()
	d, err := ConfigDeltaFromValues(url.Values{"memory": {"4096"}, "delete": {"sshkeys;tags, cicustom"}})
	if err != nil {
		t.Fatalf("ConfigDeltaFromValues: %v", err)
	}
	if !slices.Equal(d.Deleted(), []string{"cicustom", "sshkeys", "tags"}) || !slices.Equal(d.SetKeys(), []string{"memory"}) {
		t.Fatalf("parsed set %q deleted %q", d.SetKeys(), d.Deleted())
	}
	_, err = ConfigDeltaFromValues(url.Values{"name": {"x"}, "delete": {"tags,name"}})
	if !IsSetDeleteConflict(err) {
		t.Fatalf("conflict not reported: %v", err)
	}
	if err.Error() != "you can't use '-name' and -delete name' at the same time" {
		t.Fatalf("conflict text = %q", err)
	}
	if _, err := ConfigDeltaFromValues(url.Values{"name": {"x", "y"}}); err == nil {
		t.Fatal("repeated parameter accepted")
	}
	if IsSetDeleteConflict(nil) {
		t.Fatal("nil error is a conflict")
	}
}

// FuzzConfigDeltaW16 runs arbitrary sequences of operations and checks that
// no key is ever both set and deleted, and that Values reads back unchanged.
func FuzzConfigDeltaW16(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{0, 0, 1, 1, 0, 2, 3, 3})
	f.Add([]byte{2, 5, 0, 5, 1, 5, 3, 5, 4, 5})
	keys := []string{"name", "tags", "sshkeys", "scsi0", "ipconfig0", "net0", "memory", "description"}
	f.Fuzz(func(t *testing.T, ops []byte) {
		var d, other ConfigDelta
		for i := 0; i+1 < len(ops); i += 2 {
			key := keys[int(ops[i+1])%len(keys)]
			switch ops[i] % 5 {
			case 0:
				d.Set(key, string(rune('a'+ops[i+1]%26)))
			case 1:
				d.Delete(key)
			case 2:
				other.Set(key, "o")
			case 3:
				other.Delete(key)
			case 4:
				d.Forget(key)
			}
			if i%6 == 4 {
				d.Merge(&other)
			}
			for _, k := range keys {
				if _, set := d.Get(k); set && d.IsDeleted(k) {
					t.Fatalf("key %q both set and deleted after ops %v", k, ops[:i+2])
				}
			}
		}
		if d.IsEmpty() != (len(d.SetKeys()) == 0 && len(d.Deleted()) == 0) {
			t.Fatal("IsEmpty disagrees with the key lists")
		}
		back, err := ConfigDeltaFromValues(d.Values())
		if err != nil {
			t.Fatalf("Values do not read back: %v", err)
		}
		if !slices.Equal(back.SetKeys(), d.SetKeys()) || !slices.Equal(back.Deleted(), d.Deleted()) {
			t.Fatalf("round trip: set %q/%q deleted %q/%q", back.SetKeys(), d.SetKeys(), back.Deleted(), d.Deleted())
		}
		for _, k := range d.SetKeys() {
			want, _ := d.Get(k)
			if got, _ := back.Get(k); got != want {
				t.Fatalf("value of %q: %q, want %q", k, got, want)
			}
		}
	})
}
