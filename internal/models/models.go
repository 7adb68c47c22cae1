// Package models builds the live model drivers a study names — Ollama,
// OpenAI, Anthropic, DeepSeek and OpenAI-compatible servers — and checks
// before a study starts that each can be reached. Scripted reference
// agents live in models/scripted and are built by the caller.
package models

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/anthropic"
	"github.com/killchain/killchain/internal/models/deepseek"
	"github.com/killchain/killchain/internal/models/limits"
	"github.com/killchain/killchain/internal/models/ollama"
	"github.com/killchain/killchain/internal/models/openai"
	"github.com/killchain/killchain/internal/models/openaicompat"
	"github.com/killchain/killchain/internal/secrets"
)

// Providers.
const (
	Scripted         = "scripted"
	Ollama           = "ollama"
	OpenAI           = "openai"
	Anthropic        = "anthropic"
	DeepSeek         = "deepseek"
	OpenAICompatible = "openai_compatible"
)

// ErrProvider wraps every error a driver returns once its retries are spent
// or the provider refused the call: the run is a provider error, never an
// outcome.
var ErrProvider = limits.ErrProvider

// ErrScripted is returned by New for provider "scripted", which the caller
// builds itself from models/scripted.
var ErrScripted = errors.New("scripted models are not built by models.New")

// Defaults applied by New.
const (
	DefaultMaxTokens      = 2048
	DefaultTimeout        = 3 * time.Minute
	DefaultMaxRetries     = 4
	DefaultMaxConcurrency = 8
	DefaultOllamaConc     = 2
)

// Config.Limit: the limit on calls in flight to one provider and host, when the model
// block sets no max_concurrency: DefaultOllamaConc for Ollama (one local
// server that runs few requests at once), else the study's concurrency
// (Config.Concurrency) — every run then waits on its own call, and the
// adaptive limiter still halves on a 429 — or DefaultMaxConcurrency when
// the caller says none.

// Config mirrors a study's model block.
type Config struct {
	Name            string // block label
	Provider        string
	Model           string // the provider's model name
	BaseURL         string
	Host            string // Ollama host
	APIKeyEnv       string // environment variable holding the key
	Temperature     float64
	MaxTokens       int // 0 means DefaultMaxTokens
	Seed            *int64
	Thinking        bool
	ThinkingBudget  int
	ReasoningEffort string
	API             string        // openai: "chat" (default) or "responses"
	Timeout         time.Duration // per call; 0 means DefaultTimeout
	MaxRetries      int           // 0 means DefaultMaxRetries; <0 means none
	MaxConcurrency  int           // per provider and host; 0 means the default (see above)
	// Concurrency is the most runs the caller keeps in flight (the
	// study's concurrency); with MaxConcurrency 0 it is the limit.
	Concurrency int
}

// KeyEnv is the environment variable a config's key is read from, or ""
// for providers that need none.
func (c Config) KeyEnv() string {
	if c.APIKeyEnv != "" {
		return c.APIKeyEnv
	}
	switch c.Provider {
	case OpenAI:
		return "OPENAI_API_KEY"
	case Anthropic:
		return "ANTHROPIC_API_KEY"
	case DeepSeek:
		return "DEEPSEEK_API_KEY"
	}
	return ""
}

// Limit is the most calls in flight to the config's provider and host:
// its max_concurrency, else the default (see DefaultMaxConcurrency).
func (c Config) Limit() int {
	switch {
	case c.MaxConcurrency > 0:
		return c.MaxConcurrency
	case c.Provider == Ollama:
		return DefaultOllamaConc
	case c.Concurrency > 0:
		return c.Concurrency
	}
	return DefaultMaxConcurrency
}

// needsKey says whether the provider refuses calls without a key.
func (c Config) needsKey() bool {
	switch c.Provider {
	case OpenAI, Anthropic, DeepSeek:
		return true
	}
	return false
}

// endpoint is the provider and host a concurrency limit is shared by.
func (c Config) endpoint() string {
	switch c.Provider {
	case Ollama:
		if u, err := ollama.HostURL(c.Host); err == nil {
			return c.Provider + "|" + u.Host
		}
	case OpenAI:
		return c.Provider + "|" + host(c.BaseURL, openai.DefaultBaseURL)
	case Anthropic:
		return c.Provider + "|" + host(c.BaseURL, anthropic.DefaultBaseURL)
	case DeepSeek:
		return c.Provider + "|" + host(c.BaseURL, deepseek.DefaultBaseURL)
	}
	return c.Provider + "|" + host(c.BaseURL, "")
}

func host(base, def string) string {
	if base == "" {
		base = def
	}
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Host
	}
	return base
}

// Option adjusts New; tests use them for tiny backoffs.
type Option func(*settings)

