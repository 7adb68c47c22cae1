package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/killchain/killchain/internal/models"
	"github.com/killchain/killchain/internal/study"
)

// modelConfig maps a study's model block onto a driver config.
func modelConfig(m *study.Model) models.Config {
	// A study's max_retries = 0 means no retries; models.Config reads 0 as
	// its own default and a negative count as none.
	retries := m.MaxRetries
	if retries == 0 {
		retries = -1
	}
	return models.Config{
		Name: m.Name, Provider: m.Provider, Model: m.ModelName, BaseURL: m.BaseURL, Host: m.Host,
		APIKeyEnv: m.APIKeyEnv, Temperature: m.Temperature, MaxTokens: m.MaxTokens, Seed: m.Seed,
		Thinking: m.Thinking, ThinkingBudget: m.ThinkingBudget, ReasoningEffort: m.ReasoningEffort,
		API: m.API, Timeout: m.Timeout, MaxRetries: retries, MaxConcurrency: m.MaxConcurrency,
	}
}

// liveConfigs returns the driver configs of a study's non-scripted models.
func liveConfigs(s *study.Study) []models.Config {
	var out []models.Config
	for _, m := range s.Models {
		if m.Provider != study.ProviderScripted {
			out = append(out, modelConfig(m))
		}
	}
	return out
}

// warnTokens prints a warning for each live model of s whose max_tokens
// leaves too little room beside its thinking (models.TokenWarning).
func warnTokens(w io.Writer, s *study.Study) {
	for _, msg := range models.TokenWarnings(liveConfigs(s)) {
		fmt.Fprintf(w, "warning: %s\n", msg)
	}
}

// preflight refuses a study whose models cannot be reached, before any
// sandbox is created.
func preflight(ctx context.Context, s *study.Study) error {
	cfgs := liveConfigs(s)
	if len(cfgs) == 0 {
		return nil
	}
	if err := models.Check(ctx, cfgs); err != nil {
		return fmt.Errorf("study %s cannot start: %w", s.Name, err)
	}
	return nil
}
