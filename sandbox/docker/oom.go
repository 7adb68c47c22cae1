package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/events"
	"github.com/moby/moby/client"
)

// A container whose process was killed by SIGKILL (exit code 137) under a
// memory limit was most often killed by the out-of-memory killer, but the
// daemon does not always say so: it records the exit and the OOM kill from
// two events of containerd, in either order, and containerd drops the OOM
// event when the container's cgroup is gone before it reads it (seen on a
// loaded CI machine, where the toolbox itself ran out of memory). So when
// the flag is missing the daemon's event log decides: an "oom" event (the
// flag recorded late) is an OOM kill, a "kill" is a kill through the Docker
// API (docker kill, docker stop, docker rm -f), and a "die" with neither is
// an OOM kill inferred. The daemon keeps only its latest events: without
// the "die" (logged right after any "kill") the log no longer reaches back
// far enough, and nothing is inferred.

// oomPending reports whether st, a container killed by SIGKILL under a
// memory limit, may not have its OOM kill recorded yet.
func oomPending(st *container.State, memoryMB int64) bool {
	return st != nil && memoryMB > 0 && !st.Running && !st.OOMKilled && st.ExitCode == 137
}

// exitEvents is what the daemon's event log says about a container's end.
type exitEvents struct {
	oom, kill, die bool
}

// inferOOM reports whether a SIGKILLed container without the daemon's OOM
// flag is taken to have been killed by the OOM killer, given its events.
func (e exitEvents) inferOOM() bool { return e.oom || (e.die && !e.kill) }

// exitEvents reads the "oom", "kill" and "die" events of container id,
// from its start to a second after its end, from the daemon's event log.
// Both times are the daemon's (its clock may not be this machine's); the
// daemon sends the events it holds and those still to come until then.
func (b *Backend) exitEvents(ctx context.Context, id string, st *container.State) (exitEvents, error) {
	since, err := time.Parse(time.RFC3339Nano, st.StartedAt)
	if err != nil || since.Year() < 2000 {
		return exitEvents{}, fmt.Errorf("container %.12s: no start time (%q)", id, st.StartedAt)
	}
	until, err := time.Parse(time.RFC3339Nano, st.FinishedAt)
	if err != nil || until.Before(since) {
		return exitEvents{}, fmt.Errorf("container %.12s: no end time (%q)", id, st.FinishedAt)
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	res := b.cli.Events(ctx, client.EventsListOptions{
		Since: unixStamp(since.Add(-time.Second)),
		Until: unixStamp(until.Add(time.Second)),
		Filters: client.Filters{}.Add("type", string(events.ContainerEventType)).Add("container", id).
			Add("event", string(events.ActionOOM), string(events.ActionKill), string(events.ActionDie)),
	})
	var got exitEvents
	for {
		select {
		case m := <-res.Messages:
			switch m.Action {
			case events.ActionOOM:
				got.oom = true
			case events.ActionKill:
				got.kill = true
			case events.ActionDie:
				got.die = true
			}
		case err := <-res.Err:
			if err == nil || errors.Is(err, io.EOF) {
				return got, nil
			}
			return got, fmt.Errorf("read the daemon's events of container %.12s: %w", id, err)
		}
	}
}

func unixStamp(t time.Time) string { return fmt.Sprintf("%d.%09d", t.Unix(), t.Nanosecond()) }
