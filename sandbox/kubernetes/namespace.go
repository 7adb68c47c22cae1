package kubernetes

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ensureNamespace makes a study's namespace ready once per backend: the
// namespace itself (labelled, enforcing the restricted Pod Security
// level), a ResourceQuota bounding its pods and their memory, a
// default-deny NetworkPolicy (enforced only where the cluster's network
// plugin implements policies), and the default service account pods need
// to be admitted (its token is never mounted).
func (b *Backend) ensureNamespace(ctx context.Context, ns, study string) error {
	b.mu.Lock()
	done := b.ready[ns]
	b.mu.Unlock()
	if done {
		return nil
	}
	_, err, _ := b.nsReady.Do(ns, func() (any, error) {
		if err := b.makeNamespace(ctx, ns, study); err != nil {
			return nil, err
		}
		b.mu.Lock()
		b.ready[ns] = true
		b.mu.Unlock()
		return nil, nil
	})
	return err
}

func (b *Backend) makeNamespace(ctx context.Context, ns, study string) error {
	labels := map[string]string{
		LabelManaged:                         managedBy,
		LabelStudy:                           labelValue(study),
		"pod-security.kubernetes.io/enforce": "restricted",
		"pod-security.kubernetes.io/enforce-version": "latest",
		"pod-security.kubernetes.io/warn":            "restricted",
	}
	obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: labels}}
	if _, err := b.cs.CoreV1().Namespaces().Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create namespace %s: %w", ns, err)
		}
		cur, err := b.cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("namespace %s: %w", ns, err)
		}
		if cur.DeletionTimestamp != nil {
			return fmt.Errorf("namespace %s is being deleted; wait for it to go, or run killchain sandbox gc", ns)
		}
	}
	mem := resource.NewQuantity(int64(b.opts.MaxPods)*b.opts.MemoryMB<<20, resource.BinarySI)
	quota := &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "killchain", Labels: map[string]string{LabelManaged: managedBy}},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{
			corev1.ResourcePods:         resource.MustParse(strconv.Itoa(b.opts.MaxPods)),
			corev1.ResourceLimitsMemory: *mem,
		}},
	}
	if _, err := b.cs.CoreV1().ResourceQuotas(ns).Create(ctx, quota, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("namespace %s: resource quota: %w", ns, err)
	}
	deny := &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "killchain-deny-all", Labels: map[string]string{LabelManaged: managedBy}},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
		},
	}
	if _, err := b.cs.NetworkingV1().NetworkPolicies(ns).Create(ctx, deny, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("namespace %s: network policy: %w", ns, err)
	}
	sa := &corev1.ServiceAccount{
		ObjectMeta:                   metav1.ObjectMeta{Name: "default"},
		AutomountServiceAccountToken: new(false),
	}
	if _, err := b.cs.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("namespace %s: service account: %w", ns, err)
	}
	b.log.Info("namespace ready", "namespace", ns, "max_pods", b.opts.MaxPods)
	return nil
}
