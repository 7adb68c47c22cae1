package kubernetes

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/killchain/killchain/sandbox"
)

// TestCreateTriesAgain drives the pod creation loop against an API server
// that refuses with the errors a real one sends: passing refusals and a
// full quota are tried again until the deadline, a lost reply is found by
// its run label, and anything else fails at once.
func TestCreateTriesAgain(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	quotas := schema.GroupResource{Resource: "resourcequotas"}
	conflict := apierrors.NewConflict(quotas, "killchain", errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	full := apierrors.NewForbidden(pods, "p", errors.New("exceeded quota: killchain, requested: pods=1, used: pods=1, limited: pods=1"))
	const lost = "lost"
	for _, tc := range []struct {
		name    string
		refuse  []any // errors (or lost) answered to the first tries, in order; then the pod is made
		always  error // answered to every try instead
		fault   sandbox.Fault
		fails   bool
		creates int // tries that reach the API server
	}{
		{name: "made at once", creates: 1},
		{name: "quota conflict then made", refuse: []any{conflict, conflict}, creates: 3},
		{name: "full quota then made", refuse: []any{full, conflict}, creates: 3},
		{name: "reply lost after the pod was made", refuse: []any{lost}, creates: 2},
		{name: "full quota past the deadline", always: full, fails: true, fault: sandbox.FaultUnschedulable},
		{name: "conflicts past the deadline", always: conflict, fails: true},
		{name: "refused by the security level", always: apierrors.NewForbidden(pods, "p", errors.New(`violates PodSecurity "restricted:latest"`)), fails: true, creates: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := fake.NewClientset()
			tries := 0
			cs.PrependReactor("create", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
				tries++
				if tc.always != nil {
					return true, nil, tc.always
				}
				if tries > len(tc.refuse) {
					return false, nil, nil // the tracker makes it (or says it exists)
				}
				if tc.refuse[tries-1] == lost {
					obj := action.(k8stesting.CreateAction).GetObject()
					if err := cs.Tracker().Create(corev1.SchemeGroupVersion.WithResource("pods"), obj, action.GetNamespace()); err != nil {
						t.Fatal(err)
					}
					return true, nil, apierrors.NewServerTimeout(pods, "create", 1)
				}
				return true, nil, tc.refuse[tries-1].(error)
			})
			b := &Backend{cs: cs, log: hclog.NewNullLogger(), opts: Options{ScheduleTimeout: 700 * time.Millisecond}}
			pod := b.podSpec("ns", "killchain-run-1", "img@sha256:00", sandbox.Env{Run: "task-1"})
			got, err := b.create(context.Background(), pod)
			if tc.fails {
				if err == nil {
					t.Fatalf("created %s, want an error", got.Name)
				}
				if f := sandbox.FaultOf(err); f != tc.fault {
					t.Errorf("fault %q, want %q (%v)", f, tc.fault, err)
				}
				if tc.creates > 0 && tries != tc.creates {
					t.Errorf("%d tries, want %d", tries, tc.creates)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != pod.Name || got.Labels[LabelRun] != pod.Labels[LabelRun] {
				t.Errorf("created %s %v, want %s", got.Name, got.Labels, pod.Name)
			}
			if tries != tc.creates {
				t.Errorf("%d tries, want %d", tries, tc.creates)
			}
			if _, err := cs.CoreV1().Pods("ns").Get(context.Background(), pod.Name, metav1.GetOptions{}); err != nil {
				t.Errorf("pod not on the server: %v", err)
			}
		})
	}
}
