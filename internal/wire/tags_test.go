package wire

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// W19: tags are split on ; , and whitespace, folded to lowercase, checked,
// deduplicated and sorted.
func TestParseTagsW19(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []string
		wantErr string
	}{
		{name: "semicolons", in: "prod;web", want: []string{"prod", "web"}},
		{name: "mixed separators", in: "web, Prod ;db\tcache\nx", want: []string{"cache", "db", "prod", "web", "x"}},
		{name: "case folded and deduplicated", in: "Web;web;WEB", want: []string{"web"}},
		{name: "allowed punctuation", in: "k8s-node;_x;a+b;v1.2", want: []string{"_x", "a+b", "k8s-node", "v1.2"}},
		{name: "NUL-separated list", in: "b c\x00a", wantErr: `invalid characters in tag: "b c"`},
		{name: "NUL list of valid tags", in: "b\x00a", want: []string{"a", "b"}},
		{name: "empty", in: "", want: []string{}},
		{name: "only separators", in: " ;, ", want: []string{}},
		{name: "leading dash", in: "-web", wantErr: `invalid characters in tag: "-web"`},
		{name: "bad character", in: "ok;we!b", wantErr: `invalid characters in tag: "we!b"`},
		// pve_verify_tag matches with /i on the decoded value: the Kelvin
		// sign folds to k, and get_unique_tags lowercases it to k.
		{name: "Kelvin sign", in: "\u212a8s", want: []string{"k8s"}},
		{name: "other non-ASCII letter", in: "\u00e9", wantErr: "invalid characters in tag"},
		{name: "empty item of a NUL list", in: "a\x00\x00b", wantErr: "invalid characters in tag"},
		{name: "NBSP separates", in: "a\u00a0b", want: []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseTags(tt.in)
			if tt.wantErr != "" {
				if !errors.Is(err, ErrInvalidTag) || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("ParseTags(%q) error = %v, want %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("ParseTags(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestSplitList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"a,b;c d\te\nf\r\vg\fh", []string{"a", "b", "c", "d", "e", "f", "g", "h"}},
		{" ,;a;;b, ", []string{"a", "b"}},
		{"a b\x00c,d\x00\x00", []string{"a b", "c,d"}},
		// Perl's split keeps the empty items between NULs.
		{"\x00a\x00\x00b", []string{"", "a", "", "b"}},
		{"", nil},
		// PVE splits the decoded value on Unicode white space.
		{"\u00a0", nil},
		{"a\u00a0b\u2028c", []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		if got := SplitList(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("SplitList(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNormalizeTagsW19(t *testing.T) {
	t.Parallel()
	got, err := NormalizeTags([]string{" Web ", "db", "", "WEB"})
	if err != nil || !slices.Equal(got, []string{"db", "web"}) {
		t.Fatalf("NormalizeTags = %q, %v", got, err)
	}
	if _, err := NormalizeTags([]string{"a;b"}); !errors.Is(err, ErrInvalidTag) {
		t.Fatalf("NormalizeTags accepted a separator inside a tag: %v", err)
	}
}

func TestFormatTagsW19(t *testing.T) {
	t.Parallel()
	if got := FormatTags([]string{"db", "web"}); got != "db;web" {
		t.Fatalf("FormatTags = %q", got)
	}
	if got := FormatTags(nil); got != "" {
		t.Fatalf("FormatTags(nil) = %q", got)
	}
}

// W19: compare tags as a set in PVE's normalised form.
func TestSameTagsW19(t *testing.T) {
	t.Parallel()
	if !SameTags([]string{"Web", "db"}, []string{"db", "web", "web", ""}) {
		t.Fatal("same tags differ")
	}
	if SameTags([]string{"web"}, []string{"web", "db"}) {
		t.Fatal("extra tag not noticed")
	}
	if !SameTags(nil, []string{}) {
		t.Fatal("empty lists differ")
	}
}

// FuzzParseTags checks W19 normalisation: the result is valid, sorted,
// unique, lowercase, and stable when formatted and parsed again.
func FuzzParseTags(f *testing.F) {
	f.Add("prod;web")
	f.Add("Web, db\tcache")
	f.Add("a\x00b")
	f.Add("-bad;ok")
	f.Fuzz(func(t *testing.T, s string) {
		tags, err := ParseTags(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidTag) {
				t.Fatalf("ParseTags(%q) error %v is not ErrInvalidTag", s, err)
			}
			return
		}
		if !slices.IsSorted(tags) || len(slices.Compact(slices.Clone(tags))) != len(tags) {
			t.Fatalf("ParseTags(%q) = %q is not sorted and unique", s, tags)
		}
		for _, tag := range tags {
			if !tagPattern.MatchString(tag) || strings.ToLower(tag) != tag {
				t.Fatalf("ParseTags(%q) returned invalid tag %q", s, tag)
			}
		}
		again, err := ParseTags(FormatTags(tags))
		if err != nil || !slices.Equal(again, tags) {
			t.Fatalf("ParseTags(FormatTags(%q)) = %q, %v", tags, again, err)
		}
		if !SameTags(again, tags) {
			t.Fatalf("SameTags(%q, %q) = false", again, tags)
		}
	})
}
