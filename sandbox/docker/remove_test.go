package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"
)

// fakeDaemon speaks the two calls of a removal in the Docker API's own
// form: DELETE /containers/{id} and GET /containers/{id}/json. Each
// container answers its scripted removals in turn (the last repeats) and
// is inspectable until a removal succeeded, or for ever when ghost.
type fakeDaemon struct {
	mu      sync.Mutex
	removes map[string][]int // status codes of successive DELETEs
	ghost   map[string]bool  // listed and inspectable whatever DELETE says
	gone    map[string]bool
	calls   map[string]int
}

func (f *fakeDaemon) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/containers/json"):
		var list []map[string]any
		for id := range f.removes {
			if !f.gone[id] || f.ghost[id] {
				list = append(list, map[string]any{"Id": id, "Names": []string{"/" + id}})
			}
		}
		json.NewEncoder(w).Encode(list)
	case r.Method == http.MethodGet && len(parts) >= 2 && parts[len(parts)-1] == "json":
		id := parts[len(parts)-2]
		if f.gone[id] && !f.ghost[id] {
			jsonErr(w, http.StatusNotFound, "No such container: "+id)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"Id": id, "State": map[string]any{"Status": "removing"}})
	case r.Method == http.MethodDelete && len(parts) >= 1:
		id := parts[len(parts)-1]
		codes := f.removes[id]
		n := f.calls[id]
		f.calls[id]++
		code := codes[min(n, len(codes)-1)]
		switch code {
		case http.StatusNoContent:
			f.gone[id] = true
			w.WriteHeader(code)
		case http.StatusNotFound:
			jsonErr(w, code, "No such container: "+id)
		default:
			jsonErr(w, code, "unable to remove filesystem: unlinkat /var/lib/docker/containers/"+id+": directory not empty")
		}
	default:
		jsonErr(w, http.StatusBadRequest, "unexpected "+r.Method+" "+r.URL.Path)
	}
}

// jsonErr answers as the daemon does: a JSON body with a message.
func jsonErr(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"message": msg})
}

func newFake(t *testing.T, f *fakeDaemon) *client.Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cli, err := client.New(client.WithHost("tcp://"+strings.TrimPrefix(srv.URL, "http://")), client.WithVersion("1.47"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// TestRemoveGone: a removal that fails under load is asked again until the
// daemon says the container is gone; a "not found" from a container still
// being removed is not taken for gone.
func TestRemoveGone(t *testing.T) {
	tests := []struct {
		name    string
		removes []int
		ghost   bool
		wantErr string
		calls   int
	}{
		{name: "removed at once", removes: []int{204}, calls: 1},
		{name: "directory not empty, then removed", removes: []int{500, 500, 204}, calls: 3},
		{name: "already gone", removes: []int{404}, calls: 1},
		{name: "not found yet still listed", removes: []int{404}, ghost: true, wantErr: "state removing", calls: 2},
		{name: "never removable", removes: []int{500}, wantErr: "directory not empty (state removing)", calls: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeDaemon{removes: map[string][]int{"c1": tt.removes}, ghost: map[string]bool{"c1": tt.ghost},
				gone: map[string]bool{}, calls: map[string]int{}}
			if slicesHas(tt.removes, 404) && !tt.ghost {
				f.gone["c1"] = true
			}
			ctx, cancel := context.WithTimeout(t.Context(), 400*time.Millisecond)
			defer cancel()
			err := removeGone(ctx, newFake(t, f), "c1")
			if got := fmt.Sprint(err); tt.wantErr == "" && err != nil || tt.wantErr != "" && !strings.Contains(got, tt.wantErr) {
				t.Fatalf("removeGone = %v, want %q", err, tt.wantErr)
			}
			if f.calls["c1"] < tt.calls {
				t.Fatalf("%d removal requests, want at least %d", f.calls["c1"], tt.calls)
			}
		})
	}
}

// TestGCCountsOnlyWhatLeft: gc reports as removed only the containers the
// daemon says are gone, and names each that is still there.
func TestGCCountsOnlyWhatLeft(t *testing.T) {
	f := &fakeDaemon{
		removes: map[string][]int{"ok": {204}, "slow": {500, 204}, "stuck": {404}},
		ghost:   map[string]bool{"stuck": true}, gone: map[string]bool{}, calls: map[string]int{},
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	rep, err := GC(ctx, newFake(t, f))
	got := strings.Join(rep.Containers, ",")
	if got != "/ok,/slow" && got != "/slow,/ok" {
		t.Fatalf("removed %v, want ok and slow alone", rep.Containers)
	}
	if err == nil || !strings.Contains(err.Error(), "/stuck is still there") {
		t.Fatalf("gc error %v, want it to name the stuck container", err)
	}
}

func slicesHas(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
