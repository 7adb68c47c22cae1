package probes

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/ollama/ollama/api"
	fsggml "github.com/ollama/ollama/fs/ggml"

	"github.com/killchain/killchain/internal/models/ollama"
	"github.com/killchain/killchain/internal/study"
)

// Source is where activations come from: a GGUF file and the renderer of
// the prompts its model saw.
type Source struct {
	GGUF     string
	Renderer *Renderer
	// Template says where the template came from, for meta.json.
	Template string
	// Models are the study's model blocks whose calls are replayed; empty:
	// every call (teacher-forced through GGUF).
	Models []string
}

// GGUFSource replays every call of a study through a GGUF file given on
// the command line. The chat template is templateFile when given (a Go
// template, as `ollama show --template` prints), else the GGUF's own.
func GGUFSource(gguf, templateFile string) (*Source, error) {
	src := &Source{GGUF: gguf}
	if templateFile != "" {
		data, err := os.ReadFile(templateFile)
		if err != nil {
			return nil, fmt.Errorf("template: %w", err)
		}
		if src.Renderer, err = NewTemplateRenderer(string(data)); err != nil {
			return nil, err
		}
		src.Template = templateFile
		return src, nil
	}
	kv, err := readKV(gguf)
	if err != nil {
		return nil, err
	}
	t, err := TemplateForGGUF(kv)
	if err != nil {
		return nil, err
	}
	if src.Renderer, err = NewTemplateRenderer(t); err != nil {
		return nil, err
	}
	src.Template = "gguf"
	return src, nil
}

// readKV reads a GGUF's metadata (no tensors).
func readKV(path string) (map[string]any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	defer f.Close()
	g, err := fsggml.Decode(f, 0)
	if err != nil {
		return nil, fmt.Errorf("gguf %s: %w", path, err)
	}
	return g.KV(), nil
}

// OllamaSource finds the GGUF blob and the chat template of a study's
// Ollama model through the server's /api/show, the way Ollama renders
// /api/chat: its Renderer when it has one, else its Go template; thinking
// as the study's model block set it.
func OllamaSource(ctx context.Context, st *study.Study, name string) (*Source, error) {
	m, ok := st.Model(name)
	if !ok {
		return nil, fmt.Errorf("model %q is not in the study", name)
	}
	if m.Provider != study.ProviderOllama {
		return nil, fmt.Errorf("model %q is served by %s, not ollama: give a GGUF with --gguf", name, m.Provider)
	}
	u, err := ollama.HostURL(m.Host)
	if err != nil {
		return nil, err
	}
	c := api.NewClient(u, http.DefaultClient)
	show, err := c.Show(ctx, &api.ShowRequest{Model: m.ModelName})
	if err != nil {
		return nil, fmt.Errorf("ollama show %s: %w", m.ModelName, err)
	}
	blob, err := fromLine(show.Modelfile)
	if err != nil {
		return nil, fmt.Errorf("ollama show %s: %w", m.ModelName, err)
	}
	src := &Source{GGUF: blob, Models: []string{name}}
	if show.Renderer != "" {
		src.Renderer, src.Template = NewBuiltinRenderer(show.Renderer), "ollama renderer "+show.Renderer
	} else {
		if src.Renderer, err = NewTemplateRenderer(show.Template); err != nil {
			return nil, err
		}
		src.Template = "ollama template of " + m.ModelName
	}
	src.Renderer.Driver = ollama.Options{Model: m.ModelName, Thinking: m.Thinking, ReasoningEffort: m.ReasoningEffort}
	return src, nil
}

// fromLine returns the blob path of a Modelfile's FROM line.
func fromLine(modelfile string) (string, error) {
	sc := bufio.NewScanner(strings.NewReader(modelfile))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "FROM "); ok {
			p := strings.TrimSpace(rest)
			if filepath.IsAbs(p) {
				return p, nil
			}
		}
	}
	return "", errors.New("no FROM line with a blob path in the Modelfile (is the server on this machine?)")
}
