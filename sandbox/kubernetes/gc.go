package kubernetes

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// GCReport lists what GC removed.
type GCReport struct {
	Pods       []string `json:"pods"`       // namespace/name
	Namespaces []string `json:"namespaces"` // deleted (their contents go with them)
}

// GCOption narrows what GC removes.
type GCOption func(*gcConfig)

type gcConfig struct {
	study     string
	namespace string
}

// GCStudy limits GC to one study's pods and namespace.
func GCStudy(study string) GCOption { return func(c *gcConfig) { c.study = study } }

// GCNamespace also looks for pods in namespace, one killchain did not
// create (a study's namespace setting); it is never deleted.
func GCNamespace(ns string) GCOption { return func(c *gcConfig) { c.namespace = ns } }

// GC removes what killed studies left in the cluster: every pod labelled
// killchain.run, and every namespace killchain created (labelled
// managed-by killchain), with their quotas and policies. Run it only when no
// study is running (or narrow it with GCStudy).
func GC(ctx context.Context, cs kubernetes.Interface, opts ...GCOption) (GCReport, error) {
	var cfg gcConfig
	for _, o := range opts {
		o(&cfg)
	}
	var rep GCReport
	var errs []error
	pods := LabelRun
	nsSel := LabelManaged + "=" + managedBy
	if cfg.study != "" {
		pods += "," + LabelStudy + "=" + labelValue(cfg.study)
		nsSel += "," + LabelStudy + "=" + labelValue(cfg.study)
	}
	namespaces := []string{metav1.NamespaceAll}
	if cfg.namespace != "" {
		namespaces = []string{cfg.namespace}
	}
	grace := int64(0)
	for _, ns := range namespaces {
		list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: pods})
		if err != nil {
			errs = append(errs, fmt.Errorf("gc: list pods: %w", err))
			continue
		}
		for _, p := range list.Items {
			err := cs.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace})
			if err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("gc: delete pod %s/%s: %w", p.Namespace, p.Name, err))
				continue
			}
			rep.Pods = append(rep.Pods, p.Namespace+"/"+p.Name)
		}
	}
	nss, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: nsSel})
	if err != nil {
		return rep, errors.Join(append(errs, fmt.Errorf("gc: list namespaces: %w", err))...)
	}
	for _, n := range nss.Items {
		if n.Name == cfg.namespace || n.DeletionTimestamp != nil {
			continue
		}
		if err := cs.CoreV1().Namespaces().Delete(ctx, n.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("gc: delete namespace %s: %w", n.Name, err))
			continue
		}
		rep.Namespaces = append(rep.Namespaces, n.Name)
	}
	return rep, errors.Join(errs...)
}
