package wire

import (
	"slices"
	"strings"
	"testing"
)

const (
	testKeyEd25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB3q+x/yZ me@host"
	testKeyRSA     = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7+/== admin@example.org"
)

// W30: sshkeys is sent percent-encoded, keys joined by %0A.
func TestEncodeSSHKeysW30(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []string
		want string
	}{
		{
			name: "one key: space, plus, slash and at sign encoded",
			in:   []string{testKeyEd25519},
			want: "ssh-ed25519%20AAAAC3NzaC1lZDI1NTE5AAAAIB3q%2Bx%2FyZ%20me%40host",
		},
		{
			name: "two keys joined by %0A, equals signs encoded",
			in:   []string{testKeyEd25519, testKeyRSA},
			want: "ssh-ed25519%20AAAAC3NzaC1lZDI1NTE5AAAAIB3q%2Bx%2FyZ%20me%40host%0A" +
				"ssh-rsa%20AAAAB3NzaC1yc2EAAAADAQABAAABAQC7%2B%2F%3D%3D%20admin%40example.org",
		},
		{
			name: "keys are trimmed and blank keys dropped",
			in:   []string{"  ", " a b \r\n", ""},
			want: "a%20b",
		},
		{
			name: "a value holding several lines is split",
			in:   []string{"k1\nk2"},
			want: "k1%0Ak2",
		},
		{
			name: "unreserved marks stay as they are",
			in:   []string{"-_.!~*'()"},
			want: "-_.!~*'()",
		},
		{
			name: "non-ASCII bytes encoded one by one",
			in:   []string{"é"},
			want: "%C3%A9",
		},
		{
			name: "no keys",
			in:   nil,
			want: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := EncodeSSHKeys(tt.in)
			if got != tt.want {
				t.Fatalf("EncodeSSHKeys = %q, want %q", got, tt.want)
			}
			if err := CheckURLEncoded(got); err != nil {
				t.Fatalf("encoded value fails PVE's urlencoded check: %v", err)
			}
		})
	}
}

// W30: what PVE stores is decoded and compared as a set of keys.
func TestDecodeSSHKeysW30(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{
			name: "two keys",
			in:   "ssh-ed25519%20AAAA%20me%40host%0Assh-rsa%20BBBB%20you%40host",
			want: []string{"ssh-ed25519 AAAA me@host", "ssh-rsa BBBB you@host"},
		},
		{
			name: "CRLF, blank lines and trailing newline tolerated",
			in:   "%0D%0Ak1%0D%0A%0D%0A%20k2%20%0A",
			want: []string{"k1", "k2"},
		},
		{
			name: "lowercase hex accepted",
			in:   "a%2bb%2fc",
			want: []string{"a+b/c"},
		},
		{
			name: "plus stays plus, as in uri_unescape",
			in:   "a+b",
			want: []string{"a+b"},
		},
		{
			name: "unencoded text passes through",
			in:   "ssh-ed25519 AAAA me@host",
			want: []string{"ssh-ed25519 AAAA me@host"},
		},
		{name: "empty", in: "", want: nil},
		// URI::Escape's uri_unescape keeps a "%" that starts no escape, and
		// PVE stores such a value: its urlencoded check is the alphabet only.
		{name: "truncated escape", in: "abc%2", want: []string{"abc%2"}},
		{name: "lone percent", in: "%", want: []string{"%"}},
		{name: "non-hex escape", in: "%zz", want: []string{"%zz"}},
		{name: "half-hex escape", in: "%4g", want: []string{"%4g"}},
		{name: "percent in a comment", in: "ssh-ed25519%20AAAA%2050%off", want: []string{"ssh-ed25519 AAAA 50%off"}},
		// validate_ssh_public_keys skips /^\s*$/ lines of the decoded
		// characters 0-255: NBSP and NEL are white space there.
		{name: "Latin-1 blank lines", in: "%A0%0Ak1%0A%85", want: []string{"k1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := DecodeSSHKeys(tt.in); !slices.Equal(got, tt.want) {
				t.Fatalf("DecodeSSHKeys(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// W30: a raw value is refused by PVE's urlencoded check with its own text.
func TestCheckURLEncodedW30(t *testing.T) {
	t.Parallel()
	if err := CheckURLEncoded("ssh-ed25519%20AAAA"); err != nil {
		t.Fatalf("CheckURLEncoded: %v", err)
	}
	err := CheckURLEncoded("ssh-ed25519 AAAA")
	if err == nil || err.Error() != "invalid urlencoded string: ssh-ed25519 AAAA" {
		t.Fatalf("CheckURLEncoded error = %v", err)
	}
}

// W30: compare the decoded set of keys, not the string.
func TestSameSSHKeysW30(t *testing.T) {
	t.Parallel()
	a := []string{testKeyEd25519, testKeyRSA}
	if !SameSSHKeys(a, []string{" " + testKeyRSA + "\r", testKeyEd25519, "", testKeyEd25519}) {
		t.Fatal("same keys in another order, with blanks and repeats, differ")
	}
	if SameSSHKeys(a, []string{testKeyEd25519}) {
		t.Fatal("a missing key is not noticed")
	}
	if SameSSHKeys([]string{"k1"}, []string{"k2"}) {
		t.Fatal("different keys compare equal")
	}
	if !SameSSHKeys(nil, []string{"", "  "}) {
		t.Fatal("no keys and blank keys differ")
	}
	if decoded := DecodeSSHKeys(EncodeSSHKeys(a)); !SameSSHKeys(decoded, a) {
		t.Fatalf("round trip = %q", decoded)
	}
}

// FuzzSSHKeysRoundTrip checks W30's encoding: every encoded value passes
// PVE's urlencoded check and decodes to the trimmed, non-blank keys.
func FuzzSSHKeysRoundTrip(f *testing.F) {
	f.Add(testKeyEd25519, testKeyRSA)
	f.Add(" a\r\nb ", "%0A%zz")
	f.Add("é\x00\xff", "")
	f.Fuzz(func(t *testing.T, k1, k2 string) {
		keys := []string{k1, k2}
		encoded := EncodeSSHKeys(keys)
		if err := CheckURLEncoded(encoded); err != nil {
			t.Fatalf("EncodeSSHKeys(%q) = %q fails the urlencoded check", keys, encoded)
		}
		decoded := DecodeSSHKeys(encoded)
		want := splitLines(strings.Join(keys, "\n"))
		if !slices.Equal(decoded, want) {
			t.Fatalf("round trip %q -> %q -> %q, want %q", keys, encoded, decoded, want)
		}
		if !SameSSHKeys(decoded, keys) {
			t.Fatalf("SameSSHKeys(%q, %q) = false", decoded, keys)
		}
	})
}

// FuzzDecodeSSHKeys checks that decoding arbitrary input never panics and
// that what decodes re-encodes to an equal set.
func FuzzDecodeSSHKeys(f *testing.F) {
	f.Add("ssh-ed25519%20AAAA%20me%40host%0A")
	f.Add("%")
	f.Add("%0d%0a%20")
	f.Fuzz(func(t *testing.T, s string) {
		keys := DecodeSSHKeys(s)
		if again := DecodeSSHKeys(EncodeSSHKeys(keys)); !slices.Equal(again, keys) {
			t.Fatalf("re-encode of %q: %q", keys, again)
		}
	})
}
