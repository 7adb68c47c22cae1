package kubernetes

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/killchain/killchain/sandbox"
	"github.com/killchain/killchain/sandbox/stream"
	"github.com/killchain/killchain/sandbox/warm"
)

// ContainerName is the name of the one container of a sandbox pod.
const ContainerName = "sandbox"

// sandboxUID is the user and group every sandbox runs as (nobody).
const sandboxUID = 65534

// PodSpec is the hardened pod of a run of env in namespace ns, started from
// image (see PodImage), named for the run as the backend names its pods. The
// benchmark's raw pod lifecycle (sandbox/sandboxbench/kubebench) creates its
// pods from it, so that both measure the same pod.
func (b *Backend) PodSpec(ns, image string, env sandbox.Env) *corev1.Pod {
	return b.podSpec(ns, podName(env.Run), image, env)
}

// podSpec is the hardened pod of one run: the same limits as a Docker
// sandbox wherever Kubernetes can express them (see docs/sandbox.md's table of
// what each backend isolates).
func (b *Backend) podSpec(ns, name, image string, env sandbox.Env) *corev1.Pod {
	uid := int64(sandboxUID)
	mem := resource.NewQuantity(b.opts.MemoryMB<<20, resource.BinarySI)
	state := resource.NewQuantity(b.opts.StateMB<<20, resource.BinarySI)
	seccomp := &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
	pull := corev1.PullIfNotPresent
	if b.opts.Images == ImagesImport {
		pull = corev1.PullNever
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: ns,
			Labels: map[string]string{
				LabelManaged: managedBy,
				LabelStudy:   labelValue(env.Study),
				LabelRun:     labelValue(env.Run),
				LabelTask:    labelValue(env.Task),
			},
			Annotations: map[string]string{AnnotationRun: env.Run},
		},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			AutomountServiceAccountToken:  new(false),
			EnableServiceLinks:            new(false),
			Hostname:                      "sandbox",
			TerminationGracePeriodSeconds: new(int64(1)),
			SecurityContext: &corev1.PodSecurityContext{
				RunAsUser:      &uid,
				RunAsGroup:     &uid,
				RunAsNonRoot:   new(true),
				FSGroup:        &uid,
				SeccompProfile: seccomp,
			},
			Containers: []corev1.Container{{
				Name:            ContainerName,
				Image:           image,
				ImagePullPolicy: pull,
				Command:         []string{warm.ToolboxPath, "wait"},
				WorkingDir:      warm.StateDir,
				SecurityContext: &corev1.SecurityContext{
					RunAsUser:                &uid,
					RunAsGroup:               &uid,
					RunAsNonRoot:             new(true),
					Privileged:               new(false),
					AllowPrivilegeEscalation: new(false),
					ReadOnlyRootFilesystem:   new(true),
					Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
					SeccompProfile:           seccomp,
				},
				Resources: corev1.ResourceRequirements{
					Limits: corev1.ResourceList{
						corev1.ResourceMemory: *mem,
						corev1.ResourceCPU:    *resource.NewMilliQuantity(int64(b.opts.CPUs*1000), resource.DecimalSI),
					},
					Requests: corev1.ResourceList{
						corev1.ResourceMemory: *mem,
						corev1.ResourceCPU:    *resource.NewMilliQuantity(int64(b.opts.CPURequest*1000), resource.DecimalSI),
					},
				},
				VolumeMounts:             []corev1.VolumeMount{{Name: "work", MountPath: warm.StateDir}},
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			}},
			Volumes: []corev1.Volume{{
				Name: "work",
				VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
					Medium: corev1.StorageMediumMemory, SizeLimit: state,
				}},
			}},
		},
	}
	if b.opts.RuntimeClass != "" {
		pod.Spec.RuntimeClassName = new(b.opts.RuntimeClass)
	}
	return pod
}

