package tasks

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/killchain/killchain/internal/hcldiag"
)

//go:embed starter/starter.hcl
var starter string

// Starter returns a commented task file for a new task of that name: a
// single-agent task that validates and runs as written, for a researcher to
// edit (killchain tasks new).
func Starter(name string) ([]byte, error) {
	if !hcldiag.ValidName(name) {
		return nil, fmt.Errorf("task name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", name)
	}
	return []byte(strings.ReplaceAll(starter, "TASK_NAME", name)), nil
}
