package study

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/killchain/killchain/internal/attacks"
)

// FileAttack is an attack family a task file defined: the study folder
// keeps its block's text (results.AttackDefsDir) beside the task
// definitions, and a resume refuses one whose wording changed.
type FileAttack struct {
	Family attacks.Family
	File   string // the task file (or the study folder's copy) it was read from
	Text   []byte // the attack block, header to closing brace
}

// AttackHash identifies an attack family by what it plants: its goal and
// template.
func AttackHash(f attacks.Family) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\n", f.Name, f.Goal, f.Template)
	return hex.EncodeToString(h.Sum(nil))
}

// fileAttackBlock is one attack block of a task file, with its text.
type fileAttackBlock struct {
	block *hcl.Block
	file  string
	text  []byte
}

// attackBlocks returns the attack blocks of a task file's bytes, and the
// file's syntax errors (ParseFile reports them too).
func attackBlocks(name string, src []byte) ([]fileAttackBlock, hcl.Diagnostics) {
	file, diags := hclsyntax.ParseConfig(src, name, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return nil, diags
	}
	body, ok := file.Body.(*hclsyntax.Body)
	if !ok {
		return nil, nil
	}
	var out []fileAttackBlock
	for _, b := range body.Blocks {
		if b.Type != "attack" {
			continue
		}
		var text []byte
		if r := b.Range(); r.End.Byte <= len(src) && r.Start.Byte < r.End.Byte {
			text = append([]byte(nil), src[r.Start.Byte:r.End.Byte]...)
		}
		out = append(out, fileAttackBlock{block: b.AsHCLBlock(), file: name, text: append(text, '\n')})
	}
	return out, nil
}
