package tasks

import (
	"fmt"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	"sigs.k8s.io/yaml"
)

// An environment reads its state from a file beside its task file with
// yamldecode(file("bank.yaml")) or jsondecode(file("bank.json")); file()
// is evalContext's, the one way a task file reads a file.

// read is one file a block read with file(): its path as written and
// its bytes.
type read struct {
	name string
	data []byte
}

// yamlDecodeFunc decodes a YAML document into the value its JSON form
// would be: mappings become objects, sequences tuples, numbers numbers.
var yamlDecodeFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "src", Type: cty.String}},
	Type: func(args []cty.Value) (cty.Type, error) {
		if !args[0].IsKnown() {
			return cty.DynamicPseudoType, nil
		}
		js, err := yamlJSON(args[0].AsString())
		if err != nil {
			return cty.NilType, err
		}
		return ctyjson.ImpliedType(js)
	},
	Impl: func(args []cty.Value, ret cty.Type) (cty.Value, error) {
		js, err := yamlJSON(args[0].AsString())
		if err != nil {
			return cty.NilVal, err
		}
		return ctyjson.Unmarshal(js, ret)
	},
})

func yamlJSON(src string) ([]byte, error) {
	js, err := yaml.YAMLToJSON([]byte(src))
	if err != nil {
		return nil, fmt.Errorf("not YAML: %w", err)
	}
	return js, nil
}
