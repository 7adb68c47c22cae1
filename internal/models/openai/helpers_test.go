package openai

import (
	"context"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/internal/fake"
	"github.com/killchain/killchain/internal/models/limits"
)

func testCaller() *limits.Caller {
	return &limits.Caller{Model: "test", Policy: limits.Policy{MaxRetries: 2, Timeout: 5 * time.Second,
		Sleep: func(context.Context, time.Duration) error { return nil }}}
}

func firstRequest(t *testing.T) agent.Request { return fake.FirstRequest() }

func secondRequest(req agent.Request, r agent.Reply) agent.Request { return fake.SecondRequest(req, r) }

func want[T comparable](t *testing.T, what string, got, exp T) {
	t.Helper()
	if got != exp {
		t.Errorf("%s = %v, want %v", what, got, exp)
	}
}

func field(body []byte, path string) gjson.Result { return gjson.GetBytes(body, path) }
