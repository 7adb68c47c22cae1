package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/killchain/killchain/internal/kubetest"
	"github.com/killchain/killchain/internal/sandboxtest"
	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/docker"
	"github.com/killchain/killchain/sandbox/warm"
)

func call(t *testing.T, s sandbox.Sandbox, agent, tool string, args map[string]string) sandbox.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := s.Call(context.Background(), agent, tool, raw)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// TestRunLifecycle opens a pod, runs tools over the exec stream, reads the
// final state, and checks the pod is labelled and gone after Close.
func TestRunLifecycle(t *testing.T) {
	for _, images := range []string{ImagesRegistry, ImagesImport} {
		t.Run(images, func(t *testing.T) {
			opts := Options{Images: images}
			if images == ImagesImport {
				opts.ImportCommand = kubetest.Import()
			} else {
				opts.Registry = kubetest.Registry
			}
			b := newBackend(t, opts)
			study := uniqueStudy(t, b)
			ctx := context.Background()
			sb, err := b.open(ctx, testEnv(study, "run/1"))
			if err != nil {
				t.Fatal(err)
			}
			ns, name := sb.Pod()
			pod, err := b.cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if pod.Labels[LabelStudy] != labelValue(study) || pod.Labels[LabelTask] != "kube_test" || pod.Annotations[AnnotationRun] != "run/1" {
				t.Errorf("labels %v annotations %v", pod.Labels, pod.Annotations)
			}
			img := pod.Spec.Containers[0].Image
			if images == ImagesRegistry && !strings.Contains(img, "@sha256:") {
				t.Errorf("image %q is not pinned by digest", img)
			}
			if got := call(t, sb, "a", "get_webpage", map[string]string{"url": "https://example.org/q"}); !strings.Contains(got.Output, "SECRET-0A1B2C3D") {
				t.Errorf("get_webpage = %+v", got)
			}
			if got := call(t, sb, "a", "write_memory", map[string]string{"key": "k", "value": "v"}); got.Error != "" || got.Effect == nil {
				t.Errorf("write_memory = %+v", got)
			}
			st, err := sb.State(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Memory) != 2 || len(st.Effects) != 1 || len(st.DB) != 1 {
				t.Errorf("state: memory %v effects %v db %v", st.Memory, st.Effects, st.DB)
			}
			if err := sb.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if err := sb.Close(ctx); err != nil {
				t.Errorf("second close: %v", err)
			}
			waitGone(t, b, ns, name)
		})
	}
}

func waitGone(t *testing.T, b *Backend, ns, name string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := b.cs.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod %s/%s still there after close: %v", ns, name, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func openProbe(t *testing.T, b *Backend, study, run string) *Sandbox {
	t.Helper()
	sb, err := b.open(context.Background(), testEnv(study, run))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close(context.Background()) })
	return sb
}

