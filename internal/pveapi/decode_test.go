package pveapi

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
)

// W5: numbers arrive as strings or numbers, booleans as 0/1.
func TestW5LenientDecoding(t *testing.T) {
	t.Parallel()
	ints := map[string]int64{
		`100`: 100, `"100"`: 100, `" 42 "`: 42, `-3`: -3, `2.0`: 2, `1e3`: 1000,
		`null`: 0, `""`: 0, `"9007199254740993"`: 9007199254740993,
	}
	for in, want := range ints {
		var v IntOrString
		if err := json.Unmarshal([]byte(in), &v); err != nil || int64(v) != want {
			t.Errorf("IntOrString(%s) = %d, %v; want %d", in, v, err, want)
		}
	}
	for _, in := range []string{`"abc"`, `1.5`, `true`, `[]`, `{}`} {
		var v IntOrString
		if err := json.Unmarshal([]byte(in), &v); err == nil {
			t.Errorf("IntOrString(%s) accepted", in)
		}
	}

	floats := map[string]float64{`0.25`: 0.25, `"0.25"`: 0.25, `3`: 3, `null`: 0, `""`: 0}
	for in, want := range floats {
		var v FloatOrString
		if err := json.Unmarshal([]byte(in), &v); err != nil || float64(v) != want {
			t.Errorf("FloatOrString(%s) = %v, %v; want %v", in, v, err, want)
		}
	}
	var badFloat FloatOrString
	if err := json.Unmarshal([]byte(`"x"`), &badFloat); err == nil {
		t.Error(`FloatOrString("x") accepted`)
	}

	bools := map[string]bool{
		`1`: true, `0`: false, `"1"`: true, `"0"`: false, `true`: true, `false`: false,
		`"on"`: true, `"off"`: false, `"yes"`: true, `"no"`: false, `"true"`: true, `null`: false, `""`: false,
	}
	for in, want := range bools {
		var v Bool01
		if err := json.Unmarshal([]byte(in), &v); err != nil || bool(v) != want {
			t.Errorf("Bool01(%s) = %t, %v; want %t", in, v, err, want)
		}
	}
	for _, in := range []string{`"maybe"`, `[]`} {
		var v Bool01
		if err := json.Unmarshal([]byte(in), &v); err == nil {
			t.Errorf("Bool01(%s) accepted", in)
		}
	}

	strs := map[string]string{`"web"`: "web", `1234`: "1234", `1.50`: "1.50", `null`: "", `true`: "1", `false`: "0"}
	for in, want := range strs {
		var v StringOrNumber
		if err := json.Unmarshal([]byte(in), &v); err != nil || string(v) != want {
			t.Errorf("StringOrNumber(%s) = %q, %v; want %q", in, v, err, want)
		}
	}
}

// W5: the same struct decodes both shapes of the same answer.
func TestW5ResourceDecodesEitherShape(t *testing.T) {
	t.Parallel()
	shapes := []string{
		`{"id":"qemu/100","type":"qemu","vmid":100,"name":"web","template":0,"maxmem":2147483648,"cpu":0.5,"node":"pve1"}`,
		`{"id":"qemu/100","type":"qemu","vmid":"100","name":"web","template":"0","maxmem":"2147483648","cpu":"0.5","node":"pve1"}`,
	}
	for _, shape := range shapes {
		var r Resource
		if err := json.Unmarshal([]byte(shape), &r); err != nil {
			t.Fatalf("%s: %v", shape, err)
		}
		if r.VMID != 100 || r.Name != "web" || r.Template || r.MaxMem != 2147483648 || r.CPU != 0.5 {
			t.Errorf("%s decoded to %+v", shape, r)
		}
	}
}

// W5: "data" is unwrapped; numbers in generic values stay exact.
func TestW5GenericCallUnwrapsData(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("GET /nodes/{node}/qemu/{vmid}/config", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"data":{"memory":"2048","cores":2,"balloon":9007199254740993,"name":"web"}}`))
	})
	f.handle("POST /nodes/{node}/qemu/{vmid}/config", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"data":null}`))
	})
	c := f.client()
	var config map[string]any
	if err := c.Get(context.Background(), "/nodes/pve1/qemu/100/config", nil, &config); err != nil {
		t.Fatal(err)
	}
	if config["cores"] != json.Number("2") || config["balloon"] != json.Number("9007199254740993") || config["memory"] != "2048" {
		t.Errorf("config = %#v", config)
	}
	upid := "unchanged"
	if err := c.Post(context.Background(), "/nodes/pve1/qemu/100/config", nil, &upid); err != nil {
		t.Fatal(err)
	}
	if upid != "unchanged" {
		t.Errorf("data null should leave out alone, got %q", upid)
	}
}
