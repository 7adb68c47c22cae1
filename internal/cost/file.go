package cost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Prices are a pricing file's prices by name: a model block's label or
// the provider's model id (the block's name attribute).
type Prices map[string]Price

// Lookup returns the price of a model block: by its label first, then by
// the provider's model id.
func (ps Prices) Lookup(block, model string) (Price, bool) {
	if p, ok := ps[block]; ok {
		return p, true
	}
	if model != "" {
		if p, ok := ps[model]; ok {
			return p, true
		}
	}
	return Price{}, false
}

// ReadFile reads a pricing file: HCL when its name ends in .hcl, JSON
// otherwise (see Parse).
func ReadFile(path string) (Prices, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("pricing file: %w", err)
	}
	ps, err := Parse(path, src)
	if err != nil {
		return nil, fmt.Errorf("pricing file %s: %w", path, err)
	}
	return ps, nil
}

// Parse decodes a pricing file. HCL (a name ending in .hcl) holds price
// blocks:
//
//	price "gpt-4o-mini-2024-07-18" {
//	  input        = 0.15
//	  cached_input = 0.075
//	  output       = 0.60
//	}
//
// JSON holds one object whose keys are the names and whose values have the
// same fields: {"gpt-4o-mini-2024-07-18": {"input": 0.15, "output": 0.6}}.
// Every price is checked (Price.Validate); an HCL name given twice is an
// error.
func Parse(filename string, src []byte) (Prices, error) {
	var ps Prices
	var err error
	if strings.EqualFold(filepath.Ext(filename), ".hcl") {
		ps, err = parseHCL(filename, src)
	} else {
		ps, err = parseJSON(src)
	}
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, name := range ps.Names() {
		for _, e := range ps[name].Validate() {
			errs = append(errs, fmt.Errorf("%s: %w", name, e))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return ps, nil
}

// Names lists the priced names in order.
func (ps Prices) Names() []string {
	out := make([]string, 0, len(ps))
	for n := range ps {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

var fileSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "price", LabelNames: []string{"name"}}}}

func parseHCL(filename string, src []byte) (Prices, error) {
	file, diags := hclsyntax.ParseConfig(src, filename, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return nil, diags
	}
	content, diags := file.Body.Content(fileSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	ps := Prices{}
	for _, b := range content.Blocks {
		var p Price
		if diags := gohcl.DecodeBody(b.Body, nil, &p); diags.HasErrors() {
			return nil, diags
		}
		name := b.Labels[0]
		if _, dup := ps[name]; dup {
			return nil, fmt.Errorf("%s: price %q is given twice", b.DefRange, name)
		}
		ps[name] = p
	}
	return ps, nil
}

// jsonPrice is a price as the JSON file holds it: input and output are
// required.
type jsonPrice struct {
	Input       *float64 `json:"input"`
	CachedInput *float64 `json:"cached_input"`
	CacheWrite  *float64 `json:"cache_write"`
	Output      *float64 `json:"output"`
	Reasoning   *float64 `json:"reasoning"`
}

func parseJSON(src []byte) (Prices, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.DisallowUnknownFields()
	var raw map[string]jsonPrice
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("not a JSON object of prices: %w", err)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	ps := Prices{}
	for name, jp := range raw {
		if jp.Input == nil || jp.Output == nil {
			return nil, fmt.Errorf("%s: a price needs input and output (dollars per million tokens)", name)
		}
		ps[name] = Price{Input: *jp.Input, CachedInput: jp.CachedInput, CacheWrite: jp.CacheWrite, Output: *jp.Output, Reasoning: jp.Reasoning}
	}
	return ps, nil
}
