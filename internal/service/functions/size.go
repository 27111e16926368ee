package functions

import (
	"context"
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	_ function.Function = (*sizeToBytesFunction)(nil)
	_ function.Function = (*bytesToSizeFunction)(nil)
)

// NewSizeToBytesFunction is the constructor of size_to_bytes.
func NewSizeToBytesFunction() function.Function { return &sizeToBytesFunction{} }

// NewBytesToSizeFunction is the constructor of bytes_to_size.
func NewBytesToSizeFunction() function.Function { return &bytesToSizeFunction{} }

type sizeToBytesFunction struct{}

type bytesToSizeFunction struct{}

func (f *sizeToBytesFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "size_to_bytes"
}

func (f *sizeToBytesFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Converts a size in PVE's notation (32G, 512M, 1.5T) to a number of bytes.",
		MarkdownDescription: "Reads a size the way PVE reads a disk's `size=` option and returns it in bytes. " +
			"The size is a decimal number with an optional unit `K`, `M`, `G` or `T` (also spelled `KiB`, `MiB`, " +
			"`GiB`, `TiB`); the units are powers of 1024. A number without a unit is bytes, as in PVE (the provider's " +
			"own `size` attributes read a bare number as GiB; this function does not). A fraction is allowed " +
			"(`1.5G`); like PVE, a result that is not a whole number of bytes is truncated (`0.3K` is 307). Units are " +
			"upper case, and there is no space and no `B` (`32GB` and `32 G` are errors).",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name:                "size",
				MarkdownDescription: "A size in PVE's notation, such as `32G`, `512M`, `1.5T`, `8GiB` or `4194304` (bytes).",
			},
		},
		Return: function.Int64Return{},
	}
}

func (f *sizeToBytesFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var in string
	resp.Error = req.Arguments.Get(ctx, &in)
	if resp.Error != nil {
		return
	}
	bytes, err := wire.ParseSize(in)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(0, fmt.Sprintf(
			"%q is not a size in PVE's notation (%s): write a number with an optional unit K, M, G or T "+
				"(powers of 1024), such as \"32G\" or \"1.5T\", or a number of bytes without a unit", in, err))
		return
	}
	resp.Error = resp.Result.Set(ctx, bytes)
}

func (f *bytesToSizeFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "bytes_to_size"
}

func (f *bytesToSizeFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Converts a number of bytes to PVE's size notation (34359738368 to 32G).",
		MarkdownDescription: "Writes a number of bytes the way PVE writes a disk's `size=` option: a whole number in " +
			"the largest unit of `T`, `G`, `M` and `K` (powers of 1024) that divides it exactly, which is the " +
			"shortest exact whole-number spelling (`34359738368` is `32G`, `1610612736` is `1536M`). A size that is " +
			"not a whole number of KiB is written in bytes without a unit (`1000` is `1000`). Zero is `0T`, as PVE " +
			"writes it. The result never has a fraction (`1.5G` is written `1536M`), so it reads back to exactly the " +
			"same bytes with `size_to_bytes`. The number must be a whole, non-negative number of bytes below 2^63.",
		Parameters: []function.Parameter{
			function.NumberParameter{
				Name:                "bytes",
				MarkdownDescription: "A whole, non-negative number of bytes, such as `34359738368`.",
			},
		},
		Return: function.StringReturn{},
	}
}

func (f *bytesToSizeFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var in *big.Float
	resp.Error = req.Arguments.Get(ctx, &in)
	if resp.Error != nil {
		return
	}
	bytes, problem := wholeBytes(in)
	if problem != "" {
		resp.Error = function.NewArgumentFuncError(0, numberText(in)+" "+problem)
		return
	}
	resp.Error = resp.Result.Set(ctx, wire.FormatSize(bytes))
}

// wholeBytes checks that n is a byte count bytes_to_size can write and
// returns it, or says what is wrong with it.
func wholeBytes(n *big.Float) (int64, string) {
	switch {
	case n.IsInf():
		return 0, "is not a finite number"
	case n.Sign() < 0:
		return 0, "is negative: a size is a non-negative number of bytes"
	case !n.IsInt():
		return 0, "is not a whole number of bytes"
	}
	i, accuracy := n.Int64()
	if accuracy != big.Exact {
		return 0, "is too large: sizes up to 2^63-1 bytes (8 EiB) are supported"
	}
	return i, ""
}

// numberText prints n for an error: whole numbers of up to 20 digits in
// full, others in Terraform's exponent notation.
func numberText(n *big.Float) string {
	if n.IsInt() && n.MantExp(nil) <= 64 {
		return n.Text('f', 0)
	}
	return n.Text('g', -1)
}
