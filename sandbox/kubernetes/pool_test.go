package kubernetes

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/killchain/killchain/sandbox/warm"
)

// livePods lists the pods of study that are not being deleted.
func livePods(t *testing.T, b *Backend, study string) []string {
	t.Helper()
	list, err := b.cs.CoreV1().Pods(b.Namespace(study)).List(context.Background(), metav1.ListOptions{LabelSelector: LabelStudy + "=" + labelValue(study)})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	var out []string
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			out = append(out, p.Name)
		}
	}
	return out
}

// TestWarmPoolPods opens runs through a warm pool of pods side by side:
// each gets a pod no other run had, with none of another run's records,
// deleted when it closes; the pool's pods go when the backend closes.
func TestWarmPoolPods(t *testing.T) {
	const size = 2
	b := newBackend(t, Options{Options: warm.Options{WarmPool: size}})
	study := uniqueStudy(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var mu sync.Mutex
	seen := map[string]string{}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			run := fmt.Sprintf("run-%d", i)
			sb, err := b.Open(ctx, testEnv(study, run))
			if err != nil {
				t.Error(err)
				return
			}
			s := sb.(*Sandbox)
			_, name := s.Pod()
			mu.Lock()
			if other, dup := seen[name]; dup {
				t.Errorf("pod %s served %s and %s", name, other, run)
			}
			seen[name] = run
			mu.Unlock()
			st, err := s.State(ctx)
			if err != nil {
				t.Error(err)
			}
			for _, r := range st.Memory {
				if r.Author != "" && r.Author != "seed" {
					t.Errorf("%s found record %q by %s", run, r.Key, r.Author)
				}
			}
			if _, err := s.Call(ctx, "a", "write_memory", []byte(fmt.Sprintf(`{"key":"mark","value":%q}`, run))); err != nil {
				t.Error(err)
			}
			if err := s.Close(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(seen) != 4 {
		t.Errorf("%d distinct pods for 4 runs", len(seen))
	}
	if err := b.WarmSettle(ctx); err != nil {
		t.Fatal(err)
	}
	if pods, ready := livePods(t, b, study), b.WarmReady(); len(pods) != size || ready != size {
		t.Errorf("after the runs closed: pods %v, %d ready; want the %d warm ones", pods, ready, size)
	}
	if err := b.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if pods := livePods(t, b, study); len(pods) > 0 {
		t.Errorf("pods left after Close: %v", pods)
	}
}
