package access

import (
	"fmt"
	"slices"
	"strings"
)

// The provider documentation's privileges table and the pveum example are
// generated from the feature table: these render them as the lines that go
// between the markers in templates/index.md.tmpl.

// Markers around the generated parts of the template. They are template
// comments, so the rendered page does not show them: a begin marker takes
// its line break with it, an end marker's line renders as an empty line.
const (
	TableBegin = "{{/* privileges table: generated from internal/service/access/features.go, begin */ -}}"
	TableEnd   = "{{/* privileges table: end */}}"
	PveumBegin = "{{/* pveum privileges: generated from internal/service/access/features.go, begin */ -}}"
	PveumEnd   = "{{/* pveum privileges: end */}}"
)

// DocsTable renders the feature table as a Markdown table, one row per
// feature.
func DocsTable() string {
	var b strings.Builder
	b.WriteString("| feature | what it covers | privileges (path): what needs them |\n")
	b.WriteString("| --- | --- | --- |\n")
	for _, f := range Features {
		name := "`" + f.Name + "`"
		if f.Default {
			name += " (default)"
		}
		grants := make([]string, len(f.Grants))
		for i, g := range f.Grants {
			grants[i] = docsGrant(g)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, f.Summary, strings.Join(grants, "<br>"))
	}
	return b.String()
}

func docsGrant(g Grant) string {
	privs := make([]string, len(g.Privileges))
	for i, p := range g.Privileges {
		privs[i] = "`" + p + "`"
	}
	text := fmt.Sprintf("%s (`%s`): %s", strings.Join(privs, ", "), g.Path, g.Note)
	if g.Only != "" {
		text = "PVE " + string(g.Only) + " only: " + text
	}
	return text
}

// pveumLineWidth keeps the generated shell lines readable.
const pveumLineWidth = 100

// DocsPveum renders the shell lines that set PRIVS to the privileges of
// the default features on PVE 9, with a comment naming what differs on
// PVE 8.4.
func DocsPveum() string {
	nine, err9 := Compute(PVE9, DefaultFeatureNames())
	eight, err84 := Compute(PVE84, DefaultFeatureNames())
	if err9 != nil || err84 != nil {
		panic("the default features must compute") // a broken table, caught by the tests
	}
	var b strings.Builder
	b.WriteString("# The default features on PVE 9.")
	onlyNine := missingFrom(nine.Privileges, eight.Privileges)
	onlyEight := missingFrom(eight.Privileges, nine.Privileges)
	if len(onlyNine) > 0 || len(onlyEight) > 0 {
		fmt.Fprintf(&b, " On PVE 8.4, replace %s with %s.",
			strings.Join(onlyNine, ","), strings.Join(onlyEight, ","))
	}
	b.WriteString("\n")

	line, first := "", true
	flush := func() {
		if line == "" {
			return
		}
		if first {
			fmt.Fprintf(&b, "PRIVS=%q\n", line)
		} else {
			fmt.Fprintf(&b, "PRIVS=\"$PRIVS,%s\"\n", line)
		}
		line, first = "", false
	}
	for _, p := range nine.Privileges {
		next := p
		if line != "" {
			next = line + "," + p
		}
		if len(next)+len(`PRIVS="$PRIVS,"`) > pveumLineWidth {
			flush()
			next = p
		}
		line = next
	}
	flush()
	return b.String()
}

// missingFrom lists the entries of a that b lacks.
func missingFrom(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// ReplaceRegion replaces the lines between the begin and end markers of
// text with body. It fails when a marker is missing or out of order.
func ReplaceRegion(text, begin, end, body string) (string, error) {
	i := strings.Index(text, begin+"\n")
	if i < 0 {
		return "", fmt.Errorf("marker %q not found", begin)
	}
	start := i + len(begin) + 1
	j := strings.Index(text[start:], end+"\n")
	if j < 0 {
		return "", fmt.Errorf("marker %q not found after %q", end, begin)
	}
	return text[:start] + body + text[start+j:], nil
}

// Region returns the lines between the begin and end markers.
func Region(text, begin, end string) (string, error) {
	i := strings.Index(text, begin+"\n")
	if i < 0 {
		return "", fmt.Errorf("marker %q not found", begin)
	}
	start := i + len(begin) + 1
	j := strings.Index(text[start:], end+"\n")
	if j < 0 {
		return "", fmt.Errorf("marker %q not found after %q", end, begin)
	}
	return text[start : start+j], nil
}

// UpdateTemplate puts the generated table and pveum lines into the text of
// templates/index.md.tmpl.
func UpdateTemplate(text string) (string, error) {
	out, err := ReplaceRegion(text, TableBegin, TableEnd, DocsTable())
	if err != nil {
		return "", err
	}
	return ReplaceRegion(out, PveumBegin, PveumEnd, DocsPveum())
}