// TestHardeningFromInside holds a pod to the checks Docker containers pass
// (internal/sandboxtest): a pod always has eth0 (the namespace's
// NetworkPolicy denies its traffic where the network plugin enforces
// policies), its pids limit is the node's podPidsLimit (256 on the test
// cluster), and the platform's KUBERNETES_SERVICE_* variables are present.
func TestHardeningFromInside(t *testing.T) {
	sandboxtest.SetHostSecrets(t)
	b := newBackend(t, Options{})
	sb := openProbe(t, b, uniqueStudy(t, b), "probe")
	sandboxtest.Hardening(t, sb, sb.Probe, sandboxtest.Want{
		Interfaces:  []string{"lo", "eth0"},
		PidsLimit:   256,
		StateDir:    warm.StateDir,
		EnvPrefixes: []string{"KUBERNETES_"},
	})
	t.Run("namespace", func(t *testing.T) {
		ctx := context.Background()
		ns, err := b.cs.CoreV1().Namespaces().Get(ctx, sb.ns, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ns.Labels["pod-security.kubernetes.io/enforce"] != "restricted" {
			t.Errorf("namespace labels %v", ns.Labels)
		}
		if _, err := b.cs.NetworkingV1().NetworkPolicies(sb.ns).Get(ctx, "killchain-deny-all", metav1.GetOptions{}); err != nil {
			t.Error(err)
		}
		q, err := b.cs.CoreV1().ResourceQuotas(sb.ns).Get(ctx, "killchain", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if q.Spec.Hard.Pods().Value() != int64(b.opts.MaxPods) {
			t.Errorf("quota %v", q.Spec.Hard)
		}
	})
	t.Run("restricted level refuses a root pod", func(t *testing.T) {
		pod := b.podSpec(sb.ns, "kc-root-probe", "ignored", testEnv("x", "root"))
		root := int64(0)
		pod.Spec.SecurityContext.RunAsUser = &root
		pod.Spec.Containers[0].SecurityContext.RunAsUser = &root
		pod.Spec.Containers[0].SecurityContext.RunAsNonRoot = nil
		pod.Spec.SecurityContext.RunAsNonRoot = nil
		_, err := b.cs.CoreV1().Pods(sb.ns).Create(context.Background(), pod, metav1.CreateOptions{})
		if !apierrors.IsForbidden(err) {
			t.Errorf("root pod: err = %v, want forbidden by Pod Security", err)
		}
	})
}

func TestMemoryHogIsSandboxError(t *testing.T) {
	b := newBackend(t, Options{Options: warm.Options{MemoryMB: 32}})
	sb := openProbe(t, b, uniqueStudy(t, b), "hog")
	ctx := context.Background()
	_, err := sb.Probe(ctx, "alloc", 256)
	if !errors.Is(err, docker.ErrOOMKilled) || sandbox.FaultOf(err) != sandbox.FaultOOMKilled {
		t.Fatalf("memory hog: err = %v (fault %q), want %v", err, sandbox.FaultOf(err), docker.ErrOOMKilled)
	}
	if _, err := sb.Call(ctx, "a", "list_memory", nil); !errors.Is(err, docker.ErrOOMKilled) {
		t.Errorf("call after the OOM kill: err = %v", err)
	}
}

func TestDeletedPodIsSandboxError(t *testing.T) {
	b := newBackend(t, Options{})
	sb := openProbe(t, b, uniqueStudy(t, b), "dies")
	ctx := context.Background()
	grace := int64(0)
	if err := b.cs.CoreV1().Pods(sb.ns).Delete(ctx, sb.name, metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := sb.Call(ctx, "a", "list_memory", nil)
		if err != nil {
			if sandbox.FaultOf(err) != sandbox.FaultExited || !errors.Is(err, docker.ErrExited) {
				t.Errorf("err = %v (fault %q), want exited", err, sandbox.FaultOf(err))
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the sandbox still answers after its pod was deleted")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestUnschedulableWaitsThenFails: a pod no node can take is waited for
// until the scheduling deadline, then fails as unschedulable, never as an
// outcome; the namespace is left with no pod.
func TestUnschedulableWaitsThenFails(t *testing.T) {
	b := newBackend(t, Options{Options: warm.Options{MemoryMB: 1 << 20}, ScheduleTimeout: 3 * time.Second}) // a TiB
	study := uniqueStudy(t, b)
	start := time.Now()
	_, err := b.open(context.Background(), testEnv(study, "huge"))
	if sandbox.FaultOf(err) != sandbox.FaultUnschedulable {
		t.Fatalf("err = %v (fault %q), want unschedulable", err, sandbox.FaultOf(err))
	}
	if d := time.Since(start); d < 3*time.Second {
		t.Errorf("gave up after %s, before the 3s deadline", d)
	}
	list, err := b.cs.CoreV1().Pods(b.Namespace(study)).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			t.Errorf("pod %s left behind", p.Name)
		}
	}
}

// TestMissingImageIsImageFault: a pod whose image is not on the node and
// may not be pulled fails at once with the image fault.
func TestMissingImageIsImageFault(t *testing.T) {
	b := newBackend(t, Options{Images: ImagesImport, ImportCommand: "cat >/dev/null"})
	env := testEnv(uniqueStudy(t, b), "noimage")
	env.Task = "kube_test_never_imported" // a snapshot of its own
	_, err := b.open(context.Background(), env)
	if sandbox.FaultOf(err) != sandbox.FaultImage {
		t.Fatalf("err = %v (fault %q), want image", err, sandbox.FaultOf(err))
	}
}

func TestGCRemovesWhatAKilledStudyLeft(t *testing.T) {
	b := newBackend(t, Options{})
	study := uniqueStudy(t, b)
	ctx := context.Background()
	sb, err := b.open(ctx, testEnv(study, "left"))
	if err != nil {
		t.Fatal(err)
	}
	ns, name := sb.Pod()
	// As if the process died: no Close.
	b.forget(sb)
	rep, err := GC(ctx, b.cs, GCStudy(study))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Pods) != 1 || rep.Pods[0] != ns+"/"+name || len(rep.Namespaces) != 1 || rep.Namespaces[0] != ns {
		t.Errorf("gc = %+v", rep)
	}
	sb.stop()
}

// TestQuotaIsWaitedFor: a namespace at its pod quota makes the next run
// wait, not fail; it starts once a pod is gone, and fails as unschedulable
// only when the deadline passes first.
func TestQuotaIsWaitedFor(t *testing.T) {
	b := newBackend(t, Options{MaxPods: 1, ScheduleTimeout: 40 * time.Second})
	study := uniqueStudy(t, b)
	ctx := context.Background()
	first, err := b.open(ctx, testEnv(study, "first"))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(2 * time.Second)
		first.Close(ctx)
	}()
	start := time.Now()
	second, err := b.open(ctx, testEnv(study, "second"))
	if err != nil {
		t.Fatalf("second run: %v (fault %q)", err, sandbox.FaultOf(err))
	}
	defer second.Close(ctx)
	if d := time.Since(start); d < 2*time.Second {
		t.Errorf("second pod started after %s, while the first still held the quota", d)
	}

	short := newBackend(t, Options{MaxPods: 1, ScheduleTimeout: 2 * time.Second})
	_, err = short.open(ctx, testEnv(study, "third"))
	if sandbox.FaultOf(err) != sandbox.FaultUnschedulable || !strings.Contains(err.Error(), "quota") {
		t.Errorf("third run: err = %v (fault %q), want unschedulable at the quota", err, sandbox.FaultOf(err))
	}
}
