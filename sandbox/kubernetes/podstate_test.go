package kubernetes

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/docker"
)

// TestPodState reads the pod statuses a cluster reports into running,
// still coming (waited for), or failed with a fault.
func TestPodState(t *testing.T) {
	waiting := func(reason, msg string) []corev1.ContainerStatus {
		return []corev1.ContainerStatus{{Name: ContainerName, Image: "img", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}}}
	}
	terminated := func(reason string, code int32) []corev1.ContainerStatus {
		return []corev1.ContainerStatus{{Name: ContainerName, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: reason, ExitCode: code}}}}
	}
	scheduled := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}
	for _, tc := range []struct {
		name    string
		status  corev1.PodStatus
		deleted bool
		running bool
		fault   sandbox.Fault
		placed  bool
	}{
		{name: "unschedulable is waited for", status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/1 nodes are available: 1 Insufficient memory."}}}},
		{name: "pending with no condition yet", status: corev1.PodStatus{Phase: corev1.PodPending}},
		{name: "creating", status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{scheduled}, ContainerStatuses: waiting("ContainerCreating", "")}, placed: true},
		{name: "pulling that may still succeed", status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{scheduled}, ContainerStatuses: waiting("ErrImagePull", "rpc error: connection reset")}, placed: true},
		{name: "image not found", status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{scheduled}, ContainerStatuses: waiting("ErrImagePull", "manifest unknown: not found")}, placed: true, fault: sandbox.FaultImage},
		{name: "image pull back-off", status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{scheduled}, ContainerStatuses: waiting("ImagePullBackOff", "Back-off pulling image")}, placed: true, fault: sandbox.FaultImage},
		{name: "never pull and absent", status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{scheduled}, ContainerStatuses: waiting("ErrImageNeverPull", "")}, placed: true, fault: sandbox.FaultImage},
		{name: "bad container config", status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{scheduled}, ContainerStatuses: waiting("CreateContainerConfigError", "runAsNonRoot")}, placed: true, fault: sandbox.FaultStart},
		{name: "running", status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{scheduled}, ContainerStatuses: []corev1.ContainerStatus{{Name: ContainerName, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}, placed: true, running: true},
		{name: "oom killed", status: corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: terminated("OOMKilled", 137)}, fault: sandbox.FaultOOMKilled},
		{name: "evicted", status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: "The node was low on resource: memory."}, fault: sandbox.FaultEvicted},
		{name: "exited", status: corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: terminated("Completed", 0)}, fault: sandbox.FaultExited},
		{name: "terminated while running phase", status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{scheduled}, ContainerStatuses: terminated("Error", 2)}, placed: true, fault: sandbox.FaultExited},
		{name: "being deleted", status: corev1.PodStatus{Phase: corev1.PodRunning}, deleted: true, fault: sandbox.FaultExited},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: tc.status}
			if tc.deleted {
				now := metav1.Now()
				pod.DeletionTimestamp = &now
			}
			st := podState(pod)
			if st.running != tc.running || st.scheduled != tc.placed || sandbox.FaultOf(st.fail) != tc.fault || (tc.fault != "") != (st.fail != nil) {
				t.Errorf("state = running %v placed %v fail %v (fault %q), want running %v placed %v fault %q",
					st.running, st.scheduled, st.fail, sandbox.FaultOf(st.fail), tc.running, tc.placed, tc.fault)
			}
			if tc.fault == sandbox.FaultExited && !errors.Is(st.fail, docker.ErrExited) {
				t.Errorf("exited pod: %v does not wrap %v", st.fail, docker.ErrExited)
			}
			if tc.fault == sandbox.FaultOOMKilled && !errors.Is(st.fail, docker.ErrOOMKilled) {
				t.Errorf("OOM-killed pod: %v does not wrap %v", st.fail, docker.ErrOOMKilled)
			}
			if !st.running && st.fail == nil && st.why == "" {
				t.Error("waiting without a reason")
			}
		})
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct{ in, label string }{
		{"smoke", "smoke"},
		{"memory_poison/a:b#1", "memory_poison-a-b-1-"},
		{"-lead", "lead-"},
		{"", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got := labelValue(tc.in)
			if len(got) > 63 || !alnumEnds(got) || (tc.label != "" && len(got) < len(tc.label)) || got[:len(tc.label)] != tc.label {
				t.Errorf("labelValue(%q) = %q", tc.in, got)
			}
		})
	}
	long := labelValue(string(make([]byte, 0)) + "a-very-long-study-name-that-goes-on-and-on-and-on-well-past-sixty-three")
	if len(long) > 63 || !alnumEnds(long) {
		t.Errorf("long label %q", long)
	}
	if labelValue("a/b") == labelValue("a:b") {
		t.Error("distinct names share a label value")
	}
	if ns := studyNamespace("Smoke_Study"); ns != "killchain-smoke-study" || !validLabel(ns) {
		t.Errorf("namespace %q", ns)
	}
	if p := podName("memory_poison/Q1"); !validLabel(p) {
		t.Errorf("pod name %q", p)
	}
}

// TestCreateRetry sorts the API server's refusals of a pod into waited for
// (quota), tried again (passing) and failed at once.
func TestCreateRetry(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	quotas := schema.GroupResource{Resource: "resourcequotas"}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{name: "created", err: nil, want: ""},
		{name: "at quota", err: apierrors.NewForbidden(pods, "p", errors.New(`exceeded quota: killchain, requested: pods=1, used: pods=16, limited: pods=16`)), want: "quota"},
		{name: "quota not computed", err: apierrors.NewForbidden(pods, "p", errors.New(`status unknown for quota: killchain, resource: pods`)), want: "quota"},
		{name: "quota usage conflict", err: apierrors.NewConflict(quotas, "killchain", errors.New("the object has been modified; please apply your changes to the latest version and try again")), want: "transient"},
		{name: "throttled", err: apierrors.NewTooManyRequests("slow down", 1), want: "transient"},
		{name: "server timeout", err: apierrors.NewServerTimeout(pods, "create", 1), want: "transient"},
		{name: "timeout", err: apierrors.NewTimeoutError("took too long", 1), want: "transient"},
		{name: "unavailable", err: apierrors.NewServiceUnavailable("starting"), want: "transient"},
		{name: "restricted level refuses", err: apierrors.NewForbidden(pods, "p", errors.New(`violates PodSecurity "restricted:latest": runAsNonRoot != true`)), want: ""},
		{name: "invalid", err: apierrors.NewBadRequest("spec.containers: Required value"), want: ""},
		{name: "already exists", err: apierrors.NewAlreadyExists(pods, "p"), want: ""},
		{name: "not an API error", err: errors.New("dial tcp 127.0.0.1:6443: connect: connection refused"), want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := createRetry(tc.err); got != tc.want {
				t.Errorf("createRetry(%v) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}
