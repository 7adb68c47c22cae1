package models

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/killchain/killchain/internal/models/ollama"
)

// Finding is what Doctor learned about one model.
type Finding struct {
	Model   string `json:"model"`
	OK      bool   `json:"ok"`
	Problem string `json:"problem,omitempty"`
	Advice  string `json:"advice,omitempty"`
}

// ErrUnreachable is wrapped by Check when a model cannot be used.
var ErrUnreachable = errors.New("models cannot be reached")

// probeTimeout bounds each network probe Doctor makes.
const probeTimeout = 5 * time.Second

// Doctor checks every live model: hosted providers must have their key in
// the environment (the key itself is never printed); Ollama hosts must
// answer /api/tags and hold the model; OpenAI-compatible servers must answer
// GET /models. Scripted models need nothing and are reported OK.
func Doctor(ctx context.Context, cfgs []Config) []Finding {
	tags := map[string]tagResult{} // one /api/tags per host
	var out []Finding
	for _, c := range cfgs {
		f := Finding{Model: c.Name, OK: true}
		switch c.Provider {
		case Scripted:
		case OpenAI, Anthropic, DeepSeek:
			env := c.KeyEnv()
			if os.Getenv(env) == "" {
				f.OK = false
				f.Problem = fmt.Sprintf("%s: no credentials: %s is not set", c.Provider, env)
				f.Advice = fmt.Sprintf("export %s with your %s API key (keys are read only from the environment), or remove model %q from the study", env, c.Provider, c.Name)
			}
		case Ollama:
			f = doctorOllama(ctx, c, tags)
		case OpenAICompatible:
			f = doctorCompat(ctx, c)
		default:
			f.OK = false
			f.Problem = fmt.Sprintf("unknown provider %q", c.Provider)
			f.Advice = "use one of " + strings.Join(Providers(), ", ")
		}
		out = append(out, f)
	}
	return out
}

type tagResult struct {
	names []string
	err   error
}

func doctorOllama(ctx context.Context, c Config, cache map[string]tagResult) Finding {
	f := Finding{Model: c.Name, OK: true}
	u, err := ollama.HostURL(c.Host)
	if err != nil {
		return Finding{Model: c.Name, Problem: err.Error(), Advice: "set host = \"http://HOST:11434\" in the model block or OLLAMA_HOST"}
	}
	res, ok := cache[u.String()]
	if !ok {
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		list, err := api.NewClient(u, &http.Client{}).List(pctx)
		cancel()
		res.err = err
		if list != nil {
			for _, m := range list.Models {
				res.names = append(res.names, m.Name, m.Model)
			}
		}
		cache[u.String()] = res
	}
	switch {
	case res.err != nil:
		f.OK = false
		f.Problem = fmt.Sprintf("ollama host %s does not answer: %v", u, res.err)
		f.Advice = fmt.Sprintf("start Ollama there (ollama serve), or point the model block's host (or OLLAMA_HOST) at a running server; then ollama pull %s", c.Model)
	case !hasModel(res.names, c.Model):
		f.OK = false
		f.Problem = fmt.Sprintf("ollama host %s does not hold model %s", u, c.Model)
		f.Advice = fmt.Sprintf("run: OLLAMA_HOST=%s ollama pull %s", u, c.Model)
	}
	return f
}

// hasModel matches Ollama names with or without the implicit :latest tag.
func hasModel(names []string, want string) bool {
	norm := func(s string) string {
		if !strings.Contains(s, ":") {
			return s + ":latest"
		}
		return s
	}
	return slices.ContainsFunc(names, func(n string) bool { return norm(n) == norm(want) })
}

func doctorCompat(ctx context.Context, c Config) Finding {
	f := Finding{Model: c.Name, OK: true}
	if c.BaseURL == "" {
		return Finding{Model: c.Name, Problem: "openai_compatible: base_url is not set", Advice: "set base_url = \"http://HOST:PORT/v1\" in the model block"}
	}
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(pctx, http.MethodGet, strings.TrimRight(c.BaseURL, "/")+"/models", nil)
	if err != nil {
		return Finding{Model: c.Name, Problem: fmt.Sprintf("openai_compatible: bad base_url %q", c.BaseURL), Advice: "set base_url to the server's /v1 URL"}
	}
	if env := c.KeyEnv(); env != "" {
		if key := os.Getenv(env); key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		} else {
			f.Advice = fmt.Sprintf("%s is not set; calls go without a key", env)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.OK = false
		f.Problem = fmt.Sprintf("openai_compatible server %s does not answer: %s", c.BaseURL, scrubURLError(err))
		f.Advice = "start the server (vLLM, llama.cpp server, LM Studio) or fix base_url; it must serve GET /models"
		return f
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		f.OK = false
		f.Problem = fmt.Sprintf("openai_compatible server %s: GET /models returned %s", c.BaseURL, resp.Status)
		f.Advice = "check base_url (it usually ends in /v1) and api_key_env"
	}
	return f
}

// scrubURLError keeps the cause of a transport error without echoing the
// request line.
func scrubURLError(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) && ue.Unwrap() != nil {
		return ue.Unwrap().Error()
	}
	return err.Error()
}

// Check runs Doctor and returns an error naming every model that cannot be
// used, with the advice for each; nil when all are fine.
func Check(ctx context.Context, cfgs []Config) error {
	var bad []string
	for _, f := range Doctor(ctx, cfgs) {
		if !f.OK {
			bad = append(bad, fmt.Sprintf("model %s: %s (%s)", f.Model, f.Problem, f.Advice))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%w:\n  %s", ErrUnreachable, strings.Join(bad, "\n  "))
}
