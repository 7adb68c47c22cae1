// Package dockertest gives tests a Docker client, or skips them when Docker
// is absent — unless CI is set, where a missing Docker fails the test.
package dockertest

import (
	"context"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/killchain/killchain/internal/testenv"
)

// Available reports whether a Docker daemon answers, with the reason when
// it does not.
func Available() (*client.Client, error) {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		cli.Close()
		return nil, err
	}
	return cli, nil
}

// CI reports whether the tests run under CI; see testenv.CI.
func CI() bool { return testenv.CI() }

// Require returns a client, skips the test when Docker is absent, or fails
// it when Docker is absent under CI.
func Require(t testing.TB) *client.Client {
	t.Helper()
	cli, err := Available()
	testenv.Need(t, err, "docker")
	t.Cleanup(func() { cli.Close() })
	return cli
}
