package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/killchain/killchain/internal/models/anthropic"
	"github.com/killchain/killchain/internal/models/deepseek"
	"github.com/killchain/killchain/internal/models/limits"
	"github.com/killchain/killchain/internal/models/ollama"
	"github.com/killchain/killchain/internal/models/openai"
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
// the environment (the key itself is never printed) and list the model
// (GET /models; Anthropic's /v1/models); Ollama hosts must answer
// /api/tags and hold the model; OpenAI-compatible servers must have the
// key api_key_env names set, answer GET /models and, when they list
// models, list this one. Scripted models need nothing and are reported OK.
func Doctor(ctx context.Context, cfgs []Config) []Finding {
	tags := map[string]tagResult{} // one /api/tags per host
	var out []Finding
	for _, c := range cfgs {
		f := Finding{Model: c.Name, OK: true}
		switch c.Provider {
		case Scripted:
		case OpenAI, Anthropic, DeepSeek:
			f = doctorHosted(ctx, c)
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
	if c.BaseURL == "" {
		return Finding{Model: c.Name, Problem: "openai_compatible: base_url is not set", Advice: "set base_url = \"http://HOST:PORT/v1\" in the model block"}
	}
	key := ""
	if env := c.KeyEnv(); env != "" {
		if key = os.Getenv(env); key == "" {
			return Finding{Model: c.Name, Problem: fmt.Sprintf("openai_compatible: api_key_env names %s, which is not set", env),
				Advice: fmt.Sprintf("export %s with the server's key, or remove api_key_env from model %q if the server needs none", env, c.Name)}
		}
	}
	return listed(ctx, c, strings.TrimRight(c.BaseURL, "/")+"/models", bearer(key),
		"start the server (vLLM, llama.cpp server, LM Studio) or fix base_url; it must serve GET /models")
}

// doctorHosted checks a hosted provider: its key must be set, and its
// model list (GET /models; Anthropic's /v1/models) must hold the model.
func doctorHosted(ctx context.Context, c Config) Finding {
	env := c.KeyEnv()
	key := os.Getenv(env)
	if key == "" {
		return Finding{Model: c.Name, Problem: fmt.Sprintf("%s: no credentials: %s is not set", c.Provider, env),
			Advice: fmt.Sprintf("export %s with your %s API key (keys are read only from the environment), or remove model %q from the study", env, c.Provider, c.Name)}
	}
	switch c.Provider {
	case Anthropic:
		base := strings.TrimRight(or(c.BaseURL, anthropic.DefaultBaseURL), "/")
		// Anthropic pages its list (20 by default, at most 1000 a page).
		return listed(ctx, c, base+"/v1/models?limit=1000", map[string]string{"x-api-key": key, "anthropic-version": "2023-06-01"},
			"check base_url and your network")
	case DeepSeek:
		return listed(ctx, c, strings.TrimRight(or(c.BaseURL, deepseek.DefaultBaseURL), "/")+"/models", bearer(key), "check base_url and your network")
	}
	return listed(ctx, c, strings.TrimRight(or(c.BaseURL, openai.DefaultBaseURL), "/")+"/models", bearer(key), "check base_url and your network")
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func bearer(key string) map[string]string {
	if key == "" {
		return nil
	}
	return map[string]string{"Authorization": "Bearer " + key}
}

// listed asks a server for its model list ({"data": [{"id": …}]}, the
// shape OpenAI, DeepSeek, Anthropic and vLLM answer with) and checks that
// it holds the model. A refused key names the key's variable; a server that
// lists models without this one names the model and a few it has.
func listed(ctx context.Context, c Config, url string, headers map[string]string, unreachable string) Finding {
	f := Finding{Model: c.Name, OK: true}
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(pctx, http.MethodGet, url, nil)
	if err != nil {
		return Finding{Model: c.Name, Problem: fmt.Sprintf("%s: bad base_url %q", c.Provider, c.BaseURL), Advice: "set base_url to the server's API URL"}
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.OK = false
		f.Problem = fmt.Sprintf("%s server %s does not answer: %s", c.Provider, url[:max(0, strings.LastIndex(url, "/models"))], scrubURLError(err))
		f.Advice = unreachable
		return f
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	reason := limits.Reason(body)
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		f.OK = false
		f.Problem = fmt.Sprintf("%s: GET %s returned %s: the key in %s was refused (%s)", c.Provider, url, resp.Status, c.KeyEnv(), reason)
		f.Advice = fmt.Sprintf("check the key in %s", c.KeyEnv())
		return f
	case resp.StatusCode != http.StatusOK:
		f.OK = false
		f.Problem = fmt.Sprintf("%s server: GET %s returned %s", c.Provider, url, resp.Status)
		f.Advice = "check base_url (it usually ends in /v1) and api_key_env"
		return f
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		HasMore bool `json:"has_more"` // Anthropic: more pages than this one
	}
	if json.Unmarshal(body, &list) != nil || len(list.Data) == 0 || c.Model == "" {
		return f // a server that lists no models cannot be checked further
	}
	var ids []string
	for _, m := range list.Data {
		if m.ID == c.Model {
			return f
		}
		ids = append(ids, m.ID)
	}
	if list.HasMore {
		return f // the model may be on a later page
	}
	slices.Sort(ids)
	if len(ids) > 8 {
		ids = append(ids[:8], "…")
	}
	f.OK = false
	f.Problem = fmt.Sprintf("%s server does not list model %s", c.Provider, c.Model)
	f.Advice = fmt.Sprintf("fix the name attribute of model %q; the server lists %s", c.Name, strings.Join(ids, ", "))
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
