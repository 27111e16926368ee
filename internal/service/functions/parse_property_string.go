package functions

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var _ function.Function = (*parsePropertyStringFunction)(nil)

// NewParsePropertyStringFunction is the constructor of parse_property_string.
func NewParsePropertyStringFunction() function.Function { return &parsePropertyStringFunction{} }

type parsePropertyStringFunction struct{}

func (f *parsePropertyStringFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "parse_property_string"
}

func (f *parsePropertyStringFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Parses a PVE property string (key=value,key=value,...) into a map of strings.",
		MarkdownDescription: "Reads a PVE property string, the `key=value,...` notation of drive values, network " +
			"devices and many other options (`virtio=BC:24:11:2A:3B:4C,bridge=vmbr0,firewall=1`), into a map of " +
			"strings, the way PVE reads one: parts are separated by `,`, blank parts are skipped, each part is split " +
			"at its first `=` (so a value may hold `=`), and values are returned verbatim (`1` stays `1`; PVE's " +
			"`on`/`yes`/`true` are not turned into booleans). Keys are not checked against any PVE format.\n\n" +
			"**A part without `=`** is a bare value, as in `local-lvm:vm-100-disk-0,cache=none` or " +
			"`vmbr0,tag=10`. PVE's formats give each such value a key of their own (the format's default key: `file` " +
			"for a VM's drive, `volume` for a container's mount point, `model` for a VM's network device, " +
			"`current` for memory). Name that key in the optional second argument and the bare value is returned " +
			"under it. Without it, a bare value is an error, as PVE's own error says for a format without a default " +
			"key.\n\n" +
			"Other errors follow PVE's: a key given twice (or a bare value and its key both given), a part with an " +
			"empty key or an empty value (`=x`, `a=`), or a line break in a key or value.",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name:                "value",
				MarkdownDescription: "A PVE property string, such as `local-lvm:vm-100-disk-0,discard=on,size=32G`.",
			},
		},
		VariadicParameter: function.StringParameter{
			Name: "default_key",
			MarkdownDescription: "Optional, at most one: the key that a bare value (a part without `=`) is returned " +
				"under, such as `file` for a VM's drive.",
		},
		Return: function.MapReturn{ElementType: types.StringType},
	}
}

func (f *parsePropertyStringFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var (
		in          string
		defaultKeys []string
	)
	resp.Error = req.Arguments.Get(ctx, &in, &defaultKeys)
	if resp.Error != nil {
		return
	}
	defaultKey := ""
	switch len(defaultKeys) {
	case 0:
	case 1:
		defaultKey = defaultKeys[0]
		if err := wire.CheckPropertyKey(defaultKey); err != nil {
			resp.Error = function.NewArgumentFuncError(1, fmt.Sprintf(
				"%q cannot be a property string key: a key is not empty or blank and holds no \",\", \"=\" or line break", defaultKey))
			return
		}
	default:
		resp.Error = function.NewArgumentFuncError(2, fmt.Sprintf(
			"default_key is given %d times: parse_property_string takes the value and at most one default key", len(defaultKeys)))
		return
	}
	props, err := wire.ParsePropertyString(in, defaultKey)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(0, propertyStringError(in, err, defaultKey))
		return
	}
	resp.Error = resp.Result.Set(ctx, props)
}

// propertyStringError is the error text of a value PVE's parser refuses,
// with a hint where the fix is in the call rather than in the value.
func propertyStringError(in string, err error, defaultKey string) string {
	msg := fmt.Sprintf("%q is not a valid PVE property string: %s", in, err)
	if defaultKey == "" && errors.Is(err, wire.ErrNoDefaultKey) {
		msg += "; a part without \"=\" needs a key to be returned under: pass it as the second argument, " +
			"such as parse_property_string(value, \"file\") for a VM's drive"
	}
	return msg
}