type settings struct {
	policy  func(*limits.Policy)
	limiter *limits.Limiter
	secrets *secrets.Set
}

// WithPolicy edits the retry policy after the config's values are applied.
func WithPolicy(f func(*limits.Policy)) Option { return func(s *settings) { s.policy = f } }

// WithLimiter uses l instead of the process-wide limiter for the endpoint.
func WithLimiter(l *limits.Limiter) Option { return func(s *settings) { s.limiter = l } }

// WithSecrets adds the driver's key to a set the caller also uses to scrub
// its own output.
func WithSecrets(sec *secrets.Set) Option { return func(s *settings) { s.secrets = sec } }

// New builds the live driver for cfg. Keys come only from the environment.
// Errors never contain the key.
func New(cfg Config, logger hclog.Logger, opts ...Option) (agent.Model, error) {
	var st settings
	for _, o := range opts {
		o(&st)
	}
	if cfg.Provider == Scripted {
		return nil, fmt.Errorf("model %s: %w", cfg.Name, ErrScripted)
	}
	if cfg.Model == "" {
		return nil, fmt.Errorf("model %s: name of the %s model is empty", cfg.Name, cfg.Provider)
	}
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	key := ""
	if env := cfg.KeyEnv(); env != "" {
		key = os.Getenv(env)
		if key == "" && (cfg.needsKey() || cfg.APIKeyEnv != "") {
			return nil, fmt.Errorf("model %s: %w: environment variable %s is not set", cfg.Name, ErrProvider, env)
		}
	}
	sec := st.secrets
	if sec == nil {
		sec = secrets.New()
	}
	sec.Add(key)
	caller := &limits.Caller{
		Model:   cfg.Name,
		KeyEnv:  cfg.KeyEnv(),
		Served:  cfg.Model,
		Policy:  policy(cfg),
		Logger:  logger.Named("model"), // the caller names the model on each line
		Secrets: sec,
		Limiter: st.limiter,
	}
	if st.policy != nil {
		st.policy(&caller.Policy)
	}
	if caller.Limiter == nil {
		caller.Limiter = limits.Shared(cfg.endpoint(), cfg.Limit())
	}
	hc := &http.Client{Transport: limits.Transport(nil)}
	maxTokens := cfg.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	oo := openai.Options{
		Model: cfg.Model, BaseURL: cfg.BaseURL, APIKey: key, Temperature: cfg.Temperature,
		MaxTokens: maxTokens, Seed: cfg.Seed, Thinking: cfg.Thinking, ReasoningEffort: cfg.ReasoningEffort,
		HTTPClient: hc, Caller: caller,
	}
	var m agent.Model
	var err error
	switch cfg.Provider {
	case Ollama:
		m, err = ollama.New(ollama.Options{
			Model: cfg.Model, Host: cfg.Host, Temperature: cfg.Temperature, MaxTokens: maxTokens,
			Seed: cfg.Seed, Thinking: cfg.Thinking, ReasoningEffort: cfg.ReasoningEffort,
			HTTPClient: hc, Caller: caller,
		})
	case OpenAI:
		switch strings.ToLower(cfg.API) {
		case "", "chat":
			m, err = openai.NewChat(oo)
		case "responses":
			m, err = openai.NewResponses(oo)
		default:
			return nil, fmt.Errorf("model %s: unknown openai api %q (want chat or responses)", cfg.Name, cfg.API)
		}
	case Anthropic:
		m, err = anthropic.New(anthropic.Options{
			Model: cfg.Model, BaseURL: cfg.BaseURL, APIKey: key, Temperature: cfg.Temperature,
			MaxTokens: maxTokens, Thinking: cfg.Thinking, ThinkingBudget: cfg.ThinkingBudget,
			HTTPClient: hc, Caller: caller,
		})
	case DeepSeek:
		m, err = deepseek.New(oo)
	case OpenAICompatible:
		m, err = openaicompat.New(oo)
	default:
		return nil, fmt.Errorf("model %s: unknown provider %q (want %s)", cfg.Name, cfg.Provider, strings.Join(Providers(), ", "))
	}
	if err != nil {
		return nil, fmt.Errorf("model %s: %s", cfg.Name, sec.Scrub(err.Error()))
	}
	return m, nil
}

// Providers lists the provider names a model block may use.
func Providers() []string {
	return []string{Scripted, Ollama, OpenAI, Anthropic, DeepSeek, OpenAICompatible}
}

func policy(cfg Config) limits.Policy {
	p := limits.DefaultPolicy()
	p.Timeout = DefaultTimeout
	if cfg.Timeout > 0 {
		p.Timeout = cfg.Timeout
	}
	switch {
	case cfg.MaxRetries < 0:
		p.MaxRetries = 0
	case cfg.MaxRetries > 0:
		p.MaxRetries = cfg.MaxRetries
	}
	return p
}
