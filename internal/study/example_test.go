package study_test

import (
	"fmt"
	"os"

	"github.com/killchain/killchain/internal/study"
)

// tourStudy is a small study: two reference agents on one single-agent task
// and one relay, clean and attacked, each cell twice.
const tourStudy = `
study "tour" {
  seed = 7
}

model "compliant" {
  provider = "scripted"
  policy   = "compliant"
}

model "resistant" {
  provider = "scripted"
  policy   = "resistant"
}

grid "text" {
  tasks      = ["memory_poison", "propagation"]
  variants   = ["direct"]
  models     = ["compliant"]
  pairs      = [["resistant", "compliant"]]
  conditions = ["plain", "hack"]
  repeats    = 2
}
`

// Decode a study file, plan it and summarize the plan, as `killchain plan`
// does. A model runs alone in a single-agent task and as a same-model pair
// in a relay; pairs apply to relays only. Clean controls (plain) collapse
// the variants into one cell of variant "none". Run ids are stable: the
// same study and seed give the same ids.
func ExampleParse() {
	s, diags := study.Parse("tour.hcl", []byte(tourStudy))
	if diags.HasErrors() {
		_ = study.WriteDiagnostics(os.Stdout, nil, diags)
		return
	}
	runs, err := s.Plan()
	if err != nil {
		fmt.Println(err)
		return
	}
	sum := study.Summary(runs)
	fmt.Printf("%d runs in %d cells: %d attacked, %d clean\n", sum.Total, sum.Cells, sum.Attacked, sum.Clean)
	for _, m := range sum.Models {
		fmt.Printf("  %-20s %d runs\n", m.Key, m.Runs)
	}
	for _, r := range runs[:3] {
		fmt.Println(r.RunID, r.Cell, "repeat", r.Repeat)
	}
	// Output:
	// 12 runs in 6 cells: 6 attacked, 6 clean
	//   compliant            4 runs
	//   compliant→compliant  4 runs
	//   resistant→compliant  4 runs
	// memory_poison-c7f6a49e text/memory_poison/none/compliant/plain/none repeat 0
	// memory_poison-460bea10 text/memory_poison/none/compliant/plain/none repeat 1
	// memory_poison-2516d1b2 text/memory_poison/direct/compliant/hack/none repeat 0
}

// Every problem of a file is reported at once, each with the place it
// concerns, as `killchain validate` prints them.
func ExampleWriteDiagnostics() {
	src := []byte(`study "typo" {}

model "m" {
  provider    = "scripted"
  policy      = "compliant"
  temperature = 3
}

grid "g" {
  tasks      = ["memory_poison"]
  models     = ["m"]
  conditions = ["plain", "attack"]
}
`)
	_, diags := study.Parse("typo.hcl", src)
	_ = study.WriteDiagnostics(os.Stdout, nil, diags)
	// Output:
	// typo.hcl:6:17: error: Invalid temperature; temperature must lie in [0, 2]; got 3.
	// typo.hcl:12:26: error: Unknown condition; "attack" is not a condition of this study (known: plain, hack, narrate).
}
