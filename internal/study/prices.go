package study

import (
	"os"
	"path/filepath"

	"github.com/killchain/killchain/internal/cost"
	"github.com/killchain/killchain/internal/results"
)

// decodePrices gives each model without a price block its price from the
// study's pricing file (by block label, then by the provider's model id).
//
// The study.hcl of a study folder (beside its manifest.json) uses the
// prices the folder's manifest recorded when it ran, whatever the pricing
// file says now or wherever it went: a resume costs its runs as the start
// did.
func (d *decoder) decodePrices() {
	s := d.study
	if s.Pricing == "" {
		return
	}
	dir := filepath.Dir(s.File)
	if m, err := results.ReadManifest(dir); err == nil && recordsPrices(m) {
		for _, mod := range s.Models {
			if mod.Price != nil {
				continue
			}
			for _, info := range m.Models {
				if info.Name == mod.Name && info.Price != nil {
					p := *info.Price
					mod.Price, mod.PriceFrom = &p, filepath.Join(dir, results.ManifestFile)
				}
			}
		}
		return
	}
	path := s.Pricing
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if _, err := os.Stat(path); err != nil {
		d.errorf(d.pricing.Rng("pricing"), "Cannot read pricing file", "%q (relative to the study file): %v.", s.Pricing, err)
		return
	}
	prices, err := cost.ReadFile(path)
	if err != nil {
		d.errorf(d.pricing.Rng("pricing"), "Invalid pricing file", "%v.", err)
		return
	}
	for _, mod := range s.Models {
		if mod.Price != nil || !mod.Hosted() {
			continue
		}
		if p, ok := prices.Lookup(mod.Name, mod.ModelName); ok {
			mod.Price, mod.PriceFrom = &p, s.Pricing
		}
	}
}

// recordsPrices reports whether a manifest holds the prices its study ran
// with.
func recordsPrices(m results.Manifest) bool {
	for _, info := range m.Models {
		if info.Price != nil {
			return true
		}
	}
	return false
}
