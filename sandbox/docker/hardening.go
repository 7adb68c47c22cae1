package docker

import (
	"fmt"

	"github.com/moby/moby/api/types/container"

	"github.com/killchain/killchain/sandbox/warm"
)

// ContainerConfig is the configuration of a sandbox container of image
// whose entrypoint is cmd (the toolbox's argv), with labels: hardened as
// every run's (containerConfig, hostConfig), with stdin open for the host to
// attach to. The backend creates its containers from it, and the
// benchmark's raw lifecycle (sandbox/sandboxbench/dockerbench) its own, so
// that both measure the same container.
func (b *Backend) ContainerConfig(image string, cmd []string, labels map[string]string) (*container.Config, *container.HostConfig) {
	cfg := &container.Config{Image: image, Entrypoint: cmd[:1], Cmd: cmd[1:]}
	containerConfig(cfg, labels, nil)
	return cfg, hostConfig(b.opts)
}

// hostConfig is the hardened host configuration of every sandbox
// container: no network, no capabilities, no privilege gain, a read-only
// root with a size-bounded tmpfs only at the state folder, pids, memory and
// CPU limits, no mounts from the host and no logging of the protocol stream.
func hostConfig(o Options) *container.HostConfig {
	pids := o.PidsLimit
	mem := o.MemoryMB << 20
	return &container.HostConfig{
		NetworkMode:    "none",
		CapDrop:        []string{"ALL"},
		SecurityOpt:    []string{"no-new-privileges:true"},
		ReadonlyRootfs: true,
		Tmpfs: map[string]string{
			warm.StateDir: fmt.Sprintf("rw,noexec,nosuid,nodev,size=%dm,uid=65534,gid=65534,mode=0700", o.StateMB),
		},
		IpcMode:    "private",
		Runtime:    o.Runtime,
		LogConfig:  container.LogConfig{Type: "none"},
		Privileged: false,
		Resources: container.Resources{
			Memory:     mem,
			MemorySwap: mem, // no swap: a hog meets the OOM killer
			NanoCPUs:   int64(o.CPUs * 1e9),
			PidsLimit:  &pids,
		},
	}
}

// containerConfig sets what the image does not: the non-root user, an empty
// environment (nothing from the host, API keys included), and an open
// stdin the host attaches to.
func containerConfig(c *container.Config, labels map[string]string, cmd []string) {
	c.User = warm.SandboxUser
	c.Env = []string{}
	c.Hostname = "sandbox"
	c.WorkingDir = warm.StateDir
	c.NetworkDisabled = true
	c.OpenStdin = true
	c.StdinOnce = true
	c.AttachStdin = true
	c.AttachStdout = true
	c.AttachStderr = true
	c.Tty = false
	if cmd != nil {
		c.Cmd = cmd
	}
	if c.Labels == nil {
		c.Labels = map[string]string{}
	}
	for k, v := range labels {
		c.Labels[k] = v
	}
}