// start creates the run's pod, waits for it to run and execs the toolbox.
func (b *Backend) start(ctx context.Context, ns, image string, env sandbox.Env, cmd []string) (*Sandbox, error) {
	name := podName(env.Run)
	log := b.log.With("run", env.Run, "task", env.Task, "pod", ns+"/"+name)
	s := &Sandbox{Client: stream.Client{Run: env.Run}, b: b, ns: ns, name: name, log: log}
	pod, err := b.create(ctx, b.podSpec(ns, name, image, env))
	if err != nil {
		return nil, err
	}
	b.track(s)
	if err := b.waitRunning(ctx, pod); err != nil {
		s.Close(ctx)
		return nil, err
	}
	if err := s.exec(cmd); err != nil {
		s.Close(ctx)
		return nil, err
	}
	log.Debug("sandbox started")
	return s, nil
}

// create creates the pod. A namespace at its quota is waited for like a
// pod the scheduler cannot place: until ScheduleTimeout. A refusal the API
// server means as passing (a quota update that lost a race with another
// pod's, throttling, a timeout) is tried again, for as long.
func (b *Backend) create(ctx context.Context, pod *corev1.Pod) (*corev1.Pod, error) {
	deadline := time.Now().Add(b.opts.ScheduleTimeout)
	pods := b.cs.CoreV1().Pods(pod.Namespace)
	for try, wait := 0, 200*time.Millisecond; ; try, wait = try+1, min(2*wait, 5*time.Second) {
		created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
		if try > 0 && apierrors.IsAlreadyExists(err) {
			// An earlier try was made although its reply was lost.
			if got, gerr := pods.Get(ctx, pod.Name, metav1.GetOptions{}); gerr == nil && got.Labels[LabelRun] == pod.Labels[LabelRun] {
				return got, nil
			}
		}
		switch retry := createRetry(err); {
		case err == nil:
			return created, nil
		case retry == "":
			return nil, fmt.Errorf("create pod: %w", err)
		case time.Now().After(deadline) && retry == "quota":
			return nil, sandbox.Failf(sandbox.FaultUnschedulable, "namespace %s stayed at its pod quota for %s: %w", pod.Namespace, b.opts.ScheduleTimeout, err)
		case time.Now().After(deadline):
			return nil, fmt.Errorf("create pod: refused for %s: %w", b.opts.ScheduleTimeout, err)
		default:
			b.log.Debug("pod creation refused for now, trying again", "pod", pod.Name, "reason", retry, "wait", wait, "error", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// createRetry says why a refused pod creation is to be tried again later,
// or "" when it is not: "quota" when the namespace is at its quota or its
// quota's usage is not computed yet (a namespace just made), "transient"
// when the API server refused for a passing reason (a conflict on the
// quota's usage when pods are created side by side, throttling, a
// timeout, the server unavailable).
func createRetry(err error) string {
	switch msg := fmt.Sprint(err); {
	case err == nil:
		return ""
	case apierrors.IsForbidden(err) && (strings.Contains(msg, "exceeded quota") || strings.Contains(msg, "status unknown for quota")):
		return "quota"
	case apierrors.IsConflict(err), apierrors.IsTooManyRequests(err), apierrors.IsServerTimeout(err),
		apierrors.IsTimeout(err), apierrors.IsServiceUnavailable(err):
		return "transient"
	}
	return ""
}

// waitRunning waits until the pod's container runs, following the pod
// with a watch (and a Get every second, should the watch miss or close).
// Pending is waited for (the scheduler may place it when other pods end)
// until ScheduleTimeout; once placed, pulling and starting get
// StartTimeout. A pod that cannot pull its image, cannot start, or ends,
// fails with its fault.
func (b *Backend) waitRunning(ctx context.Context, pod *corev1.Pod) error {
	ns, name := pod.Namespace, pod.Name
	var events <-chan watch.Event
	w, err := b.cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", name).String(),
		ResourceVersion: pod.ResourceVersion,
	})
	if err == nil {
		defer w.Stop()
		events = w.ResultChan()
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	start := time.Now()
	var placed time.Time
	last := ""
	for {
		st := podState(pod)
		if st.running {
			return nil
		}
		if st.fail != nil {
			return st.fail
		}
		if st.scheduled && placed.IsZero() {
			placed = time.Now()
		}
		switch {
		case placed.IsZero() && time.Since(start) > b.opts.ScheduleTimeout:
			return sandbox.Failf(sandbox.FaultUnschedulable, "pod %s not scheduled after %s: %s", name, b.opts.ScheduleTimeout, st.why)
		case !placed.IsZero() && time.Since(placed) > b.opts.StartTimeout:
			return sandbox.Failf(sandbox.FaultStart, "pod %s not running %s after it was placed: %s", name, b.opts.StartTimeout, st.why)
		}
		if st.why != last {
			b.log.Debug("pod waiting", "pod", ns+"/"+name, "why", st.why)
			last = st.why
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if p, ok := ev.Object.(*corev1.Pod); ok {
				pod = p
				if ev.Type == watch.Deleted && pod.DeletionTimestamp == nil {
					now := metav1.Now()
					pod.DeletionTimestamp = &now
				}
			}
		case <-tick.C:
			p, err := b.cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if apierrors.IsNotFound(err) {
					return sandbox.Failf(sandbox.FaultExited, "%w: pod %s was deleted before it ran", warm.ErrExited, name)
				}
				return fmt.Errorf("watch pod: %w", err)
			}
			pod = p
		}
	}
}

// state is what a pod's status says about a sandbox.
type state struct {
	running   bool
	scheduled bool
	why       string // why it is not running yet
	fail      error  // set when it never will
}

// podState reads a pod's status: running, still coming, or failed with a
// fault.
func podState(pod *corev1.Pod) state {
	var st state
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			st.scheduled = c.Status == corev1.ConditionTrue
			if !st.scheduled {
				st.why = strings.TrimSpace(c.Reason + ": " + c.Message)
			}
		}
	}
	if pod.DeletionTimestamp != nil {
		st.fail = sandbox.Failf(sandbox.FaultExited, "%w: pod %s is being deleted", warm.ErrExited, pod.Name)
		return st
	}
	switch pod.Status.Phase {
	case corev1.PodFailed, corev1.PodSucceeded:
		st.fail = ended(pod)
		return st
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name != ContainerName {
			continue
		}
		switch {
		case cs.State.Running != nil:
			st.running = pod.Status.Phase == corev1.PodRunning
		case cs.State.Terminated != nil:
			st.fail = ended(pod)
		case cs.State.Waiting != nil:
			w := cs.State.Waiting
			st.why = strings.TrimSpace(w.Reason + ": " + w.Message)
			switch w.Reason {
			case "ImagePullBackOff", "ErrImageNeverPull", "InvalidImageName", "ErrImagePull":
				if w.Reason != "ErrImagePull" || strings.Contains(w.Message, "not found") {
					st.fail = sandbox.Failf(sandbox.FaultImage, "pod %s: image %s: %s", pod.Name, cs.Image, st.why)
				}
			case "CreateContainerConfigError", "CreateContainerError", "RunContainerError", "CrashLoopBackOff":
				st.fail = sandbox.Failf(sandbox.FaultStart, "pod %s: %s", pod.Name, st.why)
			}
		}
	}
	if st.why == "" {
		st.why = string(pod.Status.Phase)
	}
	return st
}

// ended explains a pod or container that stopped: evicted, OOM-killed, or
// exited with a code.
func ended(pod *corev1.Pod) error {
	if pod.Status.Reason == "Evicted" {
		return sandbox.Failf(sandbox.FaultEvicted, "pod %s was evicted: %s", pod.Name, pod.Status.Message)
	}
	for _, cs := range pod.Status.ContainerStatuses {
		t := cs.State.Terminated
		if cs.Name != ContainerName || t == nil {
			continue
		}
		if t.Reason == "OOMKilled" {
			return sandbox.Failf(sandbox.FaultOOMKilled, "%w (pod %s, exit code %d)", warm.ErrOOMKilled, pod.Name, t.ExitCode)
		}
		return sandbox.Failf(sandbox.FaultExited, "%w: pod %s: %s with code %d %s", warm.ErrExited, pod.Name, t.Reason, t.ExitCode, strings.TrimSpace(t.Message))
	}
	return sandbox.Failf(sandbox.FaultExited, "%w: pod %s is %s: %s %s", warm.ErrExited, pod.Name, pod.Status.Phase, pod.Status.Reason, pod.Status.Message)
}
