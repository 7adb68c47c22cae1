// Package dockertest gives tests a Docker client, or skips them when Docker
// is absent — unless CI is set, where a missing Docker fails the test.
package dockertest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/moby/moby/client"
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

// CI reports whether the tests run under CI (env CI set and not "false").
func CI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "false" && v != "0"
}

// Require returns a client, skips the test when Docker is absent, or fails
// it when Docker is absent under CI.
func Require(t testing.TB) *client.Client {
	t.Helper()
	cli, err := Available()
	if err != nil {
		if CI() {
			t.Fatalf("docker is required under CI: %v", err)
		}
		t.Skipf("docker is not available: %v", err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}
