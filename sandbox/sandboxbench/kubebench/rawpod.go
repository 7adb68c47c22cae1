package kubebench

import (
	"context"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/kubernetes"
	"github.com/killchain/killchain/sandbox/sandboxbench"
	"github.com/killchain/killchain/sandbox/stream"
	"github.com/killchain/killchain/sandbox/warm"
)

// rawPods is the raw pod lifecycle the benchmark holds killchain's against,
// through client-go alone: create the pod (the same hardened spec and
// snapshot image as a run's, kubernetes.Backend.PodSpec), watch it to
// Running, exec "/toolbox version" in it to its end, and delete it (grace
// 0, not waiting for it to go, as killchain's Close does). Nothing of
// killchain runs on the way but the pod's spec: no retries, no fault
// diagnosis, no toolbox protocol.
type rawPods struct {
	b       *kubernetes.Backend
	ns      string
	image   string
	study   string
	cleanup time.Duration // bounds a deletion, as the backend's CleanupTimeout
}

// run is one lifecycle of a raw pod.
func (r rawPods) run(ctx context.Context, run string) error {
	pods := r.b.Client().CoreV1().Pods(r.ns)
	spec := r.b.PodSpec(r.ns, r.image, sandbox.Env{Study: r.study, Run: run, Task: sandboxbench.Task})
	pod, err := pods.Create(ctx, spec, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("raw pod: create: %w", err)
	}
	grace := int64(0)
	deleted := false
	defer func() {
		if !deleted {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cleanup)
			defer cancel()
			pods.Delete(cctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace})
		}
	}()
	w, err := pods.Watch(ctx, metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", pod.Name).String(),
		ResourceVersion: pod.ResourceVersion,
	})
	if err != nil {
		return fmt.Errorf("raw pod: watch: %w", err)
	}
	for pod.Status.Phase != corev1.PodRunning {
		ev, ok := <-w.ResultChan()
		if !ok {
			w.Stop()
			return fmt.Errorf("raw pod %s: watch ended before it ran", pod.Name)
		}
		if p, ok := ev.Object.(*corev1.Pod); ok {
			pod = p
		}
		if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
			w.Stop()
			return fmt.Errorf("raw pod %s ended: %s", pod.Name, pod.Status.Phase)
		}
	}
	w.Stop()
	req := r.b.Client().CoreV1().RESTClient().Post().Resource("pods").Namespace(r.ns).Name(pod.Name).
		SubResource("exec").VersionedParams(&corev1.PodExecOptions{
		Container: kubernetes.ContainerName,
		Command:   []string{warm.ToolboxPath, "version"},
		Stdout:    true,
		Stderr:    true,
	}, scheme.ParameterCodec)
	ex, err := remotecommand.NewWebSocketExecutor(r.b.RESTConfig(), "GET", req.URL().String())
	if err != nil {
		return fmt.Errorf("raw pod: exec: %w", err)
	}
	var stderr stream.Tail
	if err := ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: io.Discard, Stderr: &stderr}); err != nil {
		return fmt.Errorf("raw pod %s: exec: %w: %s", pod.Name, err, stderr.String())
	}
	deleted = true
	if err := pods.Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil {
		return fmt.Errorf("raw pod: delete: %w", err)
	}
	return nil
}
